"""`reports gate`: fail CI on failures that no active expectation covers.

Exit codes (also in --help and docs/reports.md):
  0  every fail / xfail in the latest runs is covered by an active expectation listing that
     deviation, and every error by one saying the vector is known not to be judged there
     (`outcome: error`, docs/verdicts.md); a vector quarantined as flaky (`outcome: flaky`,
     by its id, with the reason) is set aside whatever its rows say, and each such row is
     said (QUARANTINED)
  1  at least one is not covered: a new regression, a vector newly not judged, or an
     expectation that expired
  2  usage or input error: a missing or unreadable results path, a malformed
     expectations file, an invalid record (a line that does not parse other than
     a torn last line, a missing required field, an unknown outcome; named by
     file:line), a record it cannot trust (reports/rows/trust.py: dated in the future or
     before its run, naming a spec, clause or vector the registry does not know, or
     disagreeing with its run's other rows on run metadata; named by file:line), two
     rows of one key (run, vector, implementation, protocol) with different outcomes,
     in any order (reports/rows/conflicts.py; each named by file:line), a run split across
     machines (--shard) with a shard missing (reports/gate/shards.py), or no result records at all
  3  only with --strict: nothing uncovered, but some expectation has expired,
     is stale (every result it matches now passes), or lists a deviation on rows that
     are no longer judged (error or not_applicable: they confirm nothing)

xfail rows count as failures here: the plugin marked them against the
expectations it had at run time, and the gate judges them again against the
files it is given, so that an expectation that expired since still fails the
build. A clause-glob entry covers a failing row only through a clause the row
fails (its clause_outcomes), never through one it merely cites. Plain Python on
purpose: no JVM start-up in the CI gate.
"""
from __future__ import annotations

import datetime as dt
import sys
from dataclasses import dataclass, field

from ..paths import ROOT

try:
    from fixtures.verdict import expectations as exp_mod
except ImportError:  # run from outside the project root: the loader lives beside reports/
    sys.path.insert(0, str(ROOT))
    from fixtures.verdict import expectations as exp_mod

from ..rows.outcomes import FAILING, PASSING
from . import read_plain, shards

EXIT_OK, EXIT_UNCOVERED, EXIT_USAGE, EXIT_STRICT = 0, 1, 2, 3


@dataclass
class GateResult:
    rows: int = 0
    implementations: list[str] = field(default_factory=list)
    covered: list[tuple] = field(default_factory=list)     # (row, expectation)
    uncovered: list[dict] = field(default_factory=list)
    expired: list = field(default_factory=list)            # (expectation, rows it would cover)
    stale: list = field(default_factory=list)              # (expectation, rows it matches)
    unjudged: list = field(default_factory=list)           # (deviation entry, its rows: all error / not_applicable)
    unused: list = field(default_factory=list)             # active, matches no row at all
    quarantined: list[tuple] = field(default_factory=list)  # (row, quarantine entry): a flaky vector set aside
    broader: list[str] = field(default_factory=list)       # entries broader than the rows they cover (warnings)


def gate_warnings(expectations, implementations_in_results) -> list[str]:
    """The warnings about expectations entries that can match nothing: known implementations are the
    catalog's, the codecs' and those in the results; vectors and clauses those of this checkout."""
    from fixtures.plugin.implementations import known_implementations

    vector_ids, clause_ids = exp_mod.known_ids(ROOT / "vectors")
    return exp_mod.problems(expectations, known_implementations(implementations_in_results), vector_ids, clause_ids)


def blamed(row: dict) -> list[str]:
    """The clauses a failing row fails; a schema version 1 row blames every clause it cites."""
    outcomes = row.get("clause_outcomes")
    if outcomes is None:
        return list(row["clause_ids"])
    return [c for c, o in outcomes.items() if o in ("fail", "xfail")]


def evaluate(rows: list[dict], expectations, today: dt.date) -> GateResult:
    res = GateResult(rows=len(rows), implementations=sorted({r["impl"] for r in rows}))
    for row in rows:
        if row["outcome"] not in FAILING:
            continue
        clauses = list(row["clause_ids"]) if row["outcome"] == "error" else blamed(row)
        e = exp_mod.find(expectations, row["impl"], row["vector_id"], clauses, today,
                         outcome=row["outcome"], error_kind=row.get("error_kind"),
                         protocol=row.get("protocol"), version=row.get("version"))
        if e is not None:
            res.covered.append((row, e))
        elif (q := exp_mod.quarantine(expectations, row["impl"], row["vector_id"], today,
                                      protocol=row.get("protocol"), version=row.get("version"))) is not None:
            res.quarantined.append((row, q))
        else:
            res.uncovered.append(row)
    for e in expectations:
        matched = [r for r in rows if e.matches(r["impl"], r["vector_id"], list(r["clause_ids"]),
                                                r.get("protocol"), r.get("version"))]
        if not e.active(today):
            res.expired.append((e, [r for r in matched if r["outcome"] in FAILING]))
        elif not matched:
            res.unused.append(e)
        elif e.outcome == "flaky":
            continue   # a flaky vector passes now and then: neither stale nor unjudged for that
        elif all(r["outcome"] in PASSING for r in matched):
            res.stale.append((e, matched))
        elif e.outcome == "fail" and all(r["outcome"] in ("error", "not_applicable") for r in matched):
            res.unjudged.append((e, matched))
    res.broader = exp_mod.broader(expectations, rows, res.covered)
    return res


