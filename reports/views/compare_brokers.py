"""Compare brokers (docs/reports.md): the brokers of the latest runs side by side, a column each, the rows
grouped by the questions of someone choosing one; each cell a word or a figure with the anchor of its
evidence in index.html. Plain Python over what the report already holds (verdicts, broker profiles,
faults, across versions), the implementations' identities and the measurements beside the results
(reports/views/measurements.py): no second pass over the rows, and no verdict is made or changed here.

The rules:
- a cell: {text, status, evidence (an anchor of index.html), detail (the figures behind the text), section
  (for a line inside a broker's larger evidence, that evidence's anchor)}; a missing cell is the row's `absent`;
- a column is one broker: an implementation of kind broker, a broker a provider ran over
  (`provenance.broker`), or a broker the measurements, the profiles or the faults name. Product, version
  and variant come from provenance (reports/views/versions.py `column_of`); columns by product label, then
  release, a variant (a configuration: its deviations beyond its version's) after its version;
- reference implementations (role reference: mqconform's OpenMessaging mappings `mqconform-om/...`, its
  reference codecs) are never a column or a row of the brokers' table: their verdicts are a table of
  their own (`reference`), by broker, below it;
- CloudEvents through the broker (transit), per binding: `kept` when every message sent came back
  unchanged and still satisfying its vector, else `K/N kept` (status changed; lost when one did not
  come back);
- CloudEvents across protocols (cross-protocol), per direction and mode: fewer delivered than sent ->
  `D/N delivered` (lost); binary mode, the attributes: one lost -> `N lost` (`all lost`), else one
  changed, or the body or content-type -> `N changed`, else `kept`; structured mode, the event read
  with the other binding: every one equal -> `readable`, none -> `not readable`, else `R/D readable`;
- specs judged on the broker itself (its broker verdicts, e.g. RabbitMQ's address format): a row per
  spec revision that applies to one broker at least; the cell is the verdict;
- OpenMessaging profile, a row per requirement: the strongest status over the broker's protocols
  (native, emulated: by a provider, absent, unknown: not observed), with `*` when its protocols differ.
  A variant column that observed it native says `configured` (native with its configuration), and so
  does its version's column when that did not observe it native;
- faults, only when the run had fault rows: per semantics / fault, the broker's lines summed: `kept`
  when nothing confirmed was lost and nothing duplicated, else `N lost`, `N dup`;
- versions, per product in two or more versions: a column against the one before it (a variant
  against its version, a version against the previous version) over the lines of Across versions:
  `+F −B ~O`, F lines from failing to passing, B from passing to failing, O other changes of class
  (a vector that applies in one of the two only, an error), each left out when 0; `same` when none;
  the first version `—`.
"""
from __future__ import annotations

import re

from fixtures.verdict.row import PROFILE_STATUSES
from fixtures.verdict.versionrange import release

from ..rows.outcomes import CLASS_OF, NOT_APPLICABLE, VERDICT_SHORT
from . import faults as faults_mod
from .versions import column_of
from .versions import label as version_label

# A product's name in a column head; a product not named here shows its id.
PRODUCT_LABELS = {"activemq": "ActiveMQ Classic", "artemis": "ActiveMQ Artemis", "garagemq": "GarageMQ",
                  "qpid-broker-j": "Qpid Broker-J", "rabbitmq": "RabbitMQ", "rocketmq": "RocketMQ"}
PROFILE_WORDS = {"native": "native", "emulated": "emulated", "partial": "partial", "absent": "absent",
                 "unknown": "not observed"}
RANK = {s: i for i, s in enumerate(PROFILE_STATUSES)}   # native 0 ... unknown 3: lower is stronger
NOT_MEASURED = "not measured"


def anchor(*parts: str) -> str:
    """An HTML id from readable parts: `transit-rabbitmq-4.0.5`. Renderers give their elements these ids."""
    return "-".join(re.sub(r"[^A-Za-z0-9_.-]+", "-", str(p)).strip("-") or "_" for p in parts)


def _cell(text: str, status: str, evidence: str, detail: str = "", section: str | None = None) -> dict:
    """A cell; `section`, when the evidence is a line inside a larger one (a profile's requirement), is that
    larger one's anchor: summary.md links there, one link per broker."""
    cell = {"text": text, "status": status, "evidence": f"#{evidence}", "detail": detail}
    return {**cell, "section": f"#{section}"} if section else cell


