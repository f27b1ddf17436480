"""The aggregations of `reports build`, on Spark.

Spark does the work that grows with the number of runs (every nightly run of
every vendor): per-run counts, the latest run's cells, the diff of the last two
runs, the flakiness windows. What comes back to the driver is small: one row
per run, per matrix cell, per changed or flaky vector. Turning those rows into
verdicts and a report is plain Python (reports/model.py), shared with the
DuckDB baseline of `reports bench` so both engines are held to one definition.
"""
from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from .model import Aggregates, latest_two
from .outcomes import BY_SEVERITY, CLASS_OF, OUTCOME_ORDER, SEVERITY


def _case(column, mapping: dict):
    expr = None
    for key, value in mapping.items():
        expr = (F.when(column == F.lit(key), F.lit(value)) if expr is None
                else expr.when(column == F.lit(key), F.lit(value)))
    return expr


def _outcome_counts():
    return [F.sum(F.when(F.col("outcome") == o, 1).otherwise(0)).alias(f"n_{o}") for o in OUTCOME_ORDER]


def _counts(row) -> dict[str, int]:
    return {o: row[f"n_{o}"] for o in OUTCOME_ORDER if row[f"n_{o}"]}


def compute(df: DataFrame) -> Aggregates:
    """`df` is normalized records (reports.read.normalize)."""
    spark = df.sparkSession
    d = df.select(
        F.col("implementation.name").alias("impl"),
        F.col("implementation.kind").alias("kind"),
        F.col("implementation.version").alias("version"),
        "run_id", "run_started", F.unix_micros("run_ts").alias("run_us"),
        "vectors_digest", "suite_version", "spec", "spec_revision", "clause_ids",
        "level", "vector_id", "test_id", "outcome", "expected_outcome", "message",
        _case(F.col("outcome"), SEVERITY).alias("sev"),
    )

    # Run metadata is repeated on every record; min() picks it deterministically.
    runs = [
        {"impl": r["impl"], "run_id": r["run_id"], "run_started": r["run_started"], "run_us": r["run_us"],
         "kind": r["kind"], "version": r["version"], "vectors_digest": r["vectors_digest"],
         "suite_version": r["suite_version"], "counts": _counts(r)}
        for r in d.groupBy("impl", "run_id").agg(
            F.min("run_us").alias("run_us"), F.min("run_started").alias("run_started"),
            F.min("kind").alias("kind"), F.min("version").alias("version"),
            F.min("vectors_digest").alias("vectors_digest"), F.min("suite_version").alias("suite_version"),
            *_outcome_counts()).collect()
    ]
    agg = Aggregates(runs=runs)
    if not runs:
        return agg

    newest = latest_two(runs)
    keys = [(impl, rs[0]["run_id"], 1) for impl, rs in newest.items()]
    keys += [(impl, rs[1]["run_id"], 0) for impl, rs in newest.items() if len(rs) > 1]
    keys_df = F.broadcast(spark.createDataFrame(keys, "impl string, run_id string, which int"))

    latest = d.join(keys_df.where("which = 1"), ["impl", "run_id"]).cache()
    try:
        cell_rows = (latest
                     .withColumn("clause_id", F.explode("clause_ids"))
                     .groupBy("spec", "spec_revision", "clause_id", "impl")
                     .agg(F.max("sev").alias("worst"), F.collect_set("level").alias("levels"),
                          F.collect_list(F.struct("vector_id", "test_id", "level", "outcome",
                                                  "expected_outcome", "message")).alias("vectors"),
                          *_outcome_counts())
                     .collect())
        agg.cells = [
            {"spec": r["spec"], "spec_revision": r["spec_revision"], "clause_id": r["clause_id"],
             "impl": r["impl"], "worst": BY_SEVERITY[r["worst"]], "counts": _counts(r),
             "levels": sorted(x for x in r["levels"] if x is not None),
             "vectors": [v.asDict() for v in r["vectors"]]}
            for r in cell_rows
        ]
        agg.level_counts = [
            r.asDict() for r in latest.groupBy("impl", "spec", "spec_revision", "level", "outcome")
            .agg(F.count(F.lit(1)).alias("n")).collect()
        ]
    finally:
        latest.unpersist()

    # The diff compares the worst outcome per vector (a vector may run through
    # several adapters) between the two newest runs of each implementation.
    with_prev = {impl for impl, rs in newest.items() if len(rs) > 1}
    if with_prev:
        diff_rows = (d.join(keys_df, ["impl", "run_id"])
                     .where(F.col("impl").isin(*sorted(with_prev)))
                     .groupBy("impl", "vector_id")
                     .agg(F.max(F.when(F.col("which") == 0, F.col("sev"))).alias("before"),
                          F.max(F.when(F.col("which") == 1, F.col("sev"))).alias("after"))
                     .where(~F.col("before").eqNullSafe(F.col("after")))
                     .collect())
        agg.diff = [{"impl": r["impl"], "vector_id": r["vector_id"],
                     "before": BY_SEVERITY.get(r["before"]), "after": BY_SEVERITY.get(r["after"])}
                    for r in diff_rows]

    # Flakiness: per vector x implementation, walk its runs in time order and
    # count class changes between consecutive runs that kept the same
    # implementation version and the same vectors digest.
    cls = _case(F.col("sev"), {s: CLASS_OF[o] for o, s in SEVERITY.items()})
    per_run = (d.groupBy("impl", "vector_id", "run_id")
               .agg(F.max("sev").alias("sev"), F.min("run_us").alias("run_us"),
                    F.min("version").alias("version"), F.min("vectors_digest").alias("digest"))
               .withColumn("cls", cls))
    w = Window.partitionBy("impl", "vector_id").orderBy("run_us", "run_id")
    same = (F.lag("cls").over(w).isNotNull()
            & F.col("version").eqNullSafe(F.lag("version").over(w))
            & F.col("digest").eqNullSafe(F.lag("digest").over(w)))
    changed = same & (F.col("cls") != F.lag("cls").over(w))
    flaky_rows = (per_run
                  .select("impl", "vector_id", same.cast("int").alias("pair"), changed.cast("int").alias("change"))
                  .groupBy("impl", "vector_id")
                  .agg(F.sum("pair").alias("pairs"), F.sum("change").alias("changes"))
                  .where("changes > 0")
                  .collect())
    agg.flaky = [{"impl": r["impl"], "vector_id": r["vector_id"], "pairs": r["pairs"], "changes": r["changes"]}
                 for r in flaky_rows]
    return agg
