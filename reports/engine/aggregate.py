"""The aggregations of `reports build`, on Spark: pure DataFrame expressions, no Python on executors.

Spark does the work that grows with the number of runs (every nightly run of
every vendor). What comes back to the driver is small: one row per run, per
matrix cell, per changed or flaky vector. Turning those rows into verdicts and
a report is plain Python (reports/views/model.py), shared with the DuckDB baseline of
`reports bench`, so both engines are held to one definition.

Two kinds of aggregate:
  * folded, kept in the store and updated from each build's new records only:
    run counts (`run_counts` + `merge_run_counts`) and the flakiness state per
    vector x implementation (`flaky_of` from all records; `per_run_vectors` + `fold_flaky` for new runs);
  * of the latest runs only, computed each build from those runs' records:
    the matrix cells (`cells`, the one place that decides a cell), the level
    counts (`level_counts`) and the diff of the two latest runs (`diff`).
`compute` does all of it over a whole DataFrame (a time-travel build, the bench).
"""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F
from pyspark.util import inheritable_thread_target

from ..rows.outcomes import BY_SEVERITY, CLASS_OF, OUTCOME_ORDER, SEVERITY
from ..rows.record import tally_of, witnesses_of
from ..views.coverage_rule import BROKEN
from ..views.model import Aggregates, latest_two

T = TypeVar("T")


def mapped(column, mapping: dict):
    """`column` mapped through `mapping` (a CASE expression; a value not in it gives null)."""
    expr = None
    for key, value in mapping.items():
        expr = (F.when(column == F.lit(key), F.lit(value)) if expr is None
                else expr.when(column == F.lit(key), F.lit(value)))
    return expr


def _outcome_counts():
    return [F.sum(F.when(F.col("outcome") == o, 1).otherwise(0)).alias(f"n_{o}") for o in OUTCOME_ORDER]


def _counts(row) -> dict[str, int]:
    return {o: row[f"n_{o}"] for o in OUTCOME_ORDER if row[f"n_{o}"]}


def project(df: DataFrame) -> DataFrame:
    """Valid records (reports.engine.read.normalize, or rows of the store) in the columns the aggregates use."""
    return df.select(
        F.col("implementation.name").alias("impl"),
        F.col("implementation.kind").alias("kind"),
        F.col("implementation.version").alias("version"),
        "run_id", "run_started", F.unix_micros(F.try_to_timestamp("run_started")).alias("run_us"),
        "vectors_digest", "suite_version", "spec", "spec_revision", "clause_ids",
        "level", "vector_id", "test_id", "outcome", "expected_outcome", "message", "date",
        "clause_outcomes", "failed_step", "error_kind", "notes", "set_by", "protocol", "implementation", "profile",
        "tally", "witnesses",
        mapped(F.col("outcome"), SEVERITY).alias("sev"),
    )


# ---- run counts: one row per implementation x run, folded build by build ----------------------------

RUN_META = ("run_us", "run_started", "kind", "version", "vectors_digest", "suite_version", "date")
COUNT_COLUMNS = tuple(f"n_{o}" for o in OUTCOME_ORDER)


def run_counts(d: DataFrame) -> DataFrame:
    """Per (impl, run_id): outcome counts, and the run's metadata (repeated on every record; min() picks it)."""
    return d.groupBy("impl", "run_id").agg(*[F.min(c).alias(c) for c in RUN_META], *_outcome_counts())


def merge_run_counts(old: DataFrame, new: DataFrame) -> DataFrame:
    """Run counts of old and new records together: counts add up, metadata keeps the min()."""
    return (old.unionByName(new).groupBy("impl", "run_id")
            .agg(*[F.min(c).alias(c) for c in RUN_META], *[F.sum(c).alias(c) for c in COUNT_COLUMNS]))


def run_rows(counts: DataFrame) -> list[dict]:
    """The runs of Aggregates from run counts."""
    return [{"impl": r["impl"], "run_id": r["run_id"], "run_started": r["run_started"], "run_us": r["run_us"],
             "kind": r["kind"], "version": r["version"], "vectors_digest": r["vectors_digest"],
             "suite_version": r["suite_version"], "date": r["date"], "counts": _counts(r)}
            for r in counts.collect()]


