"""The store of `reports build`: Delta Lake tables, each change one atomic commit.

    STORE/records   every valid record: the columns of reports/rows/schema.py's RESULT_SCHEMA plus
                    `date` (UTC date of run_started), partitioned by `date`; change data feed on
    STORE/runs      run counts, one row per implementation x run (reports/engine/aggregate.py)
    STORE/flaky     the flakiness state, one row per vector x implementation

Rules the store keeps:
  * Adding records is a MERGE on the record key (run_id, implementation name, vector_id,
    test_id) that only inserts: the same run given twice changes nothing. Its condition
    names the dates of the new records, so only those partitions are read.
  * A commit is all or nothing: a build killed at any point leaves the last committed
    version of each table readable, and files it wrote without committing are never read.
  * `runs` and `flaky` say in their commit which version of `records` they reflect; the
    next build folds in the records inserted after that version (the change data feed),
    whatever build died in between. Anything but inserts there (a replaced table) means
    they are rebuilt from `records`.
  * New nullable columns of RESULT_SCHEMA (maps and structs too) are added to an existing
    table by the MERGE (schema evolution); reading fills columns a version lacks with nulls.
"""
from __future__ import annotations

import json

from pyspark.sql import DataFrame, SparkSession, Window
from pyspark.sql import functions as F

from ..rows.schema import FIELD_NAMES, RESULT_SCHEMA, with_defaults

RECORDS, RUNS, FLAKY = "records", "runs", "flaky"
# Delta keeps min/max/null counts of a table's first columns per file, for skipping files in reads
# that filter on them. The records table keeps them for its first STATS_COLUMNS (schema_version,
# run_id, run_started: what a query of one run filters on); Delta's default, 32 columns, takes in
# the nested ones and costs a replacing build a third of its write. Delta sets it when it creates the
# table: a table made before keeps the setting it was made with.
STATS_COLUMNS = 3
KEY = ("run_id", "implementation.name", "vector_id", "test_id")
PARTITION = "date"


def path(store: str, table: str) -> str:
    return f"{store.rstrip('/')}/{table}"


def is_table(spark: SparkSession, where: str) -> bool:
    return _last_commit(spark, where) is not None


def _last_commit(spark: SparkSession, where: str):
    """(version, path) of the newest commit file in the table's _delta_log, or None.

    Read off the log's listing (Delta's commit files are named by version) rather than through
    DeltaTable.history(), which runs a Spark job: this is asked several times per build.
    """
    jvm = spark.sparkContext._jvm
    log = jvm.org.apache.hadoop.fs.Path(f"{where}/_delta_log")
    fs = log.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    if not fs.exists(log):
        return None
    best = None
    for status in fs.listStatus(log):
        name = status.getPath().getName()
        if name.endswith(".json") and name[:-5].isdigit():
            v = int(name[:-5])
            if best is None or v > best[0]:
                best = (v, status.getPath())
    return best


def version(spark: SparkSession, where: str) -> int | None:
    """The current version of a Delta table, or None when there is none."""
    last = _last_commit(spark, where)
    return last[0] if last else None


def stored_rows(df: DataFrame, partitions: int, dedupe: bool = True) -> DataFrame:
    """The rows STORE/records keeps of normalized records: one per record key, without `run_ts`.

    With `dedupe` (reports/engine/keys.py has_duplicates says the inputs may repeat a key), the first row
    of each key is kept in a sort by (date, run_id, key), after clustering by (date, run_id): the
    one shuffle and sort of every column that takes. Without it the rows are kept as they come,
    unshuffled: the write sorts each task's rows by `date` itself."""
    rows = df.select(*[c for c in df.columns if c != "run_ts"])
    if not dedupe:
        return rows
    key = [PARTITION, "run_id", "_impl", "vector_id", "test_id"]
    first = F.row_number().over(Window.partitionBy(*key).orderBy(*key))
    return (rows.repartition(partitions, PARTITION, "run_id")
                .withColumn("_impl", F.col("implementation.name"))
                .withColumn("_n", first).where("_n = 1")
                .drop("_impl", "_n"))


def write_records(df: DataFrame, store: str, replace: bool, partitions: int) -> int:
    """Add normalized records to STORE/records (or replace its contents); returns the new version.

    `df` carries the record columns and `date`; any column it has beyond the table's is added to
    the table. With `replace` the new version holds only `df` (older versions stay readable by
    time travel).
    """
    return commit_records(stored_rows(df, partitions), store, replace)


