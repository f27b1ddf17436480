"""Reading result records into Spark, and keeping them as normalized Parquet.

Inputs are JSON Lines as the pytest plugin writes them, or Parquet (a store
written by an earlier `reports build`, or anything with the record's columns),
given as files, directories or globs, on any Hadoop-compatible file system
(file:, hdfs:, s3a: with the right jars on the class path).
"""
from __future__ import annotations

import json
import sys
import uuid
from dataclasses import dataclass, field

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from .outcomes import OUTCOMES
from .schema import FIELD_NAMES, RESULT_SCHEMA


class InputError(ValueError):
    """A path that does not exist or holds nothing readable."""


def _hadoop(spark: SparkSession, path: str):
    jvm = spark.sparkContext._jvm
    hpath = jvm.org.apache.hadoop.fs.Path(path)
    return hpath.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), hpath


def _visible(name: str) -> bool:
    # Spark and Hadoop skip these too: _SUCCESS, .crc checksums, hidden files.
    return not name.startswith(("_", "."))


@dataclass
class Inputs:
    json_paths: list[str] = field(default_factory=list)
    # (partition base folder or None, paths) per Parquet read
    parquet_reads: list[tuple[str | None, list[str]]] = field(default_factory=list)
    nbytes: int = 0  # total size of the files, to size Spark's work
    incomplete: list[str] = field(default_factory=list)  # JSON Lines files whose last line is cut off


def classify(spark: SparkSession, paths: list[str]) -> Inputs:
    """Split the inputs into JSON Lines paths and Parquet reads; globs are expanded.

    Files ending in `.parquet` (Spark's and pyarrow's writers both name them
    so) are Parquet, everything else JSON Lines. A folder of only Parquet is
    read as one dataset, so that a store's spec=/date= folders are discovered;
    a folder that mixes both is split file by file, its Parquet files read
    with the folder as the partition base.
    """
    inputs = Inputs()
    json_paths, parquet_reads = inputs.json_paths, inputs.parquet_reads
    for path in paths:
        fs, hpath = _hadoop(spark, path)
        statuses = fs.globStatus(hpath)
        if not statuses:
            raise InputError(f"{path}: no such file or directory")
        for status in statuses:
            where = status.getPath().toString()
            if status.isFile():
                inputs.nbytes += status.getLen()
                if where.endswith(".parquet"):
                    parquet_reads.append((None, [where]))
                else:
                    json_paths.append(where)
                    if _last_line_cut(spark, fs, status.getPath(), status.getLen()):
                        inputs.incomplete.append(where)
                continue
            pq_files, other = [], []
            listing = fs.listFiles(status.getPath(), True)
            while listing.hasNext():
                entry = listing.next()
                f = entry.getPath()
                # Only names below the folder count: a store inside a hidden folder is still a store.
                rel = f.toString()[len(where):].lstrip("/")
                if not all(_visible(part) for part in rel.split("/")):
                    continue
                inputs.nbytes += entry.getLen()
                (pq_files if f.getName().endswith(".parquet") else other).append(f.toString())
                if not f.getName().endswith(".parquet") and _last_line_cut(spark, fs, f, entry.getLen()):
                    inputs.incomplete.append(f.toString())
            if pq_files and not other:
                parquet_reads.append((None, [where]))
            elif not pq_files:
                if other:
                    json_paths.append(where)
            else:
                parquet_reads.append((where, pq_files))
                json_paths.extend(other)
    for where in inputs.incomplete:
        # Dropped by DROPMALFORMED in read_raw; said here so that a crashed run's lost record is not silent.
        print(f"reports build: {where}: the last line is not a complete record (a run killed while writing?); "
              "skipped", file=sys.stderr)
    return inputs


# How far back from the end of a JSON Lines file the start of its last line is looked for.
_TAIL_BYTES = 1 << 16


def _last_line_cut(spark: SparkSession, fs, hpath, size: int) -> bool:
    """True when a JSON Lines file ends in a line that has no line end and is not valid JSON.

    The plugin writes whole lines, so that is a writer killed mid-line (or a copy cut short).
    One seek and at most _TAIL_BYTES read per file; a file that cannot be read this way is
    left to Spark, which reports it itself.
    """
    if size == 0:
        return False
    jvm = spark.sparkContext._jvm
    start = max(0, size - _TAIL_BYTES)
    try:
        stream = fs.open(hpath)
        try:
            stream.seek(start)
            tail = bytes(jvm.org.apache.commons.io.IOUtils.toByteArray(stream, size - start))
        finally:
            stream.close()
    except Exception:  # noqa: BLE001 - this check only adds a message
        return False
    if tail.endswith(b"\n"):
        return False
    try:
        json.loads(tail.rsplit(b"\n", 1)[-1])
    except ValueError:
        return True
    return False


