"""Reading result records into Spark, and checking them before anything is stored.

Inputs are JSON Lines as the pytest plugin writes them, or Parquet (a store
written by an older `reports build`, or anything with the record's columns),
given as files, directories or globs, on any Hadoop-compatible file system
(file:, hdfs:, s3a: with the right jars on the class path).

Every record is checked against reports/rows/validate.py's rules by Spark (a column
expression, no Python on executors); only when some fail are their files read
again on the driver, to name file and line. A torn last line is tolerated.
"""
from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import NamedTuple

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from fixtures.verdict.row import TALLY_COUNTS, TALLY_IDS

from ..rows import validate
from ..rows.outcomes import OUTCOMES
from ..rows.schema import FIELD_NAMES, RESULT_SCHEMA, with_defaults

CORRUPT = "_corrupt_record"   # the raw text of a JSON line that does not parse or fit the schema
FILE = "_file"


# Bytes of a record as a JSON line per byte of it in Parquet (snappy): 16 or more for result records.
COLUMNAR_RATIO = 16


class InputError(ValueError):
    """A path that does not exist or holds nothing readable."""


def _hadoop(spark: SparkSession, path: str):
    jvm = spark.sparkContext._jvm
    hpath = jvm.org.apache.hadoop.fs.Path(path)
    return hpath.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), hpath


def _visible(name: str) -> bool:
    # Spark and Hadoop skip these too: _SUCCESS, .crc checksums, hidden files.
    return not name.startswith(("_", "."))


def jvm_path(spark: SparkSession, path: str):
    return spark.sparkContext._jvm.org.apache.hadoop.fs.Path(path)


def _delta_table(spark: SparkSession, fs, where: str) -> str | None:
    """The Delta table at a folder: the folder itself, or its `records` table when it is a build's store."""
    for table in (where, f"{where.rstrip('/')}/records"):
        if fs.exists(jvm_path(spark, f"{table}/_delta_log")):
            return table
    return None


@dataclass
class Inputs:
    json_paths: list[str] = field(default_factory=list)
    # (partition base folder or None, paths) per Parquet read
    parquet_reads: list[tuple[str | None, list[str]]] = field(default_factory=list)
    delta_tables: list[str] = field(default_factory=list)  # Delta tables (a store's records) read at their latest version
    nbytes: int = 0  # total size of the files, to size Spark's work
    columnar_bytes: int = 0  # of which Parquet (and Delta) files: compressed, a record takes far fewer bytes there

    @property
    def text_bytes(self) -> int:
        """The size of the inputs as JSON Lines: a record takes about COLUMNAR_RATIO times fewer bytes in
        Parquet than as a JSON line, and what Spark's work per record costs follows the records."""
        return self.nbytes - self.columnar_bytes + COLUMNAR_RATIO * self.columnar_bytes
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
                    inputs.columnar_bytes += status.getLen()
                    parquet_reads.append((None, [where]))
                else:
                    json_paths.append(where)
                    if _last_line_cut(spark, fs, status.getPath(), status.getLen()):
                        inputs.incomplete.append(where)
                continue
            table = _delta_table(spark, fs, where)
            if table:
                inputs.delta_tables.append(table)
                size = fs.getContentSummary(jvm_path(spark, table)).getLength()
                inputs.nbytes += size
                inputs.columnar_bytes += size
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
                if f.getName().endswith(".parquet"):
                    inputs.columnar_bytes += entry.getLen()
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
    return inputs