def commit_records(src: DataFrame, store: str, replace: bool, dates: list[str] | None = None) -> int:
    """write_records() for rows already in the form of stored_rows(). `dates`, when the caller knows
    them (reports/engine/read.py's check), are the dates of `src`'s rows; else they are computed here."""
    from delta.tables import DeltaTable

    spark = src.sparkSession
    where = path(store, RECORDS)
    if replace or not is_table(spark, where):
        (src.write.format("delta").mode("overwrite").option("overwriteSchema", "true")
            .option("delta.enableChangeDataFeed", "true")
            .option("delta.dataSkippingNumIndexedCols", str(STATS_COLUMNS))
            .partitionBy(PARTITION).save(where))
    else:
        if dates is None:
            dates = sorted(str(r[0]) for r in src.select(PARTITION).distinct().collect())
        if dates:
            on = " AND ".join([f"t.{PARTITION} = s.{PARTITION}"] + [f"t.{k} <=> s.{k}" for k in KEY]
                              + [f"t.{PARTITION} IN ({', '.join(repr(d) for d in dates)})"])
            (DeltaTable.forPath(spark, where).alias("t").merge(src.alias("s"), on)
             .whenNotMatchedInsertAll().withSchemaEvolution().execute())
    return version(spark, where)


def read_records(spark: SparkSession, store: str, at: int | str | None = None) -> DataFrame:
    """STORE/records at a version (int), a time (str: a date or timestamp) or the latest (None),
    with every column of RESULT_SCHEMA (nulls where a version lacks one) and `date`."""
    reader = spark.read.format("delta")
    if isinstance(at, int):
        reader = reader.option("versionAsOf", at)
    elif at is not None:
        reader = reader.option("timestampAsOf", at)
    return conform(reader.load(path(store, RECORDS)))


def conform(df: DataFrame, schema=RESULT_SCHEMA) -> DataFrame:
    """The columns of `schema` (typed nulls for those `df` lacks; a version written before schema 4
    read as schema 4, reports/rows/schema.py `with_defaults`), then `date`, then any others."""
    have = set(df.columns)
    cols = [F.col(f.name) if f.name in have else F.lit(None).cast(f.dataType).alias(f.name) for f in schema.fields]
    rest = [c for c in df.columns if c not in {f.name for f in schema.fields}]
    out = df.select(*cols, *rest)
    return with_defaults(out) if schema is RESULT_SCHEMA else out


def inserted_since(spark: SparkSession, store: str, after: int, upto: int) -> DataFrame | None:
    """Records inserted into STORE/records in versions after..upto, or None when that cannot be told
    from inserts alone (a version replaced rows, or the change feed of those versions is gone)."""
    if upto <= after:
        return conform(spark.read.format("delta").option("versionAsOf", upto).load(path(store, RECORDS)).limit(0))
    try:
        changes = (spark.read.format("delta").option("readChangeFeed", "true")
                   .option("startingVersion", after + 1).option("endingVersion", upto)
                   .load(path(store, RECORDS)))
        kinds = {r[0] for r in changes.select("_change_type").distinct().collect()}
    except Exception:  # noqa: BLE001 - any failure to read the feed means: rebuild from the table
        return None
    if kinds - {"insert"}:
        return None
    return conform(changes.drop("_change_type", "_commit_version", "_commit_timestamp"))


def write_state(df: DataFrame, store: str, table: str, records_version: int) -> None:
    """Replace a small state table in one commit that names the records version it reflects."""
    (df.write.format("delta").mode("overwrite").option("overwriteSchema", "true")
       .option("userMetadata", json.dumps({"records_version": records_version}))
       .save(path(store, table)))


def state_version(spark: SparkSession, store: str, table: str) -> int | None:
    """The records version a state table reflects, or None when it has none."""
    last = _last_commit(spark, path(store, table))
    if last is None:
        return None
    fs = last[1].getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    stream = fs.open(last[1])
    try:
        text = bytes(spark.sparkContext._jvm.org.apache.commons.io.IOUtils.toByteArray(stream)).decode("utf-8")
    finally:
        stream.close()
    for line in text.splitlines():
        try:
            meta = json.loads(line).get("commitInfo", {}).get("userMetadata")
            if meta is not None:
                return int(json.loads(meta)["records_version"])
        except (TypeError, ValueError, KeyError, AttributeError):
            continue
    return None


def read_state(spark: SparkSession, store: str, table: str) -> DataFrame:
    return spark.read.format("delta").load(path(store, table))


def fields() -> list[str]:
    return [*FIELD_NAMES, PARTITION]