# ---- the latest runs: matrix cells, level counts, diff ----------------------------------------------

def pick_runs(spark, runs: list[dict]) -> tuple[dict, DataFrame]:
    """(latest two runs per implementation, a small DataFrame impl, run_id, which: 1 latest, 0 the one before).

    The DataFrame is built from literals, so no Python runs on executors.
    """
    newest = latest_two(runs)
    keys = [(impl, rs[0]["run_id"], 1) for impl, rs in newest.items()]
    keys += [(impl, rs[1]["run_id"], 0) for impl, rs in newest.items() if len(rs) > 1]
    rows = F.array(*[F.struct(F.lit(i).alias("impl"), F.lit(r).alias("run_id"), F.lit(w).alias("which"))
                     for i, r, w in keys])
    return newest, F.broadcast(spark.range(1).select(F.inline(rows)))


def clause_rows(d: DataFrame) -> DataFrame:
    """One row per clause a record judged, with that clause's own outcome (`clause_outcome`, `clause_sev`).

    A record carries `clause_outcomes` (docs/results.md): a failure counts only against the clauses
    its failing check judged, and a clause it never reached gets no row. A schema version 1 record
    has none: each of its clauses takes the record's outcome.
    """
    per_clause = F.when(F.col("clause_outcomes").isNotNull(), F.map_entries("clause_outcomes")).otherwise(
        F.transform("clause_ids", lambda c: F.struct(c.alias("key"), F.col("outcome").alias("value"))))
    return (d.withColumn("_c", F.explode(per_clause))
             .withColumn("clause_id", F.col("_c.key"))
             .withColumn("clause_outcome", F.col("_c.value"))
             .withColumn("clause_sev", mapped(F.col("clause_outcome"), SEVERITY))
             .drop("_c"))


def cells(latest: DataFrame) -> list[dict]:
    """The matrix: one cell per clause x implementation of the latest runs, its worst outcome first.

    A cell counts each record by the outcome of that clause in it (clause_rows); its vectors carry
    the evidence: the step that decided, the error kind, the notes; and the protocol and version
    a scoped expectation is matched by (reports/views/known_deviations.py).
    """
    counts = [F.sum(F.when(F.col("clause_outcome") == o, 1).otherwise(0)).alias(f"n_{o}") for o in OUTCOME_ORDER]
    rows = (clause_rows(latest)
            .groupBy("spec", "spec_revision", "clause_id", "impl")
            .agg(F.max("clause_sev").alias("worst"), F.collect_set("level").alias("levels"),
                 F.collect_list(F.struct("vector_id", "test_id", "level", "outcome", "clause_outcome",
                                         "expected_outcome", "message", "failed_step", "error_kind",
                                         "notes", "protocol", "version")).alias("vectors"),
                 *counts)
            .collect())
    return [{"spec": r["spec"], "spec_revision": r["spec_revision"], "clause_id": r["clause_id"],
             "impl": r["impl"], "worst": BY_SEVERITY[r["worst"]], "counts": _counts(r),
             "levels": sorted(x for x in r["levels"] if x is not None),
             "vectors": [_vector(v) for v in r["vectors"]]}
            for r in rows]


def _vector(v) -> dict:
    out = v.asDict(recursive=True)
    out["notes"] = list(out.get("notes") or [])
    return out