def local_text_bytes(paths: list[str]) -> int | None:
    """The size of local inputs as JSON Lines (Inputs.text_bytes), told before Spark starts, from the
    file system alone; None when a path is not local (a Hadoop URI), matches nothing or cannot be
    read. It never raises: a file that cannot be sized (gone, a dangling link) is not counted, and
    classify() reports what Spark cannot read. Names Spark skips (hidden, `_`-prefixed) are not counted."""
    import glob
    import os
    from urllib.parse import unquote, urlparse

    total = 0
    try:
        for path in paths:
            if path.startswith("file:"):
                local = unquote(urlparse(path).path)
            elif ":" in path.split("/")[0]:   # hdfs://..., s3a://...: sized by Spark later
                return None
            else:
                local = path
            matches = glob.glob(local)
            if not matches:
                return None
            for top in matches:
                found = [top] if os.path.isfile(top) else [
                    os.path.join(d, f) for d, _, files in os.walk(top) for f in files
                    if _visible(f) and all(_visible(p) for p in os.path.relpath(d, top).split(os.sep) if p != ".")]
                for f in found:
                    try:
                        size = os.path.getsize(f)
                    except OSError:
                        continue
                    total += COLUMNAR_RATIO * size if f.endswith(".parquet") else size
    except (OSError, ValueError):
        return None
    return total


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
    """The records with the columns of RESULT_SCHEMA, plus CORRUPT and FILE; unvalidated."""
    inputs = paths if isinstance(paths, Inputs) else classify(spark, paths)
    json_paths, parquet_reads = inputs.json_paths, inputs.parquet_reads
    frames = []
    if json_paths:
        frames.append(
            spark.read.schema(T.StructType([*RESULT_SCHEMA.fields, T.StructField(CORRUPT, T.StringType())]))
            # A line that does not parse or fit the schema keeps its text in CORRUPT: check() refuses
            # it, unless it is a file's torn last line.
            .option("mode", "PERMISSIVE").option("columnNameOfCorruptRecord", CORRUPT)
            # Result folders nest by run or by job; they have no key=value
            # partition directories to discover.
            .option("recursiveFileLookup", "true")
            .json(json_paths)
            .select(*FIELD_NAMES, CORRUPT, F.col("_metadata.file_path").alias(FILE)))
    for table in inputs.delta_tables:
        from .store import conform

        frames.append(conform(spark.read.format("delta").load(table))
                      .select(*FIELD_NAMES, F.lit(None).cast("string").alias(CORRUPT),
                              F.col("_metadata.file_path").alias(FILE)))
    for base, files in parquet_reads:
        # The schema is given for Parquet too: columns a file lacks read as
        # null, and the `spec` that an older store keeps only in its directory names
        # (spec=.../date=...) comes back from partition discovery.
        reader = spark.read.schema(RESULT_SCHEMA)
        if base:
            reader = reader.option("basePath", base)
        frames.append(reader.parquet(*files).select(*FIELD_NAMES, F.lit(None).cast("string").alias(CORRUPT),
                                                    F.col("_metadata.file_path").alias(FILE)))
    if not frames:
        return spark.range(0).select(*[F.lit(None).cast(f.dataType).alias(f.name) for f in RESULT_SCHEMA.fields],
                                     F.lit(None).cast("string").alias(CORRUPT), F.lit(None).cast("string").alias(FILE))
    df = frames[0]
    for other in frames[1:]:
        df = df.unionByName(other)
    return df


def _field(path: tuple[str, ...]):
    col = F.col(path[0])
    for key in path[1:]:
        col = col.getField(key)
    return col


def valid() -> Column:
    """reports/rows/validate.py's record_problem as a Spark condition: True for a valid record."""
    cond = F.col(CORRUPT).isNull() & F.col("outcome").isin(*sorted(OUTCOMES))
    for path in validate.REQUIRED:
        cond = cond & _field(path).isNotNull() & (_field(path) != F.lit(""))
    return cond & F.try_to_timestamp(F.col("run_started")).isNotNull() & tally_valid()


def tally_valid() -> Column:
    """fixtures/verdict/records.py tally_problem as a Spark condition: no tally, or one whose fault is named, whose
    counts are non-negative, whose lost messages were confirmed ones that were sent and are each named."""
    t = F.col("tally")
    cond = t.getField("fault").isNotNull() & (t.getField("fault") != F.lit(""))
    for name in TALLY_COUNTS:
        cond = cond & t.getField(name).isNotNull() & (t.getField(name) >= 0)
    for name in TALLY_IDS:
        cond = cond & t.getField(name).isNotNull() & ~F.exists(t.getField(name), lambda i: i.isNull())
    cond = (cond & (t.getField("lost") <= t.getField("confirmed")) & (t.getField("confirmed") <= t.getField("sent"))
            & (F.size(t.getField("lost_ids")) == t.getField("lost")))
    return t.isNull() | F.coalesce(cond, F.lit(False))


