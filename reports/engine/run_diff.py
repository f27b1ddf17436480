"""`python -m reports diff A B`: what changed between two runs a user names, read from a build's store.

The rules:
- A and B name runs of STORE/records: a run id (or a prefix of one, at least MIN_PREFIX characters, that
  only one run has), or a date YYYY-MM-DD, which picks the run that started that day (UTC, the store's
  `date`). A date with two or more runs, or a prefix two runs share, is an error listing the candidates;
  an id or a date no run has is an error listing the known runs (newest first). A and B the same run is
  an error too;
- the runs are compared for the implementations both ran (the others are named, not compared), per
  implementation, spec and spec revision, clause by clause: a clause's outcome in a run is the worst of
  its own outcomes in that implementation's rows (reports/engine/aggregate.py `clause_rows`, as the matrix);
  a clause whose outcome differs, or that only one run judged, is a change;
- a change carries the rows behind it: the rows of that clause, paired by vector id and test id, whose
  clause outcome differs between the runs (or that one run has and the other has not), each side with
  its evidence: the vector id, the clause's and the row's outcome, the expected outcome, the step that
  decided it, the error kind and the message.
The comparison is DataFrame expressions over the two runs' date partitions of STORE/records; what comes
back to the driver is the changed rows.
"""
from __future__ import annotations

import datetime as dt
import json
import re
import sys

from ..render.markdown import code_cell, decided_by, md_cell
from ..rows.outcomes import BY_CLAUSE_RANK, CLAUSE_RANK, UNJUDGED_CLAUSE

MIN_PREFIX = 4        # characters of a run id prefix
SHOWN_RUNS = 20       # known runs an error lists, newest first
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
EVIDENCE = ("vector_id", "test_id", "clause_outcome", "outcome", "expected_outcome", "failed_step", "error_kind",
            "message")


class DiffError(ValueError):
    """A run that cannot be named (unknown, ambiguous), or a store that cannot be read: exit 2."""


# ---- which runs --------------------------------------------------------------------------------------

def known_runs(rows: list[dict]) -> list[dict]:
    """Runs, newest first, from rows of (impl, run_id, run_started, run_us, date): one per run id with its
    start, its date and the implementations it ran."""
    runs: dict[str, dict] = {}
    for r in rows:
        run = runs.setdefault(r["run_id"], {"run_id": r["run_id"], "run_started": r["run_started"],
                                            "run_us": r["run_us"], "date": str(r["date"]), "implementations": []})
        if (r["run_us"], r["run_started"]) < (run["run_us"], run["run_started"]):
            run.update(run_started=r["run_started"], run_us=r["run_us"], date=str(r["date"]))
        run["implementations"].append(r["impl"])
    for run in runs.values():
        run["implementations"] = sorted(set(run["implementations"]))
    return sorted(runs.values(), key=lambda r: (r["run_us"] or 0, r["run_id"]), reverse=True)


def listing(runs: list[dict], limit: int = SHOWN_RUNS) -> str:
    """Runs as lines: id, start, implementations; at most `limit`, then how many more."""
    lines = [f"  {r['run_id']}  {r['run_started']}  {', '.join(r['implementations'])}" for r in runs[:limit]]
    if len(runs) > limit:
        lines.append(f"  … and {len(runs) - limit} more")
    return "\n".join(lines)


def resolve(text: str, runs: list[dict]) -> dict:
    """The run `text` names (a run id, a unique prefix of one, or a date), else DiffError saying why."""
    text = text.strip()
    if DATE.fullmatch(text):
        try:
            dt.date.fromisoformat(text)
        except ValueError:
            raise DiffError(f"{text!r} is not a date (YYYY-MM-DD)") from None
        that_day = [r for r in runs if r["date"] == text]
        if len(that_day) == 1:
            return that_day[0]
        if that_day:
            raise DiffError(f"{len(that_day)} runs started on {text}; name one by its run id:\n{listing(that_day)}")
        raise DiffError(f"no run started on {text} (UTC); the store's runs, newest first:\n{listing(runs)}")
    exact = [r for r in runs if r["run_id"] == text]
    if exact:
        return exact[0]
    prefixed = [r for r in runs if len(text) >= MIN_PREFIX and r["run_id"].startswith(text)]
    if len(prefixed) == 1:
        return prefixed[0]
    if prefixed:
        raise DiffError(f"{len(prefixed)} runs have ids starting with {text!r}; name one in full:\n{listing(prefixed)}")
    return _unknown(text, runs)


def _unknown(text: str, runs: list[dict]):
    short = f" (a prefix needs {MIN_PREFIX} characters or more)" if len(text) < MIN_PREFIX else ""
    raise DiffError(f"no run {text!r} in the store{short}; its runs, newest first:\n{listing(runs)}")