def clause_failures(latest: DataFrame) -> list[dict]:
    """Per clause that a latest row fails (fail or xfail, by the clause's own outcome: clause_rows), one
    row per implementation of it: its role and kind, the outcome counts of the clause, the levels of its
    rows and the rows that fail it (their evidence). reports/views/spread.py makes the views of them.

    Which clauses: a window over each clause, so that an implementation that held it (or did not judge
    it) comes along with the ones that fail it."""
    broken = F.col("clause_outcome").isin(*BROKEN)
    counts = [F.sum(F.when(F.col("clause_outcome") == o, 1).otherwise(0)).alias(f"n_{o}") for o in OUTCOME_ORDER]
    per_impl = (clause_rows(latest)
                .groupBy("spec", "spec_revision", "clause_id", "impl")
                .agg(F.first("implementation.role", ignorenulls=True).alias("role"),
                     F.first("kind", ignorenulls=True).alias("kind"),
                     F.collect_set("level").alias("levels"),
                     F.collect_list(F.when(broken, F.struct("vector_id", "test_id", "outcome", "clause_outcome",
                                                            "expected_outcome", "message", "failed_step",
                                                            "error_kind"))).alias("vectors"),
                     F.sum(broken.cast("int")).alias("n_broken"), *counts))
    any_broken = F.max("n_broken").over(Window.partitionBy("spec", "spec_revision", "clause_id"))
    rows = per_impl.select("*", any_broken.alias("any_broken")).where("any_broken > 0").collect()
    return [{"spec": r["spec"], "spec_revision": r["spec_revision"], "clause_id": r["clause_id"], "impl": r["impl"],
             "role": r["role"], "kind": r["kind"], "counts": _counts(r), "levels": sorted(r["levels"]),
             "vectors": [_vector(v) for v in r["vectors"]]}
            for r in rows]


def header_sources(latest: DataFrame) -> list[dict]:
    """OpenMessaging: who set each header the latest rows checked, per implementation (`set_by`)."""
    rows = (latest.where(F.col("set_by").isNotNull())
            .select("impl", F.explode("set_by").alias("header", "source"))
            .groupBy("impl", "header").agg(F.collect_set("source").alias("sources"))
            .collect())
    return [{"impl": r["impl"], "header": r["header"], "sources": sorted(r["sources"])} for r in rows]


def identities(latest: DataFrame) -> list[dict]:
    """One `implementation` per implementation of the latest runs (role filled in by reports/rows/schema.py
    `with_defaults`): its kind, role and provenance decide what its verdicts cover and which clauses apply."""
    rows = latest.groupBy("impl").agg(F.first("implementation", ignorenulls=True).alias("i")).collect()
    return [{"impl": r["impl"], "implementation": _plain(r["i"])} for r in rows]


def _plain(v):
    out = v.asDict(recursive=True) if v is not None else {}
    out["provenance"] = dict(out.get("provenance") or {})
    return out


def profile_rows(latest: DataFrame) -> list[dict]:
    """The latest provider rows' `profile`, per (broker, protocol, requirement, status, role): how many rows
    gave that status and the evidence of the first (by implementation, then vector id) - reports/views/profile.py
    combines them (a product provider's absence is not the broker's)."""
    prov = F.col("implementation.provenance")
    rows = (latest.where((F.col("kind") == "provider") & (F.size("profile") > 0))
            .select(prov.getItem("broker").alias("broker"), prov.getItem("protocol").alias("protocol"),
                    "impl", F.col("implementation.role").alias("role"), "vector_id",
                    F.explode("profile").alias("requirement", "entry"))
            .groupBy("broker", "protocol", "requirement", F.col("entry.status").alias("status"), "role")
            .agg(F.count(F.lit(1)).alias("n"),
                 F.min(F.struct(F.col("impl"), F.col("vector_id"), F.col("role"),
                                F.col("entry.evidence").alias("evidence"))).alias("first"))
            .collect())
    return [{"broker": r["broker"], "protocol": r["protocol"], "requirement": r["requirement"],
             "status": r["status"], "n": r["n"], **r["first"].asDict()} for r in rows]


def fault_rows(latest: DataFrame) -> list[dict]:
    """The latest rows that carry a `tally` (fault vectors), with what reports/views/faults.py shows of them."""
    rows = (latest.where(F.col("tally").isNotNull())
            .select("impl", "kind", F.col("implementation.role").alias("role"),
                    F.col("implementation.provenance").getItem("broker").alias("broker"), "protocol",
                    "vector_id", "test_id", "outcome", "expected_outcome", "message", "tally")
            .collect())
    out = [r.asDict() for r in rows]
    for r in out:
        r["tally"] = tally_of(r)
    return out


def witness_rows(latest: DataFrame) -> list[dict]:
    """The latest rows that carry `witnesses` (run again through the second AMQP 1.0 client), with what
    reports/views/witnesses.py shows of them: the record as the row holds it."""
    rows = (latest.where(F.col("witnesses").isNotNull())
            .select("impl", "kind", F.col("implementation.role").alias("role"), "spec", "spec_revision",
                    "vector_id", "test_id", "outcome", "clause_ids", "witnesses")
            .collect())
    out = [r.asDict() for r in rows]
    for r in out:
        r["clause_ids"] = list(r["clause_ids"] or [])
        r["witnesses"] = witnesses_of(r)
    return out