def columns(identities: list[dict], targets: list[str]) -> list[dict]:
    """The brokers: {broker, product, product_label, version, variant, configuration}, in column order."""
    found: dict[str, dict] = {}
    for i in identities:
        ident = {"name": i["impl"], **(i.get("implementation") or {})}
        if ident.get("role") == "reference" and ident.get("kind") != "provider":
            continue
        col = column_of(ident)
        if ident.get("kind") == "broker":
            name = ident["name"]
        elif ident.get("kind") == "provider" and (ident.get("provenance") or {}).get("broker"):
            name = ident["provenance"]["broker"]
        else:
            continue
        if name not in found or (col and not found[name].get("product")):
            found[name] = {"broker": name, **({k: col[k] for k in ("product", "version", "variant", "deviations")}
                                               if col else {"product": None, "version": None, "variant": "",
                                                            "deviations": []})}
    for t in targets:
        found.setdefault(t, {"broker": t, "product": None, "version": None, "variant": "", "deviations": []})
    plain = {(c["product"], c["version"]): set(c["deviations"]) for c in found.values() if not c["variant"]}
    out = []
    for c in found.values():
        base = plain.get((c["product"], c["version"]), set())
        out.append({"broker": c["broker"], "product": c["product"],
                    "product_label": PRODUCT_LABELS.get(c["product"], c["product"] or c["broker"]),
                    "version": c["version"], "variant": c["variant"],
                    "configuration": sorted(set(c["deviations"]) - base) if c["variant"] else []})

    def order(c):
        r = release(c["version"] or "")
        return (c["product_label"].lower(), r is None, r or (), c["version"] or "", c["variant"] != "", c["variant"])
    return sorted(out, key=order)


def _transit(tables: list[dict], brokers: set[str]) -> list[dict]:
    rows: dict[str, dict] = {}
    for t in tables:
        if t["target"] not in brokers:
            continue
        row = rows.setdefault(t["spec"], {"id": f"transit {t['spec']}", "label": f"{t['spec']} over {t['protocol']}",
                                          "absent": NOT_MEASURED, "cells": {}})
        n, kept = t["messages"], min(t["unchanged"], t["satisfying"])
        status = "kept" if kept == n else "lost" if t["delivered"] < n else "changed"
        detail = (f"{n} message(s): {t['delivered']} delivered, {t['unchanged']} unchanged, {t['satisfying']} still "
                  f"satisfy the vector" + "".join(f"; {x['vector_id']} not delivered: {x['why']}" for x in t["not_delivered"])
                  + "".join(f"; {x['vector_id']} changed: {', '.join(x['changes'])}" for x in t["changed"]))
        row["cells"][t["target"]] = _cell("kept" if status == "kept" else f"{kept}/{n} kept", status,
                                          anchor("transit", t["target"]), detail)
    return [rows[k] for k in sorted(rows)]


def crossing_cell(t: dict) -> tuple[str, str]:
    """(text, status) of one target, direction and mode of the cross-protocol measurement."""
    n, d = t["messages"], t["delivered"]
    if d < n:
        return f"{d}/{n} delivered", "lost"
    if t["mode"] == "binary":
        fields = t["fields_kept"] + t["fields_changed"] + t["fields_lost"]
        if t["fields_lost"]:
            return ("all lost" if t["fields_lost"] == fields else f"{t['fields_lost']} lost"), "lost"
        if t["fields_changed"] or t["body_kept"] < d or t["content_type_kept"] < d:
            return f"{t['fields_changed'] + (d - t['body_kept']) + (d - t['content_type_kept'])} changed", "changed"
        return "kept", "kept"
    r = t["events_equal"]
    return ("readable", "kept") if r == d else ("not readable", "lost") if r == 0 else (f"{r}/{d} readable", "changed")


def _crossing(tables: list[dict], brokers: set[str]) -> list[dict]:
    rows: dict[tuple, dict] = {}
    for t in tables:
        if t["target"] not in brokers:
            continue
        what = "the attributes" if t["mode"] == "binary" else "the event"
        row = rows.setdefault((t["direction"], t["mode"]), {
            "id": f"cross-protocol {t['direction']} {t['mode']}", "label": f"{t['direction']}, {t['mode']}: {what}",
            "absent": "not measured (the measurement runs on brokers with AMQP 1.0 and 0-9-1)", "cells": {}})
        text, status = crossing_cell(t)
        detail = (f"{t['messages']} message(s), {t['delivered']} delivered; body kept {t['body_kept']}, content-type "
                  f"kept {t['content_type_kept']}; attributes kept {t['fields_kept']}, changed {t['fields_changed']}, "
                  f"lost {t['fields_lost']}; event equal read with the other binding {t['events_equal']}"
                  + "".join(f"; {k}: {n}" for k, n in t["changes"].items()))
        row["cells"][t["target"]] = _cell(text, status, anchor("cross-protocol", t["target"]), detail)
    return [rows[k] for k in sorted(rows)]


