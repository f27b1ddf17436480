"""Across versions (docs/reports.md): per product run in two or more versions, the clauses whose outcome
differs between its versions, each cell with the row behind it. Plain Python over the matrix cells both
engines aggregate (reports/engine/aggregate.py `cells`, reports/baseline/baseline_duckdb.py) and the implementations'
identities: no second pass over the rows.

The rules:
- an implementation belongs to a product and a column through its provenance: a broker's `product`,
  `version` and `variant`; a provider's `broker_product`, `broker_version` and `broker_variant` (the
  provider over a broker says what that broker did). Anything else (codecs) has no product here;
- a column is one version, or one variant (a configuration) of a version, never merged with it; a
  variant column names the configuration entries its provenance has and the plain version's has not;
- a lane is what ran the vectors inside a column: the broker itself, or one provider over it (its name
  without `@broker` and without its own version, so that a product's provider of each version shares a lane);
- a line is one vector of one clause in one lane over one protocol; its cell in a column is the
  clause's own outcome in that vector's row (the worst, when a vector gave several rows there);
- a line is listed when two or more columns have a cell and their outcomes differ in class
  (reports/rows/outcomes.py CLASS_OF: fail and xfail, pass and xpass are one behaviour, as for flakiness);
  a column without a cell shows "not run" and takes no part; nor does a column where every row of the
  line's spec revision (in that lane) was not_applicable: the spec is another version's (RabbitMQ's 4.0
  address format on 3.10), said once per product (`not_applicable`), its cells shown with `compared` false;
- only products with two or more versions are shown (a variant alone is no other version).
"""
from __future__ import annotations

import re

from fixtures.verdict.levels import LEVEL_RANK
from fixtures.verdict.versionrange import release

from ..rows.outcomes import CLASS_OF, SEVERITY

# how provenance joins a target's configuration deviations, and what it says for none
# (fixtures/provision/containers.py, `config.deviations`)
DEVIATION_SEP, NO_DEVIATION = " | ", "none"


def column_of(ident: dict) -> dict | None:
    """{product, version, variant, lane, deviations} of an implementation's identity, or None."""
    prov = ident.get("provenance") or {}
    name = ident.get("name") or ""
    if prov.get("product") and ident.get("kind") == "broker":
        product, version = prov["product"], prov.get("version") or ident.get("version")
        variant, lane, dev = prov.get("variant") or "", "", prov.get("config.deviations")
    elif prov.get("broker_product") and ident.get("kind") == "provider":
        product, version = prov["broker_product"], prov.get("broker_version")
        variant, dev = prov.get("broker_variant") or "", prov.get("broker_config.deviations")
        lane = name.split("@", 1)[0]
        own = ident.get("version")
        if own and lane.endswith(f"-{own}"):
            lane = lane[: -len(own) - 1]
    else:
        return None
    if not version:
        return None
    deviations = [d.strip() for d in (dev or "").split(DEVIATION_SEP) if d.strip() and d.strip() != NO_DEVIATION]
    return {"product": product, "version": version, "variant": variant, "lane": lane, "deviations": deviations}


def _order(col: tuple[str, str]) -> tuple:
    version, variant = col
    return (release(version) is None, release(version) or (), version, variant != "", variant)


def label(version: str, variant: str) -> str:
    return f"{version} {variant}" if variant else version


def _cell(impl: str, v: dict) -> dict:
    return {"outcome": v.get("clause_outcome") or v["outcome"], "row_outcome": v["outcome"],
            "implementation": impl, "test_id": v.get("test_id"), "expected_outcome": v.get("expected_outcome"),
            "message": v.get("message") or "", "failed_step": v.get("failed_step"),
            "error_kind": v.get("error_kind"), "notes": list(v.get("notes") or [])}


def _worse(a: dict | None, b: dict) -> dict:
    """The cell that stands for a vector with several rows in one column: the worst, then the first test id."""
    if a is None:
        return b
    ka = (-SEVERITY.get(a["outcome"], 0), a["test_id"] or "", a["implementation"])
    kb = (-SEVERITY.get(b["outcome"], 0), b["test_id"] or "", b["implementation"])
    return a if ka <= kb else b