def level_counts(latest: DataFrame) -> list[dict]:
    return [r.asDict() for r in latest.groupBy("impl", "spec", "spec_revision", "level", "outcome")
            .agg(F.count(F.lit(1)).alias("n")).collect()]


def diff(pair: DataFrame) -> list[dict]:
    """Vectors whose worst outcome differs between the two latest runs (`which` 0 and 1) of an implementation.

    The worst outcome per vector: a vector may run through several adapters.
    """
    with_prev = pair.where("which = 0").select("impl").distinct()
    rows = (pair.join(with_prev, "impl", "left_semi")
            .groupBy("impl", "vector_id")
            .agg(F.max(F.when(F.col("which") == 0, F.col("sev"))).alias("before"),
                 F.max(F.when(F.col("which") == 1, F.col("sev"))).alias("after"))
            .where(~F.col("before").eqNullSafe(F.col("after")))
            .collect())
    return [{"impl": r["impl"], "vector_id": r["vector_id"],
             "before": BY_SEVERITY.get(r["before"]), "after": BY_SEVERITY.get(r["after"])} for r in rows]


def in_job_group(spark, fn: Callable[[], T]) -> Callable[[], T]:
    """`fn` for another thread, in the caller's job group (cancelling the build's jobs cancels its
    jobs too), with a copy of the caller's local properties of its own: one copy shared by two
    threads would let their SQL executions cross ids. Wrap each function once per thread."""
    return inheritable_thread_target(spark)(fn)


def side_by_side(spark, *calls: Callable[[], T]) -> list[T]:
    """Run each call (a Spark job or a few) in a thread of its own and return their results in order.

    The jobs of a build over one run's records are small: their time is mostly the fixed cost of
    planning and scheduling on the driver, which jobs submitted together overlap."""
    if len(calls) == 1:
        return [calls[0]()]
    with ThreadPoolExecutor(max_workers=len(calls), thread_name_prefix="spark-jobs") as pool:
        futures = [pool.submit(in_job_group(spark, c)) for c in calls]
        return [f.result() for f in futures]


def latest_aggregates(agg: Aggregates, pair: DataFrame) -> None:
    """Fill agg.cells, agg.level_counts, agg.header_sources, agg.diff, agg.identities, agg.profile_rows,
    agg.fault_rows, agg.clause_failures and agg.witness_rows from the records of the two latest runs (`which`)."""
    pair = pair.cache()
    try:
        pair.count()   # cached once, before the jobs below read it side by side
        latest = pair.where("which = 1")
        (agg.cells, agg.level_counts, agg.header_sources, agg.diff, agg.identities,
         agg.profile_rows, agg.fault_rows, agg.clause_failures, agg.witness_rows) = side_by_side(
            pair.sparkSession, lambda: cells(latest), lambda: level_counts(latest),
            lambda: header_sources(latest), lambda: diff(pair), lambda: identities(latest),
            lambda: profile_rows(latest), lambda: fault_rows(latest), lambda: clause_failures(latest),
            lambda: witness_rows(latest))
    finally:
        pair.unpersist()


# ---- flakiness: a state per vector x implementation, folded run by run ------------------------------
#
# Per vector x implementation, take its runs in time order (run_us, then run_id); a consecutive
# pair counts when neither the implementation version nor the vectors digest changed; a change
# is a counted pair whose outcome class differs. The state keeps the totals and the last run,
# so that runs newer than the last can be folded in without reading the history again.

FLAKY_STATE = ("impl", "vector_id", "pairs", "changes", "run_us", "run_id", "cls", "version", "digest")


def per_run_vectors(d: DataFrame) -> DataFrame:
    """Per (impl, vector_id, run_id): the worst outcome's class, and the run's time, version and digest."""
    cls = mapped(F.col("sev"), {s: CLASS_OF[o] for o, s in SEVERITY.items()})
    return (d.groupBy("impl", "vector_id", "run_id")
            .agg(F.max("sev").alias("sev"), F.min("run_us").alias("run_us"),
                 F.min("version").alias("version"), F.min("vectors_digest").alias("digest"))
            .select("impl", "vector_id", "run_id", "run_us", "version", "digest", cls.alias("cls")))