def _broker_specs(verdicts: list[dict], brokers: set[str]) -> list[dict]:
    rows: dict[tuple, dict] = {}
    for v in verdicts:
        if v["implementation"] not in brokers or v.get("covers") != "broker verdict":
            continue
        key = (v["spec"], v["spec_revision"] or "")
        # `rabbitmq-address@4.0` names its revision already
        name = key[0] if key[0].endswith(f"@{key[1]}") else " ".join(x for x in key if x)
        row = rows.setdefault(key, {"id": f"spec {key[0]} {key[1]}".strip(), "label": name,
                                    "absent": "not run", "cells": {}})
        counts = "; ".join(f"{lv}: " + ", ".join(f"{o} {n}" for o, n in c.items()) for lv, c in v["counts"].items())
        row["cells"][v["implementation"]] = _cell(VERDICT_SHORT.get(v["verdict"], v["verdict"]), v["verdict"],
                                                  anchor("verdict", v["implementation"], v["spec"]), counts)
    return [rows[k] for k in sorted(rows)
            if any(c["status"] != NOT_APPLICABLE for c in rows[k]["cells"].values())]


def _profile(profiles: list[dict], cols: list[dict]) -> list[dict]:
    by_broker = {p["broker"]: p for p in profiles}
    ids: list[str] = []
    titles: dict[str, str] = {}
    for p in profiles:
        for q in p["requirements"]:
            if q["id"] not in titles:
                ids.append(q["id"])
                titles[q["id"]] = q.get("title") or q["id"]
    rows = []
    for req in ids:
        cells = {}
        for c in cols:
            p = by_broker.get(c["broker"])
            q = next((q for q in p["requirements"] if q["id"] == req), None) if p else None
            if q is None:
                continue
            got = q["by_protocol"]
            best = min(got, key=lambda x: RANK.get(got[x]["status"], len(RANK)))
            status = got[best]["status"] if got[best]["status"] in RANK else "unknown"
            mixed = len({x["status"] for x in got.values()} - {"unknown"}) > 1   # an unobserved protocol is no difference
            detail = "; ".join(f"{x}: {got[x]['status']}" + (f" ({got[x]['evidence']})" if got[x].get("evidence") else "")
                               for x in sorted(got))
            text = PROFILE_WORDS[status] + ("*" if mixed else "")
            if status == "native" and c["variant"]:
                status, text = "configured", "configured" + ("*" if mixed else "")
                detail = f"native with configuration {'; '.join(c['configuration']) or c['variant']}: {detail}"
            cells[c["broker"]] = _cell(text, status, anchor("profile", c["broker"], req), detail,
                                       section=anchor("profile", c["broker"]))
        # the plain version's column, when a variant of it observed natively what it did not
        for c in cols:
            mine = cells.get(c["broker"])
            if c["variant"] or (mine and mine["status"] == "native"):
                continue
            for v in cols:
                other = cells.get(v["broker"])
                if (v["variant"] and (v["product"], v["version"]) == (c["product"], c["version"]) and other
                        and other["status"] == "configured"):
                    cells[c["broker"]] = {**other, "detail": f"with configuration {v['variant']} "
                                          f"({'; '.join(v['configuration'])}): native; in the default configuration: "
                                          f"{mine['text'] if mine else 'not observed'}. {other['detail']}"}
                    break
        if cells:
            rows.append({"id": f"openmessaging {req}", "label": titles[req], "requirement": req,
                         "absent": "no OpenMessaging provider ran over it", "cells": cells})
    return rows


