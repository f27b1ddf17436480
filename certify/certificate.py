"""What a certificate says, decided from the rows alone, and its Markdown text.

`facts(rows, ...)` is the whole certificate as data (certificate.json): the implementation and the
versions its broker gave, the suite version and commit, the vectors digest, the run, and per spec
revision the verdict and the counts per level. Verdicts come from reports/views/model.py `spec_verdicts`,
the code the report uses, over each row's level and outcome (docs/verdicts.md), so a certificate and a
report of the same rows never disagree. `render(facts)` is CERTIFICATE.md: a function of the facts
only, so that verify can render it again and compare it byte for byte.

A certification admits no expectations file: every row must have been expected to pass (no xfail,
no xpass). Deviations a vendor declares (`--deviations FILE`, the expectations format) are listed
on the certificate with the failing rows they account for, as declared; they never change a verdict.
"""
from __future__ import annotations

import datetime as dt
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fixtures.verdict import expectations as exp_mod  # noqa: E402
from fixtures.verdict.levels import GROUPS, group_of  # noqa: E402
from reports.gate import gate  # noqa: E402
from reports.render.markdown import md_cell, shorten  # noqa: E402
from reports.render.render_md import outcome_counts  # noqa: E402
from reports.rows.outcomes import (  # noqa: E402
    CONFORMANT,
    CONFORMANT_EXCEPT_SHOULD,
    INCOMPLETE,
    MUST_HELD,
    NOT_APPLICABLE,
    NOT_CONFORMANT,
    OUTCOME_ORDER,
)
from reports.views import clauses as clause_files  # noqa: E402
from reports.views import model  # noqa: E402

from . import (  # noqa: E402
    counts,
    failing,
    stated,
    timing,  # noqa: E402
)

SCHEMA = "mqconform-certificate/2"
# Facts of the run every row repeats; a certificate holds one run of one implementation.
SAME_IN_EVERY_ROW = ("run_id", "run_started", "suite_version", "vectors_digest")
# Provenance an endpoint's rows carry (fixtures/run/brokers.py): what the broker said about itself.
SERVER_FACTS = ("server_product", "server_version", "server_platform", "server_cluster_name", "server_read_over")


class CertificateError(ValueError):
    """The rows cannot make one certificate; the message says which rows and why."""


def _one(rows: list[dict], key: str, get=None) -> str:
    get = get or (lambda r: r.get(key))
    values = sorted({str(get(r)) for r in rows})
    if len(values) != 1:
        raise CertificateError(f"the rows disagree on {key}: {', '.join(values[:5])}")
    return values[0]


def check_rows(rows: list[dict]) -> list[str]:
    """Why these rows cannot be a certification's (empty: they can)."""
    problems = []
    if not rows:
        return ["no result rows"]
    for key in SAME_IN_EVERY_ROW:
        try:
            _one(rows, key)
        except CertificateError as exc:
            problems.append(str(exc))
    try:
        _one(rows, "implementation", lambda r: (r.get("implementation") or {}).get("name"))
    except CertificateError as exc:
        problems.append(str(exc))
    listed = [r for r in rows if r.get("expected_outcome") != "pass" or r.get("outcome") in ("xfail", "xpass")]
    if listed:
        r = listed[0]
        problems.append(f"{len(listed)} row(s) were judged against an expectations file (e.g. {r.get('vector_id')}: "
                        f"expected {r.get('expected_outcome')}, outcome {r.get('outcome')}); a certification admits none")
    return problems


def level_counts(rows: list[dict]) -> list[dict]:
    """The rows counted as the report's engines count them (reports/engine/aggregate.py `level_counts`):
    (impl, spec, spec_revision, level, outcome, n), the row's own outcome at the row's level."""
    n: dict[tuple, int] = {}
    for r in rows:
        key = (r["implementation"]["name"], r["spec"], r.get("spec_revision"), r.get("level"), r["outcome"])
        n[key] = n.get(key, 0) + 1
    return [dict(zip(("impl", "spec", "spec_revision", "level", "outcome", "n"), (*k, v), strict=True))
            for k, v in n.items()]