def fold_flaky(state: DataFrame, per_run: DataFrame) -> DataFrame:
    """The state after `per_run`'s runs, which must all be newer than the state's last run of their vector."""
    rows = (state.select("impl", "vector_id", "run_id", "run_us", "version", "digest", "cls",
                         F.col("pairs").alias("pairs0"), F.col("changes").alias("changes0"))
            .unionByName(_unfolded(per_run)))
    return _fold(rows)


def flaky_of(d: DataFrame) -> DataFrame:
    """The flakiness state of projected records `d` alone (no earlier state): what fold_flaky of an empty
    state and per_run_vectors(d) would give, with one exchange of the records instead of two. The records are partitioned by
    (impl, vector_id) first, and the per-run grouping, the window and the fold all keep that partitioning
    (no union with an empty state breaks it)."""
    return _fold(_unfolded(per_run_vectors(d.repartition("impl", "vector_id"))))


def _unfolded(per_run: DataFrame) -> DataFrame:
    return per_run.select("impl", "vector_id", "run_id", "run_us", "version", "digest", "cls",
                          F.lit(0).cast("long").alias("pairs0"), F.lit(0).cast("long").alias("changes0"))


def _fold(rows: DataFrame) -> DataFrame:
    w = Window.partitionBy("impl", "vector_id").orderBy("run_us", "run_id")
    same: Column = (F.lag("cls").over(w).isNotNull()
                    & F.col("version").eqNullSafe(F.lag("version").over(w))
                    & F.col("digest").eqNullSafe(F.lag("digest").over(w)))
    changed = same & (F.col("cls") != F.lag("cls").over(w))
    return (rows.select("*", same.cast("long").alias("pair"), changed.cast("long").alias("change"))
            .groupBy("impl", "vector_id")
            .agg((F.sum("pairs0") + F.sum("pair")).alias("pairs"), (F.sum("changes0") + F.sum("change")).alias("changes"),
                 F.max(F.struct("run_us", "run_id", "cls", "version", "digest")).alias("last"))
            .select("impl", "vector_id", "pairs", "changes", "last.*"))


def out_of_order(state: DataFrame, per_run: DataFrame) -> list[str]:
    """Implementations with a new run not newer than the state's last run of the same vector
    (a run added late, or more records of a run already folded): their state is rebuilt from history."""
    s, p = state.alias("s"), per_run.alias("p")
    late = (p.join(s, ["impl", "vector_id"])
            .where((F.col("p.run_us") < F.col("s.run_us"))
                   | ((F.col("p.run_us") == F.col("s.run_us")) & (F.col("p.run_id") <= F.col("s.run_id")))))
    return sorted(r["impl"] for r in late.select("impl").distinct().collect())


def flaky_rows(state: DataFrame) -> list[dict]:
    return [{"impl": r["impl"], "vector_id": r["vector_id"], "pairs": r["pairs"], "changes": r["changes"]}
            for r in state.where("changes > 0").select("impl", "vector_id", "pairs", "changes").collect()]


# ---- everything over one DataFrame -------------------------------------------------------------------

def compute(df: DataFrame) -> Aggregates:
    """All aggregates of normalized records (reports.engine.read.normalize, or a snapshot of the store)."""
    d = project(df)
    return from_folds(d, run_counts(d), flaky_of(d))


def from_folds(d: DataFrame, counts: DataFrame, flaky: DataFrame) -> Aggregates:
    """All aggregates of projected records `d`, given their run counts and flakiness state."""
    runs, flaky_list = side_by_side(d.sparkSession, lambda: run_rows(counts), lambda: flaky_rows(flaky))
    agg = Aggregates(runs=runs)
    if not agg.runs:
        return agg
    _, keys = pick_runs(d.sparkSession, agg.runs)
    latest_aggregates(agg, d.join(keys, ["impl", "run_id"]))
    agg.flaky = flaky_list
    return agg