def read_raw(spark: SparkSession, paths: list[str] | Inputs) -> DataFrame:
    """The records with exactly the columns of RESULT_SCHEMA, unvalidated."""
    inputs = paths if isinstance(paths, Inputs) else classify(spark, paths)
    json_paths, parquet_reads = inputs.json_paths, inputs.parquet_reads
    frames = []
    if json_paths:
        frames.append(
            spark.read.schema(RESULT_SCHEMA)
            # A crashed run may leave a truncated last line: drop it, and any
            # line whose values do not fit the schema, instead of failing.
            .option("mode", "DROPMALFORMED")
            # Result folders nest by run or by job; they have no key=value
            # partition directories to discover.
            .option("recursiveFileLookup", "true")
            .json(json_paths))
    for base, files in parquet_reads:
        # The schema is given for Parquet too: columns a file lacks read as
        # null, and the `spec` that a store keeps only in its directory names
        # (spec=.../date=...) comes back from partition discovery.
        reader = spark.read.schema(RESULT_SCHEMA)
        if base:
            reader = reader.option("basePath", base)
        frames.append(reader.parquet(*files))
    if not frames:
        return spark.createDataFrame([], RESULT_SCHEMA)
    frames = [f.select(*FIELD_NAMES) for f in frames]
    df = frames[0]
    for other in frames[1:]:
        df = df.unionByName(other)
    return df


def normalize(df: DataFrame) -> DataFrame:
    """Valid records only, with `run_ts` (timestamp) and `date` (UTC date of the run).

    Records that cannot be placed are dropped rather than guessed at: no run,
    no parseable run_started, no implementation name, no vector id, or an
    outcome outside docs/results.md.
    """
    run_ts = F.try_to_timestamp(F.col("run_started"))
    return (df
            .withColumn("clause_ids", F.coalesce(F.col("clause_ids"), F.array().cast("array<string>")))
            .withColumn("run_ts", run_ts)
            .where(F.col("run_ts").isNotNull()
                   & F.col("run_id").isNotNull()
                   & F.col("implementation.name").isNotNull()
                   & F.col("vector_id").isNotNull()
                   & F.col("spec").isNotNull()
                   & F.col("outcome").isin(*sorted(OUTCOMES)))
            .withColumn("date", F.to_date(F.col("run_ts"))))


def read_results(spark: SparkSession, paths: list[str] | Inputs) -> DataFrame:
    return normalize(read_raw(spark, paths))


def write_store(df: DataFrame, store: str) -> None:
    """Write normalized records to `store` as Parquet partitioned by spec and date.

    Written beside the store and swapped in at the end, so that the old store
    can itself be one of the inputs (a nightly build that adds one run to the
    history) and a failed write leaves the old store whole.
    """
    spark = df.sparkSession
    tmp = f"{store.rstrip('/')}.tmp-{uuid.uuid4().hex[:8]}"
    # The same record read twice (the store and the JSON Lines it was built
    # from) must count once. Clustering by (spec, date) first makes the
    # de-duplication reuse that shuffle, and gives one file per partition.
    key = ["spec", "date", "run_id", "_impl", "vector_id", "test_id"]
    (df.repartition("spec", "date")
       .withColumn("_impl", F.col("implementation.name"))
       .dropDuplicates(key)
       .select(*FIELD_NAMES, "date")
       .write.partitionBy("spec", "date").mode("errorifexists").parquet(tmp))
    fs, old = _hadoop(spark, store)
    _, new = _hadoop(spark, tmp)
    if fs.exists(old) and not fs.delete(old, True):
        raise OSError(f"could not replace {store}")
    if not fs.rename(new, old):
        raise OSError(f"could not move {tmp} to {store}")


def exists(spark: SparkSession, path: str) -> bool:
    fs, hpath = _hadoop(spark, path)
    return bool(fs.exists(hpath))