def clause_counts(rows: list[dict]) -> list[dict]:
    """Each clause's outcomes in the rows, as the report's matrix cells count them (reports/engine/aggregate.py
    `clause_rows`): the row's clause_outcomes, or for a schema 1 row the row's outcome for every clause."""
    n: dict[tuple, dict[str, int]] = {}
    for r in rows:
        outcomes = r.get("clause_outcomes")
        per_clause = outcomes.items() if isinstance(outcomes, dict) else ((c, r["outcome"]) for c in r.get("clause_ids") or [])
        for cid, o in per_clause:
            got = n.setdefault((r["implementation"]["name"], r["spec"], r.get("spec_revision"), cid), {})
            got[o] = got.get(o, 0) + 1
    return [dict(zip(("impl", "spec", "spec_revision", "clause_id"), k, strict=True), counts=c) for k, c in n.items()]


def spec_verdicts(rows: list[dict], clauses: dict | None = None) -> list[dict]:
    """Per spec revision: the verdict, what it covers, its coverage and the counts per level, by the
    report's own code (reports/views/model.py `spec_verdicts`), so a certificate and the report of its rows
    never disagree. `clauses`: reports/views/clauses.py `load` (this checkout's clause files by default)."""
    clauses = clause_files.load() if clauses is None else clauses
    identities = {r["implementation"]["name"]: r["implementation"] for r in rows}
    failed = failing.of(rows, clauses)
    out = []
    for v in model.spec_verdicts(level_counts(rows), clause_counts(rows), clauses, identities):
        spec, rev = v["spec"], v["spec_revision"] or ""
        entry = {"spec": spec, "spec_revision": rev, "verdict": v["verdict"], "covers": v["covers"],
                 "coverage": v["coverage"], "counts": v["counts"],
                 "rows": sum(sum(c.values()) for c in v["counts"].values()),
                 **failed.get((spec, rev), {"failed_clauses": [], "errors": []})}
        if v["verdict"] == "not-applicable":
            # the reason most of its rows give (the spec's own applies_to; a clause may name another range)
            whys = Counter((r.get("message") or "").splitlines()[0] for r in rows
                           if r["spec"] == spec and (r.get("spec_revision") or "") == rev and r.get("message"))
            entry["why"] = shorten(min(whys, key=lambda w: (-whys[w], w)), 300) if whys else ""
        out.append(entry)
    return out


def declared(rows: list[dict], entries, on: dt.date) -> list[dict]:
    """The vendor's declared deviations, each with the failing rows it accounts for (as the gate matches:
    a fail through its vector id or a clause it fails; an error through an outcome: error entry)."""
    out = []
    for e in entries:
        covered = []
        for r in rows:
            if r["outcome"] not in ("fail", "error"):
                continue
            clauses = list(r.get("clause_ids") or []) if r["outcome"] == "error" else gate.blamed(r)
            if exp_mod.find([e], r["implementation"]["name"], r["vector_id"], clauses, on,
                            outcome=r["outcome"], error_kind=r.get("error_kind")) is not None:
                covered.append(r["vector_id"])
        out.append({"implementation": e.implementation, "vector": e.vector, "clause": e.clause,
                    "outcome": e.outcome, "reason": e.reason, "link": e.link,
                    "expires": e.expires.isoformat() if e.expires else None, "rows": sorted(set(covered))})
    return out


# certify/run.py PROVIDER_SPECS: a broker's certification leaves them out, and says so
NOT_ON_A_BROKER = ("; openmessaging is not certified on a broker: its verdicts belong to OpenMessaging providers "
                   "(a run's report shows the broker's OpenMessaging profile)")