class Checked(NamedTuple):
    problems: validate.Problems
    n_valid: int
    dates: list[str]   # the UTC dates of the valid records' runs (the store's partitions they go to)
    untrusted_files: tuple[str, ...] = ()   # files holding a valid record reports/rows/trust.py refuses
    split_files: tuple[str, ...] = ()   # files holding valid records of a run whose valid records disagree
                                        # on reports/rows/trust.py's RUN_META
    trusted: bool = False   # whether check() was given the trust it found these with


def check(spark: SparkSession, raw: DataFrame, inputs: Inputs, trust=None) -> Checked:
    """The problems of the inputs, the number of valid records and their dates, in one pass over them;
    with `trust` (reports/rows/trust.py), in the same pass, the files holding a valid record it refuses and
    the runs whose valid records disagree on their run's metadata (trust_check() names their lines).

    A file's torn last line (Inputs.incomplete) is one corrupt record there that is allowed.
    Files with any other invalid record are read again on the driver to name the lines.
    The pass groups by file, run (and, with `trust`, run metadata) and keeps those groups cached:
    the per-file sums and the runs that disagree are small jobs over them.
    """
    from ..rows.trust import RUN_META

    problems = validate.Problems()
    refused = _untrusted(trust) if trust is not None else F.lit(False)
    meta = list(RUN_META) if trust is not None else []
    # valid() is evaluated once per record, in a projection, and its value used by every sum below.
    groups = (raw.select("*", valid().alias("_ok"))
              .select(FILE, "run_id", *meta, "_ok", (F.col("_ok") & refused).alias("_refused"),
                      F.col(CORRUPT).isNotNull().alias("_corrupt"), _run_date().alias("_date"))
              .groupBy(FILE, "run_id", *meta)
              .agg(F.sum(F.col("_ok").cast("long")).alias("ok"), F.sum((~F.col("_ok")).cast("long")).alias("bad"),
                   F.sum(F.col("_corrupt").cast("long")).alias("corrupt"),
                   F.sum(F.col("_refused").cast("long")).alias("untrusted"),
                   F.collect_set(F.when(F.col("_ok"), F.col("_date"))).alias("dates"))
              .cache())
    try:
        rows = (groups.groupBy(FILE)
                .agg(*[F.sum(c).alias(c) for c in ("ok", "bad", "corrupt", "untrusted")],
                     F.array_distinct(F.flatten(F.collect_list("dates"))).alias("dates"))
                .collect())
        split_files: tuple[str, ...] = ()
        if trust is not None:
            # a run whose valid records name more than one combination of RUN_META (nulls equal to nulls only)
            valid_groups = groups.where("ok > 0")
            split = (valid_groups.select("run_id", *meta).distinct().groupBy("run_id").count().where("count > 1"))
            split_files = tuple(sorted(r[FILE] for r in valid_groups.join(split, "run_id", "left_semi")
                                       .select(FILE).distinct().collect()))
    finally:
        groups.unpersist()
    n_valid = sum(r["ok"] or 0 for r in rows)
    dates = sorted({str(d) for r in rows for d in r["dates"]})
    untrusted_files = tuple(sorted(r[FILE] for r in rows if r["untrusted"]))
    torn = {_same_file(spark, w) for w in inputs.incomplete}
    for r in sorted(rows, key=lambda r: r[FILE]):
        where = r[FILE]
        bad = (r["bad"] or 0) - (1 if _same_file(spark, where) in torn and r["corrupt"] else 0)
        if bad <= 0:
            if _same_file(spark, where) in torn:
                problems.torn.append((where, _line_count(spark, where)))
            continue
        if where.endswith(".parquet"):
            problems.add(where, None, f"{bad} record(s) with a missing required field, an unknown outcome "
                                      "or an unreadable run_started (docs/results.md)")
            continue
        before = len(problems.errors)
        validate.scan_lines(where, _lines(spark, where), problems)
        if len(problems.errors) == before:  # Spark's schema is stricter than the plain checks: a type mismatch
            problems.add(where, None, f"{bad} record(s) whose values do not fit the record schema (docs/results.md)")
    return Checked(problems, n_valid, dates, untrusted_files, split_files, trust is not None)