# ---- what changed (Spark) ----------------------------------------------------------------------------

def run_rows(spark, store: str) -> list[dict]:
    """(impl, run_id, run_started, run_us, date) of every run of the store: STORE/runs when it reflects the
    records' current version, else the records themselves."""
    from pyspark.sql import functions as F

    from . import store as S

    records = S.path(store, S.RECORDS)
    if S.state_version(spark, store, S.RUNS) == S.version(spark, records):
        df = S.read_state(spark, store, S.RUNS).select("impl", "run_id", "run_started", "run_us", "date")
    else:
        df = (S.read_records(spark, store)
              .select(F.col("implementation.name").alias("impl"), "run_id", "run_started",
                      F.unix_micros(F.try_to_timestamp("run_started")).alias("run_us"), S.PARTITION)
              .distinct())
    return [r.asDict() for r in df.collect()]


def clause_changes(d, a: str, b: str) -> list[dict]:
    """The changed rows of the clauses that changed from run `a` to run `b`, over projected records `d`
    (reports/engine/aggregate.py `project`) of both runs: per (impl, spec, spec_revision, clause_id, vector_id,
    test_id), the clause's outcome in each run (`before`, `after`, None where it has no row) and the row's
    evidence in each (`a`, `b`)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    from .aggregate import clause_rows, mapped

    side = F.when(F.col("run_id") == a, 0).otherwise(1)
    both = (d.groupBy("impl").agg(F.countDistinct("run_id").alias("n")).where("n = 2").select("impl"))
    key = ["impl", "spec", "spec_revision", "clause_id"]
    w = Window.partitionBy(*key)
    rows = (clause_rows(d.join(F.broadcast(both), "impl", "left_semi"))
            .select(*key, "vector_id", "test_id", side.alias("side"),
                    mapped(F.col("clause_outcome"), CLAUSE_RANK).alias("rank"), F.struct(*EVIDENCE).alias("ev")))
    before = F.max(F.when(F.col("side") == 0, F.col("rank"))).over(w)
    after = F.max(F.when(F.col("side") == 1, F.col("rank"))).over(w)
    unjudged = [CLAUSE_RANK[o] for o in UNJUDGED_CLAUSE]

    def judged(c):
        return c.isNotNull() & ~c.isin(*unjudged)
    changed = (rows.select("*", before.alias("before"), after.alias("after"))
               .where(~F.col("before").eqNullSafe(F.col("after")) & (judged(F.col("before")) | judged(F.col("after")))))
    pairs = (changed.groupBy(*key, "vector_id", "test_id")
             .agg(F.first("before").alias("before"), F.first("after").alias("after"),
                  F.first(F.when(F.col("side") == 0, F.col("ev")), ignorenulls=True).alias("a"),
                  F.first(F.when(F.col("side") == 1, F.col("ev")), ignorenulls=True).alias("b"))
             .where(~F.col("a.clause_outcome").eqNullSafe(F.col("b.clause_outcome"))))
    out = []
    for r in pairs.collect():
        row = r.asDict(recursive=True)
        row["before"], row["after"] = BY_CLAUSE_RANK.get(row["before"]), BY_CLAUSE_RANK.get(row["after"])
        out.append(row)
    return out


def implementations(d) -> dict[str, list[str]]:
    """run id -> the implementations with rows in it, over projected records of the two runs."""
    got: dict[str, list[str]] = {}
    for r in d.select("run_id", "impl").distinct().collect():
        got.setdefault(r["run_id"], []).append(r["impl"])
    return {k: sorted(v) for k, v in got.items()}


# ---- the result --------------------------------------------------------------------------------------

def _evidence(ev: dict | None) -> dict | None:
    if ev is None:
        return None
    out = {k: ev.get(k) for k in EVIDENCE}
    out["message"] = out["message"] or ""
    return out


def result(run_a: dict, run_b: dict, impls: dict[str, list[str]], rows: list[dict]) -> dict:
    """The diff as plain data (what --json prints): the two runs, the implementations only one ran, and per
    implementation, spec and revision the changed clauses with their changed rows, sorted by name."""
    a_impls, b_impls = set(impls.get(run_a["run_id"], [])), set(impls.get(run_b["run_id"], []))
    groups: dict[tuple, dict[str, dict]] = {}
    for r in rows:
        clauses = groups.setdefault((r["impl"], r["spec"], r["spec_revision"]), {})
        c = clauses.setdefault(r["clause_id"], {"clause_id": r["clause_id"], "before": r["before"],
                                                "after": r["after"], "rows": []})
        c["rows"].append({"vector_id": r["vector_id"], "test_id": r["test_id"],
                          "before": _evidence(r["a"]), "after": _evidence(r["b"])})
    changes = []
    for (impl, spec, revision), clauses in sorted(groups.items(), key=lambda kv: tuple(x or "" for x in kv[0])):
        cs = [clauses[k] for k in sorted(clauses)]
        for c in cs:
            c["rows"].sort(key=lambda x: (x["vector_id"] or "", x["test_id"] or ""))
        changes.append({"implementation": impl, "spec": spec, "spec_revision": revision, "clauses": cs})

    def run_of(run):
        return {"run_id": run["run_id"], "run_started": run["run_started"], "implementations": run["implementations"]}

    return {"from": run_of(run_a), "to": run_of(run_b), "compared": sorted(a_impls & b_impls),
            "only_in_from": sorted(a_impls - b_impls), "only_in_to": sorted(b_impls - a_impls), "changes": changes}


def _side(ev: dict | None) -> str:

    if ev is None:
        return "no row"
    how = decided_by(ev)
    row = f" (row {ev['outcome']}" + (f", expected {ev['expected_outcome']}" if ev.get("expected_outcome") else "") + ")"
    text = f"**{md_cell(ev['clause_outcome'])}**{md_cell(row)}" + (f", {md_cell(how)}" if how else "")
    msg = " ".join(ev["message"].split())
    return text + (f": {md_cell(msg)}" if msg else "")


def markdown(res: dict) -> str:
    """The diff as Markdown: a heading per implementation and spec, a line per changed clause, and under
    it each changed row, before and after."""

    a, b = res["from"], res["to"]
    n = sum(len(g["clauses"]) for g in res["changes"])
    lines = [f"# Run {a['run_id']} → {b['run_id']}", "",
             f"From run `{a['run_id']}` (started {a['run_started']}) to run `{b['run_id']}` (started "
             f"{b['run_started']}): {n} clause(s) changed in {len(res['compared'])} implementation(s) both ran."]
    for key, which in (("only_in_from", "the first"), ("only_in_to", "the second")):
        if res[key]:
            lines.append(f"Only in {which} run, not compared: {md_cell(', '.join(res[key]))}.")
    if not res["compared"]:
        lines += ["", "No implementation ran in both runs: nothing to compare."]
    elif not res["changes"]:
        lines += ["", "No clause changed."]
    for g in res["changes"]:
        lines += ["", f"## {md_cell(g['implementation'])}: {md_cell(g['spec'])} {md_cell(g['spec_revision'] or '')}", ""]
        for c in g["clauses"]:
            lines.append(f"- **{md_cell(c['clause_id'])}**: {c['before'] or 'not judged'} → {c['after'] or 'not judged'}")
            for r in c["rows"]:
                lines += [f"  - {md_cell(r['vector_id'])} {code_cell(r['test_id'])}",
                          f"    - before: {_side(r['before'])}", f"    - after: {_side(r['after'])}"]
    return "\n".join(lines) + "\n"


def run(a: str, b: str, store: str, as_json: bool = False, master: str | None = None, conf: dict | None = None,
        spark=None, out=None) -> int:
    """The command: 0 the diff was printed; 2 a run that cannot be named, the same run twice, no store;
    1 Spark or the cluster failed."""
    out = out or sys.stdout
    from pyspark.sql import functions as F

    from ..spark import session
    from . import aggregate as A
    from . import store as S
    from .build import store_location

    where = store_location("", store)
    try:
        spark = spark or session.start(master, conf or {})
        session.wait_for_executors(spark)
    except session.ClusterError as exc:
        print(f"reports diff: {exc}", file=sys.stderr)
        return 1
    try:
        if not S.is_table(spark, S.path(where, S.RECORDS)):
            raise DiffError(f"no store at {where} (no Delta table {S.path(where, S.RECORDS)}): give --store the "
                            "folder `reports build` keeps its store in (OUT/store, or its --store)")
        runs = known_runs(run_rows(spark, where))
        run_a, run_b = resolve(a, runs), resolve(b, runs)
        if run_a["run_id"] == run_b["run_id"]:
            raise DiffError(f"{a!r} and {b!r} name the same run, {run_a['run_id']}")
    except DiffError as exc:
        print(f"reports diff: {exc}", file=sys.stderr)
        return 2
    ids, dates = [run_a["run_id"], run_b["run_id"]], sorted({run_a["date"], run_b["date"]})
    d = A.project(S.read_records(spark, where).where(F.col(S.PARTITION).isin(*dates) & F.col("run_id").isin(*ids))).cache()
    try:
        impls, rows = A.side_by_side(spark, lambda: implementations(d), lambda: clause_changes(d, *ids))
    finally:
        d.unpersist()
    res = result(run_a, run_b, impls, rows)
    out.write(json.dumps(res, indent=2, sort_keys=False) + "\n" if as_json else markdown(res))
    return 0
