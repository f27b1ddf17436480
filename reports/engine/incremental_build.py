"""Incremental builds: bring the store's state tables up to a version of its records, and take
the report's aggregates from what they then hold.

The cost of a build that adds one run follows that run and the latest runs of each
implementation, not the history: run counts and flakiness fold in only the records
inserted since the version their tables reflect (reports/engine/store.py), and the matrix,
level counts and diff read only the date partitions of the two latest runs of each
implementation. A table that cannot be folded (missing, a replaced version in between, a
change feed gone) is rebuilt from all records, and so is the flakiness of an
implementation that got a run older than its latest one.

On a build of one run most of Spark's time is the fixed cost of each job, so the work goes
side by side, in three threads:
  * runs: the folded run counts (cached), committed to STORE/runs;
  * flaky: the folded flakiness state (cached), committed to STORE/flaky;
  * the latest runs' aggregates, which start once the folded run counts are known: they
    are the rows STORE/runs gets, so nothing is read back.
Rules kept: the change feed is read once per version a table is at (and cached); each table still changes
by one commit naming the records version it reflects; `build` returns only after both
commits, so a report never shows what was not committed.
"""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from reports.engine import aggregate as A
from reports.engine import store as S
from reports.views.model import Aggregates


def build(spark: SparkSession, store: str, version: int,
          step: Callable[[str], None] = lambda name: None) -> Aggregates:
    """Brings STORE/runs and STORE/flaky to `version` of the records and returns the report's
    aggregates at it. `step("after-runs")` is called once STORE/runs is committed (a failpoint)."""
    had = {t: S.state_version(spark, store, t) for t in (S.RUNS, S.FLAKY)}
    feeds = {v: S.inserted_since(spark, store, v, version) if v is not None and v < version else None
             for v in set(had.values()) if v != version}
    feeds = {v: f.cache() if f is not None else None for v, f in feeds.items()}   # read by both folds

    def commit_flaky() -> list[dict]:
        if had[S.FLAKY] == version:
            return A.flaky_rows(S.read_state(spark, store, S.FLAKY))
        state = flaky_state(spark, store, version, feeds[had[S.FLAKY]]).cache()
        try:
            rows = A.flaky_rows(state)
            S.write_state(state, store, S.FLAKY, version)
            return rows
        finally:
            state.unpersist()

    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="store-state") as pool:
        flaky = pool.submit(A.in_job_group(spark, commit_flaky))
        runs_done = None
        if had[S.RUNS] == version:
            counts = S.read_state(spark, store, S.RUNS).cache()
            step("after-runs")
        else:
            counts = run_counts(spark, store, version, feeds[had[S.RUNS]]).cache()
        agg = Aggregates(runs=A.run_rows(counts))   # computes the cache the commit then writes
        if had[S.RUNS] != version:
            runs_done = pool.submit(A.in_job_group(
                spark, lambda: (S.write_state(counts, store, S.RUNS, version), step("after-runs"))))
        if agg.runs:
            newest, keys = A.pick_runs(spark, agg.runs)
            dates = sorted({r["date"] for rs in newest.values() for r in rs})
            pair = A.project(S.read_records(spark, store, version).where(F.col(S.PARTITION).isin(*dates)))
            A.latest_aggregates(agg, pair.join(keys, ["impl", "run_id"]))
        if runs_done is not None:
            runs_done.result()
        agg.flaky = flaky.result()
    # Only once both threads are done (the with block waits for them, also on an exception).
    for df in (counts, *feeds.values()):
        if df is not None:
            df.unpersist()
    return agg


def run_counts(spark: SparkSession, store: str, version: int, new: DataFrame | None) -> DataFrame:
    """Run counts at `version`: the table's folded with `new` (inserted_since() from the version it
    is at), or, when `new` is None, counted again from all records."""
    if new is None:
        return A.run_counts(A.project(S.read_records(spark, store, version)))
    return A.merge_run_counts(S.read_state(spark, store, S.RUNS), A.run_counts(A.project(new)))


def flaky_state(spark: SparkSession, store: str, version: int, new: DataFrame | None) -> DataFrame:
    """The flakiness state at `version`: the table's folded with `new` (as in run_counts); the
    implementations with a run older than their latest folded one are rebuilt from history."""
    if new is None:
        return A.flaky_of(A.project(S.read_records(spark, store, version)))
    old = S.read_state(spark, store, S.FLAKY)
    per_run = A.per_run_vectors(A.project(new))
    late = A.out_of_order(old, per_run)
    if not late:
        return A.fold_flaky(old, per_run)
    keep = ~F.col("impl").isin(*late)
    history = S.read_records(spark, store, version).where(F.col("implementation.name").isin(*late))
    return (A.fold_flaky(old.where(keep), per_run.where(keep))
            .unionByName(A.flaky_of(A.project(history))))