def _file_path(spark: SparkSession, where: str):
    """(file system, Hadoop path) of a FILE value (a URI, percent-encoded) or of a path from classify()."""
    jvm = spark.sparkContext._jvm
    try:
        hpath = jvm.org.apache.hadoop.fs.Path(jvm.java.net.URI(where))
    except Exception:  # noqa: BLE001 - not a URI: a plain path
        hpath = jvm.org.apache.hadoop.fs.Path(where)
    return hpath.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()), hpath


def _same_file(spark: SparkSession, where: str) -> str:
    fs, hpath = _file_path(spark, where)
    return fs.makeQualified(hpath).toString()


def _lines(spark: SparkSession, where: str):
    """The text lines of a file, with their line ends, through Hadoop's file system."""
    fs, hpath = _file_path(spark, where)
    stream = fs.open(hpath)
    jvm = spark.sparkContext._jvm
    try:
        data = bytes(jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
    finally:
        stream.close()
    return io.StringIO(data.decode("utf-8", errors="replace"), newline="\n")


def _line_count(spark: SparkSession, where: str) -> int:
    return sum(1 for _ in _lines(spark, where))


def normalize(df: DataFrame) -> DataFrame:
    """Valid records only (check() refused inputs with invalid ones but torn last lines), with
    `run_ts` (timestamp) and `date` (UTC date of the run); older schemas read as schema 4
    (reports/rows/schema.py `with_defaults`)."""
    return (with_defaults(df.where(valid()).select(*FIELD_NAMES))
            .withColumn("clause_ids", F.coalesce(F.col("clause_ids"), F.array().cast("array<string>")))
            .withColumn("run_ts", F.try_to_timestamp(F.col("run_started")))
            .withColumn("date", F.to_date(F.col("run_ts"))))   # _run_date(), from the parsed time


def _run_date() -> Column:
    """The store's partition of a record: the UTC date of its run (the session's time zone is UTC)."""
    return F.to_date(F.try_to_timestamp(F.col("run_started")))


def exists(spark: SparkSession, path: str) -> bool:
    fs, hpath = _hadoop(spark, path)
    return bool(fs.exists(hpath))


def _untrusted(trust) -> Column:
    """reports/rows/trust.py's row check (times, registry ids) as a Spark condition: True for a row it refuses."""
    from ..rows.trust import CLOCK_SKEW

    run_ts, started = F.try_to_timestamp(F.col("run_started")), F.try_to_timestamp(F.col("started"))
    latest = F.lit(trust.now + CLOCK_SKEW)
    cond = (run_ts > latest) | (started > latest) | (started < run_ts - F.expr(f"INTERVAL {int(CLOCK_SKEW.total_seconds())} SECONDS"))
    reg = trust.registry
    if reg is not None:
        clauses = F.array(*[F.lit(c) for c in sorted(reg.clauses)]) if reg.clauses else F.array().cast("array<string>")
        cond = (cond | ~F.col("spec").isin(*sorted(reg.specs)) | ~F.col("vector_id").isin(*sorted(reg.vectors))
                | F.exists(F.coalesce(F.col("clause_ids"), F.array().cast("array<string>")),
                           lambda c: ~F.array_contains(clauses, c)))
    return F.coalesce(cond, F.lit(False))


def trust_check(spark: SparkSession, checked: Checked, trust) -> validate.Problems:
    """What reports/rows/trust.py refuses among the valid records, with the gate's words and FILE:LINE.

    check(..., trust) found the files holding a refused row and those holding rows of a run whose rows
    disagree on run metadata; only those JSON Lines files are read again on the driver, in order, to
    name the lines (Parquet and Delta files are named without a line)."""
    if not checked.trusted:
        raise ValueError("trust_check() needs what check() found with the trust given")
    problems = validate.Problems()
    for where in sorted({*checked.untrusted_files, *checked.split_files}):
        if where.endswith(".parquet") or "/_delta_log" in where:
            problems.add(where, None, "record(s) dated in the future or before their run, naming what the registry "
                                      "does not know, or disagreeing with their run's metadata (reports/rows/trust.py)")
            continue
        before = len(problems.errors)
        validate.scan_lines(where, _lines(spark, where), problems, trust=trust)
        if len(problems.errors) == before and where not in checked.split_files:
            problems.add(where, None, "record(s) this build cannot trust (reports/rows/trust.py)")
    return problems