def _describe(e) -> str:
    target = f"vector {e.vector!r}" if e.vector is not None else f"clause {e.clause!r}"
    return e.where or f"{e.source}: implementation {e.implementation!r}, {target}"


def report(res: GateResult, out=sys.stdout) -> None:
    for row in res.uncovered:
        msg = (row.get("message") or "").strip().splitlines()
        first = msg[0] if msg else ""
        print(f"UNCOVERED {row['outcome']}: {row['impl']} {row['vector_id']} "
              f"[{', '.join(row['clause_ids'])}] {first}", file=out)
    for e, would in res.expired:
        print(f"EXPIRED {_describe(e)} expired on {e.expires}"
              + (f"; {len(would)} failing result(s) it matched now count" if would else ""), file=out)
    for row, q in res.quarantined:
        print(f"QUARANTINED {row['outcome']}: {row['impl']} {row['vector_id']}: flaky, set aside by {q.where}: "
              f"{q.reason}" + (f" ({q.link})" if q.link else ""), file=out)
    for e, matched in res.stale:
        print(f"STALE {_describe(e)}: all {len(matched)} matching result(s) pass; remove the entry", file=out)
    for e, matched in res.unjudged:
        outcomes = ", ".join(sorted({r["outcome"] for r in matched}))
        print(f"NOT JUDGED {_describe(e)}: lists a deviation, but its {len(matched)} result(s) are {outcomes}, "
              "which confirm nothing; remove the entry or fix what keeps the vector from being judged", file=out)
    print(f"gate: {res.rows} result(s) from the latest run of {len(res.implementations)} implementation(s); "
          f"{len(res.uncovered)} uncovered failure(s), {len(res.covered)} covered, {len(res.quarantined)} quarantined, "
          f"{len(res.expired)} expired, {len(res.stale)} stale and {len(res.unjudged)} not-judged expectation(s)",
          file=out)


def run(results: list[str], expectation_paths: list[str], today: dt.date | None = None,
        strict: bool = False, registry: str | None = None, one_shard: bool = False) -> int:
    from ..rows import trust as trust_mod

    try:
        expectations = exp_mod.load_all(expectation_paths)
        reg = trust_mod.load_registry(registry)
        # A row the gate cannot trust (dated in the future or out of its run, naming what the registry
        # does not know, disagreeing with its run) is an input error like an invalid one: exit 2.
        reading = read_plain.read_latest(results, trust=trust_mod.Trust(reg))
    except (ValueError, OSError) as exc:  # ExpectationsError, InputError, pyarrow's errors
        print(f"reports gate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if reg is None:
        print("reports gate: --registry none: the spec, clause and vector ids of the rows are not checked",
              file=sys.stderr)
    # An invalid or untrusted record could be a failure in disguise: judge nothing rather than pass without it.
    reading.problems.say("reports gate", sys.stderr)
    if reading.problems.errors:
        return EXIT_USAGE
    if not reading.rows:
        print("reports gate: no result records in the inputs; refusing to pass an empty run", file=sys.stderr)
        return EXIT_USAGE
    # A run split across machines is judged whole (reports/gate/shards.py): a shard missing is an input error,
    # unless the rows are said to be one shard judged alone (a shard's own job; it says so).
    if one_shard:
        for line in shards.alone(reading.rows):
            print(f"reports gate: {line}", file=sys.stderr)
    elif missing := shards.problems(reading.rows, reading.shards):
        for line in missing:
            print(f"reports gate: {line}", file=sys.stderr)
        return EXIT_USAGE
    for line in gate_warnings(expectations, {r["impl"] for r in reading.rows}):
        print(f"reports gate: warning: expectations: {line}", file=sys.stderr)
    res = evaluate(reading.rows, expectations, today or dt.date.today())
    for line in res.broader:
        print(f"reports gate: warning: expectations: {line}", file=sys.stderr)
    report(res)
    if res.uncovered:
        return EXIT_UNCOVERED
    if strict and (res.expired or res.stale or res.unjudged):
        return EXIT_STRICT
    return EXIT_OK