def _provider_products(verdicts: list[dict], identities: list[dict], brokers: set[str]) -> list[dict]:
    """A product's own OpenMessaging provider over a broker (role product): its verdict, in the broker's column."""
    over = {i["impl"]: (i.get("implementation") or {}).get("provenance", {}).get("broker") for i in identities
            if (i.get("implementation") or {}).get("kind") == "provider"
            and (i.get("implementation") or {}).get("role") != "reference"}
    cells = {}
    for v in verdicts:
        broker = over.get(v["implementation"])
        if broker in brokers and v.get("covers") == "provider verdict":
            cells[broker] = _cell(VERDICT_SHORT.get(v["verdict"], v["verdict"]), v["verdict"],
                                  anchor("verdict", v["implementation"], v["spec"]), f"{v['implementation']}")
    return [{"id": "openmessaging provider", "label": "the product's own provider (its verdict)",
             "absent": "no product provider ran over it", "cells": cells}] if cells else []


def _faults(view: list[dict], brokers: set[str]) -> list[dict]:
    rows: dict[str, dict] = {}
    order: dict[str, tuple] = {}
    for b in view:
        if b["broker"] not in brokers:
            continue
        sums: dict[str, dict] = {}
        for ln in b["lines"]:
            key = faults_mod.label(ln)
            order.setdefault(key, (faults_mod.rank(ln["semantics"], faults_mod.SEMANTICS),
                                   faults_mod.rank(ln["fault"], faults_mod.FAULTS), key))
            s = sums.setdefault(key, {"sent": 0, "confirmed": 0, "delivered": 0, "lost": 0, "duplicated": 0, "lines": []})
            for n in ("sent", "confirmed", "delivered", "lost", "duplicated"):
                s[n] += ln[n]
            s["lines"].append(f"{ln['implementation']} {ln['protocol'] or ''}: {ln['outcome']}".replace("  ", " "))
        for key, s in sums.items():
            parts = [f"{s['lost']} lost"] * bool(s["lost"]) + [f"{s['duplicated']} dup"] * bool(s["duplicated"])
            status = "lost" if s["lost"] else "changed" if s["duplicated"] else "kept"
            detail = (f"sent {s['sent']}, confirmed {s['confirmed']}, delivered {s['delivered']}, lost {s['lost']}, "
                      f"duplicated {s['duplicated']} (the providers' verdicts: {'; '.join(s['lines'])})")
            rows.setdefault(key, {"id": f"fault {key}", "label": key, "absent": "no fault row", "cells": {}})["cells"][
                b["broker"]] = _cell(", ".join(parts) or "kept", status, anchor("faults", b["broker"]), detail)
    return [rows[k] for k in sorted(rows, key=lambda k: order[k])]


def _versions(products: list[dict], cols: list[dict]) -> list[dict]:
    cells = {}
    for p in products:
        keys = [c["key"] for c in p["columns"]]
        plain = [c["key"] for c in p["columns"] if not c["variant"]]
        for c in p["columns"]:
            broker = next((x["broker"] for x in cols if x["product"] == p["product"]
                           and version_label(x["version"], x["variant"]) == c["key"]), None)
            if broker is None:
                continue
            base = c["version"] if c["variant"] else (plain[plain.index(c["key"]) - 1] if plain.index(c["key"]) else None)
            if base is None or base not in keys:
                cells[broker] = _cell("—", "first", anchor("across", p["product"]),
                                      f"the first version of {p['product']} in this run")
                continue
            up = down = other = 0
            for ln in p["lines"]:
                a, b = ln["cells"].get(base), ln["cells"].get(c["key"])
                if not (a and b and a.get("compared", True) and b.get("compared", True)):
                    continue
                was, now = CLASS_OF.get(a["outcome"], a["outcome"]), CLASS_OF.get(b["outcome"], b["outcome"])
                if was == now:
                    continue
                up += was == "fail" and now == "pass"
                down += was == "pass" and now == "fail"
                other += (was, now) not in (("fail", "pass"), ("pass", "fail"))
            status = "same" if not (up or down or other) else "worse" if down and not up else "better" if up and not down else "changed"
            text = " ".join([f"+{up}"] * bool(up) + [f"−{down}"] * bool(down) + [f"~{other}"] * bool(other)) or "same"
            cells[broker] = _cell(text, status, anchor("across", p["product"]),
                                  f"against {base}: {up} vector(s) now pass that failed, {down} now fail that passed, "
                                  f"{other} other change(s)")
    return [{"id": "versions", "label": "against the version before (+ now pass, − now fail, ~ other changes)",
             "absent": "one version of the product in this run", "cells": cells}] if cells else []


