"""From the engines' small aggregates to the report that every renderer reads.

The report is a plain dict, written as-is to compliance.json; its schema is
documented in docs/reports.md and versioned by REPORT_SCHEMA. Verdicts and the
diff are decided here, once, for Spark and for the bench's DuckDB baseline.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from fixtures.verdict.levels import GROUPS, LEVEL_RANK, group_of

from ..rows.outcomes import (
    CONFORMANT,
    CONFORMANT_EXCEPT_SHOULD,
    FAILING,
    INCOMPLETE,
    NOT_APPLICABLE,
    NOT_CONFORMANT,
    NOT_JUDGED,
    OUTCOME_ORDER,
    PASSING,
    SEVERITY,
    VERDICTS,
)
from . import compare_brokers, coverage_rule, faults, profile, spread, versions, witnesses

REPORT_SCHEMA = "mqconform-compliance/1"


@dataclass
class Aggregates:
    """What the engines hand to the model; every list is small."""
    # one per implementation x run: impl, kind, version, run_id, run_started,
    # run_us (epoch microseconds), vectors_digest, suite_version, counts
    runs: list[dict] = field(default_factory=list)
    # one per clause x implementation in the latest run: spec, spec_revision,
    # clause_id, impl, worst, counts, levels, vectors
    cells: list[dict] = field(default_factory=list)
    # latest run: impl, spec, spec_revision, level, outcome, n
    level_counts: list[dict] = field(default_factory=list)
    # latest two runs, vectors whose worst outcome differs: impl, vector_id, before, after
    diff: list[dict] = field(default_factory=list)
    # impl, vector_id, pairs, changes; only vectors with changes > 0
    flaky: list[dict] = field(default_factory=list)
    # latest run, OpenMessaging: impl, header, sources (who set the value the rows checked)
    header_sources: list[dict] = field(default_factory=list)
    # latest run: impl, implementation (one row's `implementation`, role filled in)
    identities: list[dict] = field(default_factory=list)
    # latest run, provider rows' `profile`: broker, protocol, requirement, status, n, and the row that
    # is the evidence for that status (impl, role, vector_id, evidence)
    profile_rows: list[dict] = field(default_factory=list)
    # latest run, rows with a `tally` (fault vectors): impl, kind, role, broker, protocol, vector_id, test_id,
    # outcome, expected_outcome, message, tally (reports/rows/record.py `tally_of`)
    fault_rows: list[dict] = field(default_factory=list)
    # latest run, per clause some row fails (fail, xfail), each implementation of it: spec, spec_revision,
    # clause_id, impl, role, kind, counts, levels, vectors (the rows that fail it); reports/views/spread.py
    clause_failures: list[dict] = field(default_factory=list)
    # latest run, rows with `witnesses` (run again through the second AMQP 1.0 client): impl, kind, role, spec,
    # spec_revision, vector_id, test_id, outcome, clause_ids, witnesses (reports/rows/record.py `witnesses_of`)
    witness_rows: list[dict] = field(default_factory=list)


def latest_two(runs: list[dict]) -> dict[str, list[dict]]:
    """Per implementation name, its runs newest first (ties broken by run_id)."""
    by_impl: dict[str, list[dict]] = {}
    for r in runs:
        by_impl.setdefault(r["impl"], []).append(r)
    return {impl: sorted(rs, key=lambda r: (r["run_us"], r["run_id"]), reverse=True)[:2]
            for impl, rs in by_impl.items()}


def pass_rate(counts: dict[str, int]) -> float | None:
    """(pass + xpass) / every outcome but unsupported and not_applicable.

    error stays in the denominator: a vector that could not be judged did not
    pass. None when nothing was judged.
    """
    judged = sum(n for o, n in counts.items() if o not in NOT_JUDGED)
    if not judged:
        return None
    return sum(counts.get(o, 0) for o in PASSING) / judged


def verdict(by_level: dict[str, dict[str, int]]) -> str:
    """The verdict for one implementation on one spec revision.

    `by_level` maps a level (MUST, MUST NOT, ...) to outcome counts of the
    vectors at that level (a vector's level is the strongest of its clauses).

      not-conformant              a MUST / MUST NOT vector failed, or is a known
                                  deviation (xfail): the expectations file
                                  explains a deviation, it does not excuse it;
      not-applicable              every vector was not_applicable (the spec is
                                  another product's, e.g. RabbitMQ's address
                                  format on Artemis);
      incomplete                  no MUST failed, but one errored, so it might
                                  have; or all MUSTs pass and a SHOULD errored
                                  while none failed; or nothing else was judged;
      conformant-except-should  every MUST passed, a SHOULD / SHOULD NOT failed
                                  or is an xfail;
      conformant                  everything at MUST and SHOULD passed.

    unsupported and not_applicable never lower the verdict: docs/results.md
    reserves unsupported for optional features (MAY, or a content mode the
    implementation does not offer), and leaving out an optional feature is
    conformant. MAY vectors never lower it either; their counts are reported.
    A level outside docs/results.md is taken as MUST, to err on the safe side.
    """
    groups: dict[str, dict[str, int]] = {g: {} for g in GROUPS}
    for level, counts in by_level.items():
        g = groups[group_of(level)]
        for o, n in counts.items():
            g[o] = g.get(o, 0) + n
    must, should = groups["MUST"], groups["SHOULD"]

    def any_of(g, outcomes):
        return any(g.get(o, 0) for o in outcomes)

    if any_of(must, ("fail", "xfail")):
        return NOT_CONFORMANT
    if any_of(must, ("error",)):
        return INCOMPLETE
    if not any(any_of(g, ("pass", "xpass", "fail", "xfail")) for g in groups.values()):
        only_na = all(set(g) <= {"not_applicable"} for g in groups.values()) and any(groups.values())
        return NOT_APPLICABLE if only_na else INCOMPLETE
    if any_of(should, ("fail", "xfail")):
        return CONFORMANT_EXCEPT_SHOULD
    if any_of(should, ("error",)):
        return INCOMPLETE
    return CONFORMANT


# A broker has no verdict on OpenMessaging: the text is implemented by providers (an API over a
# broker); the broker has a profile instead (reports/views/profile.py). Rows of kind broker on this spec
# (runs before schema 3, mqconform's mapping judged as if it were the broker) are shown as rows,
# never as the broker's verdict.
NO_BROKER_VERDICT = frozenset({"openmessaging"})


def covers(ident: dict, spec: str) -> str | None:
    """What a verdict of this implementation on this spec is a statement about, or None when it has
    none: "provider verdict" (an OpenMessaging provider, role product), "reference" (mqconform's own
    code standing in: reference codecs, mqconform-om mappings), "broker verdict", "codec verdict"."""
    if ident.get("kind") == "broker" and spec in NO_BROKER_VERDICT:
        return None
    if ident.get("role") == "reference":
        return "reference"
    if ident.get("kind") == "provider":
        return "provider verdict"
    return f"{ident.get('kind') or 'implementation'} verdict"


# How the report groups implementations wherever it lists them side by side (the verdict grids, the clause
# matrix's columns, summary.md's verdicts): the products (brokers, codecs, providers), the client libraries
# (judged on the client's clauses, docs/verdicts.md), then mqconform's own code standing in (role reference).
GROUP_ORDER = ("product", "client-library", "reference")
CLIENT_LIBRARY = "client-library"   # the kind of a client library (docs/results.md)


def impl_group(ident: dict) -> str:
    """The group of GROUP_ORDER an implementation (a report's `implementations` entry, or a row's
    `implementation`) is listed in: never a client library among brokers or SDKs, never a reference among products."""
    if ident.get("role") == "reference":
        return "reference"
    return "client-library" if ident.get("kind") == CLIENT_LIBRARY else "product"


def spec_verdicts(level_counts, clause_counts=(), clauses: dict | None = None,
                  identities: dict | None = None) -> list[dict]:
    """Per implementation and spec revision: the verdict, what it covers, its coverage and the counts per
    level (outcome -> rows).

    `level_counts` are rows of (impl, spec, spec_revision, level, outcome, n): Spark's and DuckDB's
    aggregate, or certify/certificate.py's count of a bundle's rows. `clause_counts` are rows of (impl,
    spec, spec_revision, clause_id, counts): each clause's outcomes in the latest run (the matrix
    cells, or the certificate's count). `clauses` is reports/views/clauses.py `load`; `identities` maps an
    implementation's name to its row `implementation`. The one place that turns counts into verdicts,
    so that a report and a certificate of the same rows never disagree: the rows' verdict (`verdict`
    below), lowered to `incomplete` unless every testable MUST clause that applies was judged and held
    (reports/views/coverage_rule.py). An entry without a verdict (a broker on OpenMessaging) has
    `verdict` None and says why in `covers`.
    """
    clauses = clauses or {}
    identities = identities or {}
    per_spec: dict[tuple, dict[str, dict[str, int]]] = {}
    for row in level_counts:
        key = (row["impl"], row["spec"], row["spec_revision"])
        lv = per_spec.setdefault(key, {}).setdefault(row["level"] or "MUST", {})
        lv[row["outcome"]] = lv.get(row["outcome"], 0) + row["n"]
    per_clause: dict[tuple, dict[str, dict[str, int]]] = {}
    for c in clause_counts:
        got = per_clause.setdefault((c["impl"], c["spec"], c["spec_revision"]), {}).setdefault(c["clause_id"], {})
        for o, n in c["counts"].items():
            got[o] = got.get(o, 0) + n
    out = []
    for key, by_level in sorted(per_spec.items(), key=lambda kv: tuple(x or "" for x in kv[0])):
        impl, spec, revision = key
        ident = coverage_rule.identity(identities.get(impl) or {"name": impl})
        cov = coverage_rule.coverage(spec, ident, per_clause.get(key, {}), clauses)
        what = covers(ident, spec)
        out.append({
            "implementation": impl, "spec": spec, "spec_revision": revision,
            "verdict": coverage_rule.limit(verdict(by_level), cov) if what else None,
            "covers": what or "no verdict: a broker has an OpenMessaging profile, not a verdict; these rows "
                              "judged mqconform's mapping over it",
            "kind": ident["kind"], "role": ident["role"], "coverage": cov,
            "counts": {lv: dict(sorted(c.items(), key=lambda kv: SEVERITY[kv[0]], reverse=True))
                       for lv, c in sorted(by_level.items(), key=lambda kv: LEVEL_RANK.get(kv[0], -1))}})
    _other_configurations(out, per_clause)
    return out


def _other_configurations(out: list[dict], per_clause: dict) -> None:
    """A broker in several catalog configurations (a target and its variants, `name+variant`): each
    verdict names the others, and where a MUST clause is not_applicable here by its configuration
    (one half of a conditional clause, e.g. amqp_address_v1 permitted or denied), the configurations
    in which that half was judged and how (`coverage.other_configurations`), so a product's
    "conformant" is read with both halves in view."""
    groups: dict[tuple, list[dict]] = {}
    for v in out:
        if v["kind"] == "broker":
            groups.setdefault((v["implementation"].split("+")[0], v["spec"], v["spec_revision"]), []).append(v)
    for (_, spec, revision), members in groups.items():
        if len(members) < 2:
            continue
        for v in members:
            v["configurations"] = sorted(m["implementation"] for m in members if m is not v)
            halves = []
            for cid in v["coverage"].get("not_applicable") or []:
                for m in members:
                    counts = {o: n for o, n in (per_clause.get((m["implementation"], spec, revision), {})
                                               .get(cid) or {}).items() if n and o != "not_applicable"}
                    if m is not v and counts:
                        outcome = "failed" if set(counts) & coverage_rule.BROKEN else \
                            "held" if set(counts) & coverage_rule.HELD else "not judged"
                        halves.append({"clause_id": cid, "implementation": m["implementation"], "outcome": outcome})
            v["coverage"]["other_configurations"] = halves


def badge_name(impl: str, spec: str) -> str:
    """File name of a badge: <impl>--<spec>.svg with anything unsafe replaced by `_`."""
    def clean(s: str) -> str:
        s = re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("._")
        return s or "_"
    return f"{clean(impl)}--{clean(spec)}.svg"



def build_report(agg: Aggregates, clauses: dict | None = None, generated: str | None = None,
                 requirements: list[dict] | None = None, measurements: dict | None = None) -> dict:
    """The report; `requirements` are the OpenMessaging profile's (reports/views/profile.py `load_requirements`),
    `measurements` the transit and cross-protocol tables beside the results (reports/views/measurements.py `load`;
    None: not measured, as an empty one)."""
    clauses = clauses or {}
    newest = latest_two(agg.runs)
    latest = {impl: rs[0] for impl, rs in newest.items()}
    impl_names = sorted(latest)

    roles = {i["impl"]: coverage_rule.identity(i["implementation"])["role"] for i in agg.identities}
    implementations = [
        {"name": impl, "kind": r["kind"], "role": roles.get(impl) or coverage_rule.identity({"name": impl})["role"],
         "version": r["version"], "run_id": r["run_id"],
         "run_started": r["run_started"], "suite_version": r["suite_version"],
         "vectors_digest": r["vectors_digest"], "counts": r["counts"], "pass_rate": pass_rate(r["counts"])}
        for impl, r in sorted(latest.items())
    ]

    # Verdicts and per-level pass rates, from the latest run of each implementation.
    per_group: dict[str, dict[str, dict[str, int]]] = {}
    for row in agg.level_counts:
        g = per_group.setdefault(row["impl"], {}).setdefault(group_of(row["level"]), {})
        g[row["outcome"]] = g.get(row["outcome"], 0) + row["n"]
    identities = {i["impl"]: i["implementation"] for i in agg.identities}
    judged = spec_verdicts(agg.level_counts, agg.cells, clauses, identities)
    # A badge is a product's: mqconform's own code standing in (role reference) gets none.
    verdicts = [{**v, "badge": (None if (identities.get(v["implementation"]) or {}).get("role") == "reference"
                                else f"badges/{badge_name(v['implementation'], v['spec'])}")}
                for v in judged if v["verdict"] is not None]
    without_verdict = [v for v in judged if v["verdict"] is None]
    level_pass_rates = {impl: {g: pass_rate(c) for g, c in groups.items()}
                        for impl, groups in sorted(per_group.items())}

    # The matrix: one row per clause, one cell per implementation.
    rows: dict[tuple, dict] = {}
    for c in agg.cells:
        key = (c["spec"], c["spec_revision"], c["clause_id"])
        clause = clauses.get(c["clause_id"], {})
        row = rows.setdefault(key, {
            "spec": c["spec"], "spec_revision": c["spec_revision"], "clause_id": c["clause_id"],
            # The clause file knows the clause's own level; without it the
            # strongest level of the vectors that check it stands in.
            "level": clause.get("level"), "quote": clause.get("quote"), "cells": {},
            # a level the registry read from a sentence with no RFC 2119 keyword: the report says so
            "no_keyword": clause.get("keyword") == "none"})
        if not clause.get("level"):
            levels = sorted(set(c["levels"]) | ({row["level"]} if row["level"] else set()),
                            key=lambda lv: LEVEL_RANK.get(lv, 99))
            row["level"] = levels[0] if levels else None
        vectors = sorted(c["vectors"], key=lambda v: (v["vector_id"] or "", v["test_id"] or ""))
        row["cells"][c["impl"]] = {"worst": c["worst"], "counts": c["counts"], "vectors": vectors}
    matrix = [rows[k] for k in sorted(rows, key=lambda k: tuple(x or "" for x in k))]

    history = []
    for impl in impl_names:
        runs = sorted((r for r in agg.runs if r["impl"] == impl), key=lambda r: (r["run_us"], r["run_id"]))
        history.append({"implementation": impl, "runs": [
            {"run_id": r["run_id"], "run_started": r["run_started"], "version": r["version"],
             "vectors_digest": r["vectors_digest"], "suite_version": r["suite_version"],
             "total": sum(r["counts"].values()), "counts": r["counts"], "pass_rate": pass_rate(r["counts"])}
            for r in runs]})

    diff = []
    for impl in impl_names:
        rs = newest[impl]
        if len(rs) < 2:
            continue
        entry = {"implementation": impl, "from_run": rs[1]["run_id"], "to_run": rs[0]["run_id"],
                 "new_failures": [], "fixed": [], "changed": []}
        for d in sorted((d for d in agg.diff if d["impl"] == impl), key=lambda d: d["vector_id"]):
            item = {"vector_id": d["vector_id"], "before": d["before"], "after": d["after"]}
            if d["after"] in FAILING and d["before"] not in FAILING:
                entry["new_failures"].append(item)
            elif d["before"] in FAILING and d["after"] in PASSING:
                entry["fixed"].append(item)
            else:
                entry["changed"].append(item)
        diff.append(entry)

    flaky = sorted(({"implementation": f["impl"], "vector_id": f["vector_id"], "changes": f["changes"],
                     "pairs": f["pairs"], "score": f["changes"] / f["pairs"]} for f in agg.flaky),
                   key=lambda f: (-f["score"], f["implementation"], f["vector_id"]))

    measured = {"transit": list((measurements or {}).get("transit") or []),
                "cross_protocol": list((measurements or {}).get("cross_protocol") or [])}
    report = {
        "schema": REPORT_SCHEMA,
        "generated": generated or dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        "outcome_order": list(OUTCOME_ORDER),
        "verdict_values": list(VERDICTS),
        "totals": {"runs": len(agg.runs), "records": sum(sum(r["counts"].values()) for r in agg.runs),
                   "implementations": len(impl_names)},
        "implementations": implementations,
        "verdicts": verdicts,
        "without_verdict": without_verdict,
        "broker_profiles": profile.broker_profiles(agg.profile_rows, requirements),
        "faults": faults.faults_view(agg.fault_rows),
        "two_clients": witnesses.view(agg.witness_rows),
        "measurements": measured,
        "level_pass_rates": level_pass_rates,
        "matrix": matrix,
        "across_versions": versions.across_versions(agg.cells, agg.identities, clauses),
        "spread": spread.views(agg.clause_failures, clauses, covers),
        "history": history,
        "diff": diff,
        "flaky": flaky,
        "header_support": header_support(agg.header_sources),
    }
    # Compare brokers reads the views above (never the rows again); placed after the verdicts in the file.
    view = compare_brokers.view(report, agg.identities, measured)
    keys = list(report)
    at = keys.index("without_verdict") + 1
    return {**{k: report[k] for k in keys[:at]}, "compare_brokers": view, **{k: report[k] for k in keys[at:]}}


def header_support(rows: list[dict]) -> list[dict]:
    """OpenMessaging headers x implementations: who set the values the latest run checked
    (docs/verdicts.md, "Who set each value"): broker, client-library, mapping, consumer-context, nobody."""
    by_header: dict[str, dict[str, list[str]]] = {}
    for r in rows:
        by_header.setdefault(r["header"], {})[r["impl"]] = sorted(r["sources"])
    return [{"header": h, "implementations": dict(sorted(impls.items()))} for h, impls in sorted(by_header.items())]