def facts(rows: list[dict], *, scope: list[str], suite_commit: str, made: str, deviation_entries=()) -> dict:
    """The certificate of a certification's rows (check_rows must have found nothing)."""
    first = rows[0]
    impl = first["implementation"]
    prov = impl.get("provenance") or {}
    on = dt.date.fromisoformat(made[:10])
    return {
        "schema": SCHEMA,
        "made": made,
        "implementation": {
            "name": impl["name"], "kind": impl.get("kind"), "role": model.coverage_rule.identity(impl)["role"],
            "version": impl.get("version"),
            "endpoint": prov.get("endpoint"),
            # how the endpoint was given, which a rerun gives again (certify/rerun.py): its query options
            # and the certifier's consent to users made there
            **({"endpoint_options": prov.get("endpoint_options", ""), "allow_users": prov.get("allow_users") == "yes"}
               if prov.get("endpoint") else {}),
            # a container that exited during start and was started once more (provision/containers.py)
            **({"start_attempts": prov["start.attempts"]} if prov.get("start.attempts", "1") != "1" else {}),
            "server": {k.removeprefix("server_"): prov[k] for k in SERVER_FACTS if prov.get(k)},
            # a row through two protocol clients names both ("pika 1.4.4, python-qpid-proton 0.40.0")
            "adapters": sorted({a.strip() for r in rows if r.get("adapter") and r.get("adapter") != "none"
                                for a in r["adapter"].split(",") if a.strip()}),
            # a codec run through its shim (fixtures/codecs/process_codec.py): the command and protocol version
            **({"shim": prov.get("shim"), "protocol_version": prov.get("protocol_version")}
               if impl.get("kind") == "codec" and prov.get("via") == "process" else {}),
        },
        "suite": {"version": first["suite_version"], "commit": suite_commit, "vectors_digest": first["vectors_digest"]},
        "run": {"run_id": first["run_id"], "run_started": first["run_started"], "rows": len(rows),
                "outcomes": {o: n for o in OUTCOME_ORDER if (n := sum(r["outcome"] == o for r in rows))}},
        "counts": counts.of(rows),   # certify/counts.py: failed, errors, and how pytest and junit.xml show them
        "scope": list(scope) or ["every spec"],
        "specs": spec_verdicts(rows),
        "declared_deviations": declared(rows, list(deviation_entries), on),
        "stated_facts": stated.of(rows),   # certify/stated.py
        # which vectors `verify --rerun` must reproduce, and which depend on timing (certify/timing.py)
        "rerun": timing.plan(rows),
    }


# The certificate's verdict over the specs that apply, the worst first (one of reports/rows/outcomes.py VERDICTS).
OVERALL_ORDER = (NOT_CONFORMANT, INCOMPLETE, CONFORMANT_EXCEPT_SHOULD, CONFORMANT)
LIST_IN_LINE = 6   # clause ids named in the overall line; every one is listed under its spec


def applying(f: dict) -> list[dict]:
    """The specs of the certificate that apply to the implementation and have a verdict."""
    return [s for s in f["specs"] if s["verdict"] not in (NOT_APPLICABLE, None)]


def overall(f: dict) -> str:
    """The certificate's verdict: the worst verdict of the specs that apply (OVERALL_ORDER); not-applicable
    when none applies. certify exits 0 only for a verdict in MUST_HELD."""
    verdicts = {s["verdict"] for s in applying(f)}
    return next((v for v in OVERALL_ORDER if v in verdicts), NOT_APPLICABLE)


def holds(f: dict) -> bool:
    """Whether every MUST / MUST NOT clause of every spec that applies was judged and held (certify exits 0)."""
    return overall(f) in MUST_HELD


def _named(ids: list[str]) -> str:
    shown = ", ".join(f"`{i}`" for i in ids[:LIST_IN_LINE])
    return shown + (f" and {len(ids) - LIST_IN_LINE} more" if len(ids) > LIST_IN_LINE else "")


def _failed_ids(specs: list[dict], group: str) -> list[str]:
    return [c["clause_id"] for s in specs for c in s.get("failed_clauses") or [] if group_of(c["level"]) == group]