def _reference(verdicts: list[dict], identities: list[dict], cols: list[dict]) -> dict:
    """mqconform's own code: its mappings over each broker (a row per lane) and its reference codecs."""
    brokers = {c["broker"] for c in cols}
    ident = {i["impl"]: i.get("implementation") or {} for i in identities}
    rows: dict[str, dict] = {}
    codecs = []
    for v in verdicts:
        i = ident.get(v["implementation"]) or {}
        if v.get("covers") != "reference":
            continue
        broker = (i.get("provenance") or {}).get("broker")
        if i.get("kind") == "provider" and broker in brokers:
            lane = v["implementation"].split("@", 1)[0]
            counts = "; ".join(f"{lv}: " + ", ".join(f"{o} {n}" for o, n in c.items()) for lv, c in v["counts"].items())
            rows.setdefault(lane, {"id": f"reference {lane}", "label": f"{lane} on {v['spec']}", "absent": "not run",
                                   "cells": {}})["cells"][broker] = _cell(
                VERDICT_SHORT.get(v["verdict"], v["verdict"]), v["verdict"],
                anchor("verdict", v["implementation"], v["spec"]), counts)
        else:
            codecs.append({"implementation": v["implementation"], "spec": v["spec"], "spec_revision": v["spec_revision"],
                           "verdict": v["verdict"], "evidence": f"#{anchor('verdict', v['implementation'], v['spec'])}"})
    return {"rows": [rows[k] for k in sorted(rows)], "others": codecs}


# The groups, in order: (id, the question, what its rows are).
GROUPS = (
    ("cloudevents", "Does a CloudEvent go through the broker intact?",
     "Each binding's messages through the broker and back over its protocol (a measurement, not conformance)."),
    ("cross-protocol", "Does a CloudEvent survive from one protocol to the other?",
     "Published over one AMQP, consumed over the other (a measurement). Binary mode: the attributes (the "
     "bindings' prefixes differ, so no binding reads the event); structured mode: the event read with the other binding."),
    ("broker-specs", "Does the broker follow the specs that bind it?",
     "Its verdicts on the specs that are about brokers (the address format of RabbitMQ), where one applies."),
    ("openmessaging", "OpenMessaging: what does the broker do itself?",
     "The broker profile (docs/verdicts.md): native (observed), configured (native with a configuration named), "
     "emulated (a provider did it), partial (part of it seen), absent, not observed; * the protocols differ."),
    ("faults", "Under faults: were confirmed messages lost or duplicated?",
     "The fault vectors' tallies summed per broker (the providers' verdicts are in Faults)."),
    ("versions", "What changed from one version to the next?",
     "The vectors of Across versions whose outcome class changed against the version before."),
)


def view(report: dict, identities: list[dict], measurements: dict | None = None) -> dict:
    """{columns, groups: [{id, question, note, rows, empty}], reference: {rows, others}}. A row: {id, label,
    absent (what a missing cell means), cells: broker -> {text, status, evidence, detail}}."""
    m = measurements or {"transit": [], "cross_protocol": []}
    named = ({t["target"] for k in ("transit", "cross_protocol") for t in m.get(k) or []}
             | {p["broker"] for p in report.get("broker_profiles") or []} | {b["broker"] for b in report.get("faults") or []})
    cols = columns(identities, sorted(named))
    brokers = {c["broker"] for c in cols}
    rows = {"cloudevents": _transit(m.get("transit") or [], brokers),
            "cross-protocol": _crossing(m.get("cross_protocol") or [], brokers),
            "broker-specs": _broker_specs(report["verdicts"], brokers),
            "openmessaging": _provider_products(report["verdicts"], identities, brokers)
            + _profile(report.get("broker_profiles") or [], cols),
            "faults": _faults(report.get("faults") or [], brokers),
            "versions": _versions(report.get("across_versions") or [], cols)}
    empty = {"cloudevents": "Not measured in this build: the transit measurement's rows are read from beside the "
                            "results file (NAME.transit.jsonl).",
             "cross-protocol": "Not measured in this build (NAME.cross-protocol.jsonl beside the results file).",
             "broker-specs": "No spec about brokers applies to these brokers.",
             "openmessaging": "No OpenMessaging provider ran over these brokers.",
             "faults": faults_mod.empty_text(lambda t: t),
             "versions": "No product ran in two or more versions."}
    return {"columns": cols,
            "groups": [{"id": g, "question": q, "note": note, "rows": rows[g], "empty": None if rows[g] else empty[g]}
                       for g, q, note in GROUPS],
            "reference": _reference(report["verdicts"], identities, cols)}