def across_versions(cells: list[dict], identities: list[dict], clauses: dict | None = None) -> list[dict]:
    """Per product with two or more versions: {product, columns, lines, compared}, products by name.

    `cells` are the matrix cells of the aggregates (spec, spec_revision, clause_id, impl, vectors);
    `identities` are {impl, implementation}. A column: {key, version, variant, label, configuration,
    implementations}. A line: {spec, spec_revision, clause_id, level, lane, vector_id, protocol, cells:
    column key -> {outcome, row_outcome, implementation, test_id, expected_outcome, message, failed_step,
    error_kind, notes, evidence, compared}}. `compared`: the lines two or more columns ran, differing or not;
    `not_applicable`: {spec, spec_revision, lane, columns} whose every row of that spec was not_applicable.
    """
    clauses = clauses or {}
    where = {}
    for i in identities:
        col = column_of({"name": i["impl"], **(i.get("implementation") or {})})
        if col is not None:
            where[i["impl"]] = col
    products: dict[str, dict] = {}
    for impl, col in where.items():
        p = products.setdefault(col["product"], {"columns": {}, "lines": {}})
        c = p["columns"].setdefault((col["version"], col["variant"]), {"implementations": set(), "deviations": set()})
        c["implementations"].add(impl)
        c["deviations"].update(col["deviations"])
    for cell in cells:
        col = where.get(cell["impl"])
        if col is None:
            continue
        lines = products[col["product"]]["lines"]
        ckey = label(col["version"], col["variant"])
        for v in cell["vectors"]:
            key = (cell["spec"], cell["spec_revision"], cell["clause_id"], col["lane"], v["vector_id"] or "",
                   v.get("protocol") or "")
            line = lines.setdefault(key, {"levels": set(), "cells": {}})
            if v.get("level"):
                line["levels"].add(v["level"])
            line["cells"][ckey] = _worse(line["cells"].get(ckey), _cell(cell["impl"], v))
            line["cells"][ckey]["evidence"] = evidence(line["cells"][ckey], v["vector_id"])
    out = []
    for product, p in sorted(products.items()):
        if len({version for version, _ in p["columns"]}) < 2:
            continue
        columns = []
        for version, variant in sorted(p["columns"], key=_order):
            c = p["columns"][(version, variant)]
            base = p["columns"].get((version, ""))
            extra = sorted(c["deviations"] - base["deviations"]) if variant and base else []
            columns.append({"key": label(version, variant), "version": version, "variant": variant,
                            "label": label(version, variant),
                            "configuration": extra if variant else [],
                            "implementations": sorted(c["implementations"])})
        # (spec, revision, lane) -> columns where every row of it was not_applicable: the spec is not theirs
        outcomes: dict[tuple, dict[str, set]] = {}
        for (spec, revision, _, lane, _, _), line in p["lines"].items():
            for ckey, x in line["cells"].items():
                outcomes.setdefault((spec, revision, lane), {}).setdefault(ckey, set()).add(x["outcome"])
        not_theirs = {k: {c for c, os in by.items() if os == {"not_applicable"}} for k, by in outcomes.items()}
        listed, compared = [], 0
        for key in sorted(p["lines"], key=_text_key):
            line = p["lines"][key]
            skip = not_theirs.get((key[0], key[1], key[3]), set())
            for c, x in line["cells"].items():
                x["compared"] = c not in skip
            judged = [x for x in line["cells"].values() if x["compared"]]
            if len(judged) < 2:
                continue
            compared += 1
            if len({CLASS_OF.get(x["outcome"], x["outcome"]) for x in judged}) < 2:
                continue
            spec, revision, clause_id, lane, vector_id, protocol = key
            clause = clauses.get(clause_id) or {}
            listed.append({"spec": spec, "spec_revision": revision, "clause_id": clause_id,
                           "level": clause.get("level") or _strongest(line["levels"]), "lane": lane,
                           "vector_id": vector_id, "protocol": protocol or None,
                           "cells": {c["key"]: line["cells"][c["key"]] for c in columns if c["key"] in line["cells"]}})
        order = [c["key"] for c in columns]
        whole = [{"spec": spec, "spec_revision": revision, "lane": lane, "columns": [c for c in order if c in cols]}
                 for (spec, revision, lane), cols in sorted(not_theirs.items(), key=lambda kv: _text_key(kv[0]))
                 if cols and cols != set(outcomes[(spec, revision, lane)])]
        out.append({"product": product, "columns": columns, "lines": listed, "compared": compared,
                    "not_applicable": whole})
    return out


def _text_key(key: tuple) -> tuple:
    return tuple(x or "" for x in key)


def _strongest(levels: set[str]) -> str | None:
    return min(levels, key=lambda lv: (LEVEL_RANK.get(lv, 99), lv)) if levels else None


# A clause's quote in a row's message: `ce-amqp/1.4/json-format (MUST): "..."` (fixtures/verdict/outcomes.py)
_QUOTE_LINE = re.compile(r"^[\w.@-]+(?:/[\w.@-]+)+ \([A-Z ]+\): ")


def evidence(cell: dict, vector_id: str | None = None) -> str:
    """A cell's evidence in one line: the row's message without the lines that restate the vector and
    the clause (what remains is what was observed, or why the vector did not apply), else its notes (what
    was observed), else the step that decided it."""
    lines = [ln for ln in (cell.get("message") or "").splitlines() if ln.strip()]
    head = f"{vector_id}:" if vector_id else None
    detail = [ln for i, ln in enumerate(lines)
              if not (i == 0 and head and head in ln and len(lines) > 1) and not _QUOTE_LINE.match(ln)]
    text = " ".join(" ".join(detail).split())
    if not text:
        text = "; ".join(" ".join(n.split()) for n in cell.get("notes") or [])
    if not text and (cell.get("failed_step") or cell.get("error_kind")):
        step = cell.get("failed_step") or {}
        text = " ".join(str(x) for x in ("step", step.get("index"), step.get("action"), cell.get("error_kind")) if x)
    return text
