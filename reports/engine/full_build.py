"""A build that replaces the store's contents (`reports build` without --accumulate).

The records it commits are all that STORE/records then holds, so the state tables and the
report's aggregates come from those rows in memory: nothing is read back from the store.
Rules kept here:
  * The commits keep the store's order (records, then runs, then flaky, each naming the records
    version it reflects: reports/engine/store.py), in one thread beside the aggregation; the caller
    writes the report only after both are done, so a report never shows what was not committed.
  * The aggregates are reports/engine/aggregate.py's, over the same rows the records table gets
    (de-duplicated by reports/engine/store.py's stored_rows), so they equal those of a build that
    reads the store back.
"""
from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext

from pyspark.sql import DataFrame

from reports.engine import aggregate as A
from reports.engine import store as S
from reports.views.model import Aggregates


def build(rows: DataFrame, store: str, step: Callable[[str], None] = lambda name: None,
          phase=lambda name, spark=None: nullcontext()) -> tuple[Aggregates, int]:
    """Commit `rows` (in the form of store.stored_rows) as the store's new contents and aggregate them;
    returns (the aggregates, the records version). `step` is called after each commit but the last
    with its name (the build's failpoints); `phase` names the build's phases (reports/spark/build_phases.py)."""
    spark = rows.sparkSession
    whole = rows.cache()
    d = A.project(whole)
    counts = A.run_counts(d).cache()
    flaky = A.flaky_of(d).cache()

    def commit() -> int:
        with phase("records commit", spark):
            version = S.commit_records(whole, store, replace=True)
        step("after-records")
        with phase("state: runs", spark):
            S.write_state(counts, store, S.RUNS, version)
        step("after-runs")
        with phase("state: flaky", spark):
            S.write_state(flaky, store, S.FLAKY, version)
        return version

    def aggregates() -> Aggregates:
        with phase("aggregates", spark):
            return A.from_folds(d, counts, flaky)

    try:
        version, agg = A.side_by_side(spark, commit, aggregates)
        return agg, version
    finally:
        for df in (flaky, counts, whole):
            df.unpersist()