def overall_line(f: dict) -> str:
    """One line: the verdict, what it is about (implementation, specs), and why, with no alternative in it."""
    impl, specs = f["implementation"], applying(f)
    server = impl["server"]
    who = md_cell(" ".join(str(x) for x in (server.get("product") or impl["name"],
                                            server.get("version") or impl.get("version")) if x))
    who += f" (`{impl['name']}`)"
    on = ", ".join(f"{s['spec']}" + (f" {s['spec_revision']}" if s["spec_revision"] and s["spec_revision"] not in s["spec"]
                                      else "") for s in specs) or "no spec that applies to it"
    scope = "" if f["scope"] == ["every spec"] else f" (certified: --spec {', '.join(f['scope'])})"
    verdict = overall(f)
    must_failed, should_failed = _failed_ids(specs, "MUST"), _failed_ids(specs, "SHOULD")
    unjudged = [c["clause_id"] or "(every clause)" for s in specs for c in s["coverage"]["not_judged"]]
    errors = sum(len(s.get("errors") or []) for s in specs)
    if verdict == NOT_CONFORMANT:
        why = f"{len(must_failed)} MUST / MUST NOT clause(s) failed: {_named(must_failed)}"
        if unjudged:
            why += f"; besides, {len(unjudged)} that apply were not judged ({errors} error row(s))"
    elif verdict == INCOMPLETE:
        why = (f"no MUST / MUST NOT clause failed, but {len(unjudged)} that apply were not judged and held: "
               f"{_named(unjudged)} ({errors} error row(s): the suite could not judge them)")
    elif verdict == CONFORMANT_EXCEPT_SHOULD:
        why = (f"every testable MUST / MUST NOT clause that applies was judged and held; {len(should_failed)} "
               f"SHOULD / SHOULD NOT clause(s) not met: {_named(should_failed)}")
    elif verdict == CONFORMANT:
        why = "every testable MUST / MUST NOT clause that applies was judged and held, and every SHOULD met"
    else:
        why = "no spec certified applies to it"
    return f"**Overall: {verdict.upper().replace('-', ' ')}**: {who} on {md_cell(on)}{md_cell(scope)}: {why}."


def coverage_cell(cov: dict) -> str:
    """"12 / 11 (of 14 testable)": testable MUST clauses that apply / judged and held, or "unknown" without
    the spec's clause file."""
    if cov["status"] != "known":
        return "unknown"
    return f"{cov['applying']} / {cov['judged_and_held']} (of {cov['testable']} testable)"


def _broker_rows(impl: dict) -> list[str]:
    server = impl["server"]
    given = ([f"| endpoint options | {md_cell(impl['endpoint_options'] or 'none')} |",
              f"| users made by vectors | {'allowed (--allow-users)' if impl['allow_users'] else 'not allowed'} |"]
             if "allow_users" in impl else [])
    return [f"| endpoint | {md_cell(impl['endpoint'] or '—')} |", *given,
            f"| product, as the broker said | {md_cell(server.get('product', 'not said'))} |",
            f"| version, as the broker said | {md_cell(server.get('version', impl['version'] or 'not said'))} |",
            f"| platform | {md_cell(server.get('platform', '—'))} |",
            f"| cluster name | {md_cell(server.get('cluster_name', '—'))} |",
            f"| read over | {md_cell(server.get('read_over', '—'))} |"]


def _shim_rows(impl: dict) -> list[str]:
    """A codec certified through its shim: what the shim's handshake said, and the command."""
    return [f"| version, as its shim's handshake said | {md_cell(impl['version'] or 'not said')} |",
            f"| shim | `{md_cell(impl['shim'] or '—')}`, mqconform-process protocol version "
            f"{md_cell(impl.get('protocol_version') or '?')} (docs/codec-protocol.md) |"]


