"""Incremental builds: bring the store's state tables up to a version of its records, then
take the report's aggregates from them.

The cost of a build that adds one run follows that run and the latest runs of each
implementation, not the history: run counts and flakiness fold in only the records
inserted since the version their tables reflect (reports/store.py), and the matrix,
level counts and diff read only the date partitions of the two latest runs of each
implementation. A table that cannot be folded (missing, a replaced version in between, a
change feed gone) is rebuilt from all records, and so is the flakiness of an
implementation that got a run older than its latest one.
"""
from __future__ import annotations

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from . import aggregate as A
from . import store as S
from .model import Aggregates


def refresh_runs(spark: SparkSession, store: str, version: int) -> None:
    had = S.state_version(spark, store, S.RUNS)
    if had == version:
        return
    new = S.inserted_since(spark, store, had, version) if had is not None and had < version else None
    if new is None:
        counts = A.run_counts(A.project(S.read_records(spark, store, version)))
    else:
        counts = A.merge_run_counts(S.read_state(spark, store, S.RUNS), A.run_counts(A.project(new)))
    S.write_state(counts, store, S.RUNS, version)


def refresh_flaky(spark: SparkSession, store: str, version: int) -> list[str]:
    """Brings STORE/flaky to `version`; returns the implementations whose state was rebuilt from history."""
    had = S.state_version(spark, store, S.FLAKY)
    if had == version:
        return []
    new = S.inserted_since(spark, store, had, version) if had is not None and had < version else None
    empty = A.empty_flaky_state(spark)
    if new is None:
        state = A.fold_flaky(empty, A.per_run_vectors(A.project(S.read_records(spark, store, version))))
        S.write_state(state, store, S.FLAKY, version)
        return ["*"]
    old = S.read_state(spark, store, S.FLAKY)
    per_run = A.per_run_vectors(A.project(new)).cache()
    try:
        late = A.out_of_order(old, per_run)
        if late:
            keep = ~F.col("impl").isin(*late)
            history = S.read_records(spark, store, version).where(F.col("implementation.name").isin(*late))
            state = (A.fold_flaky(old.where(keep), per_run.where(keep))
                     .unionByName(A.fold_flaky(empty, A.per_run_vectors(A.project(history)))))
        else:
            state = A.fold_flaky(old, per_run)
        S.write_state(state, store, S.FLAKY, version)
    finally:
        per_run.unpersist()
    return late


def aggregates(spark: SparkSession, store: str, version: int) -> Aggregates:
    """The report's aggregates at `version` of the records, from state tables brought up to it."""
    agg = Aggregates(runs=A.run_rows(S.read_state(spark, store, S.RUNS)))
    if not agg.runs:
        return agg
    newest, keys = A.pick_runs(spark, agg.runs)
    dates = sorted({r["date"] for rs in newest.values() for r in rs})
    pair = A.project(S.read_records(spark, store, version).where(F.col(S.PARTITION).isin(*dates)))
    A.latest_aggregates(agg, pair.join(keys, ["impl", "run_id"]))
    agg.flaky = A.flaky_rows(S.read_state(spark, store, S.FLAKY))
    return agg