def render(f: dict) -> str:
    impl, suite, run = f["implementation"], f["suite"], f["run"]
    lines = [
        f"# mqconform certificate: {md_cell(impl['name'])}", "",
        overall_line(f), "",
        "## Counts", "",
        *counts.lines(f["counts"]), "",
        "## Implementation", "",
        "| | |", "|---|---|",
        f"| name | {md_cell(impl['name'])} ({md_cell(impl['kind'])}, {md_cell(impl.get('role') or 'product')}) |",
        *(_shim_rows(impl) if "shim" in impl else _broker_rows(impl)),
        *([f"| container starts | {md_cell(impl['start_attempts'])} |"] if impl.get("start_attempts") else []),
        f"| adapters | {md_cell(', '.join(impl['adapters']) or '—')} |",
        *stated.section(f),
        "", "## Suite and run", "",
        "| | |", "|---|---|",
        f"| suite version | {md_cell(suite['version'])} |",
        f"| suite commit | {md_cell(suite['commit'])} |",
        f"| vectors digest | {md_cell(suite['vectors_digest'])} |",
        f"| run | {md_cell(run['run_id'])}, started {md_cell(run['run_started'])} |",
        f"| rows | {run['rows']}: {outcome_counts(run['outcomes'])} |",
        f"| scope | {md_cell(', '.join(f['scope']))}{NOT_ON_A_BROKER if impl.get('kind') == 'broker' else ''} |",
        f"| certificate made | {md_cell(f['made'])} |",
        "| expectations file | none: a certification admits none; every row was expected to pass |",
        "", "## Verdicts per spec", "",
        "Verdicts (docs/verdicts.md): `not-conformant`: a MUST / MUST NOT clause failed; `incomplete`: none "
        "failed, but a testable MUST / MUST NOT clause that applies was not judged and held (an error row, no row); "
        "`conformant-except-should`: every MUST held, a SHOULD / SHOULD NOT was not met; `conformant`: every MUST "
        "held and every SHOULD met; `not-applicable`: the spec does not describe the implementation. The overall "
        "verdict is the worst of the specs that apply. Declared deviations change none of them.", "",
        "| spec | revision | verdict | covers | MUST clauses: apply / judged and held | MUST / MUST NOT | "
        "SHOULD / SHOULD NOT | MAY |", "|---|---|---|---|---|---|---|---|",
    ]
    for s in f["specs"]:
        groups: dict[str, dict[str, int]] = {g: {} for g in GROUPS}
        for level, c in s["counts"].items():
            g = groups[group_of(level)]
            for o, n in c.items():
                g[o] = g.get(o, 0) + n
        lines.append(f"| {md_cell(s['spec'])} | {md_cell(s['spec_revision'])} | **{s['verdict'] or 'no verdict'}** | "
                     f"{md_cell(s['covers'])} | {coverage_cell(s['coverage'])} | {outcome_counts(groups['MUST'])} | "
                     f"{outcome_counts(groups['SHOULD'])} | {outcome_counts(groups['MAY'])} |")
    for s in applying(f):
        if not (s.get("failed_clauses") or s.get("errors") or s["coverage"]["not_judged"]):
            continue
        lines += ["", f"### {md_cell(s['spec'])} {md_cell(s['spec_revision'])}: {s['verdict']}", ""]
        if s.get("failed_clauses"):
            lines += ["Failed clauses, each with its sentence and the rows that decided it:", ""]
        lines += failing.lines(s)
        if s["coverage"]["not_judged"]:
            lines += ["", "MUST / MUST NOT clauses that apply and were not judged and held:", ""]
            lines += [f"- {md_cell(c['clause_id'] or '(every clause)')}: {md_cell(c['why'])}" for c in s["coverage"]["not_judged"]]
    na = [s for s in f["specs"] if s["verdict"] == NOT_APPLICABLE]
    if na:
        lines += ["", "Specs that do not apply (every row not_applicable):", ""]
        lines += [f"- {md_cell(s['spec'])} {md_cell(s['spec_revision'])}: {md_cell(s.get('why', ''))}" for s in na]
    lines += ["", "## Declared deviations", ""]
    if not f["declared_deviations"]:
        lines.append("None declared.")
    else:
        lines += ["Declared by the vendor; listed as declared, they change no verdict.", "",
                  "| implementation | vector / clause | known | reason | bug report | failing rows it accounts for |",
                  "|---|---|---|---|---|---|"]
        for d in f["declared_deviations"]:
            what = d["vector"] if d["vector"] is not None else f"clause {d['clause']}"
            rows = ", ".join(d["rows"]) or "none (not observed in this run)"
            lines.append(f"| {md_cell(d['implementation'])} | {md_cell(what)} | {md_cell(d['outcome'])} | {md_cell(d['reason'])} | "
                         f"{md_cell(d['link'] or '—')} | {md_cell(rows)} |")
    lines += ["", "## How to check this certificate", "",
              "Every file of this folder is in `MANIFEST.sha256`. From a checkout of the suite commit above:", "",
              "    ./mqconform verify THIS_FOLDER", "",
              "recomputes every verdict from `results.jsonl` (the rows), with the rule of `docs/verdicts.md`, and",
              "checks every digest, the suite version and the vectors digest. `report/index.html` shows the rows",
              "clause by clause; `junit.xml` has one test case per row. That proves the bundle whole and",
              "self-consistent, not that its rows came from this broker: `./mqconform verify --rerun THIS_FOLDER`",
              f"runs the vectors again and compares; {f.get('rerun', {}).get('reproducible_vectors', 0)} vector(s) must "
              f"give the same outcome, {len(f.get('rerun', {}).get('timing_dependent', {}))} depend on timing, "
              f"{len(f.get('rerun', {}).get('strict_part', {}))} of them only after a part compared strictly "
              "(certificate.json `rerun`).", ""]
    return "\n".join(lines)
