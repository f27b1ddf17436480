"""A store of N synthetic records made without a build, for `reports bench`'s history workload.

A full build of 10^8 records takes too long to be the way a large store is made. Instead:
  1. synthetic.generate writes the records as Parquet, already in the records table's layout: one
     folder per date (date=YYYY-MM-DD), the record schema's columns in the files (RESULT_SCHEMA;
     `date` only in the folder name, as Delta keeps a partition column);
  2. CONVERT TO DELTA turns that folder into the Delta table STORE/records in place: it writes only
     the log (NO STATISTICS: no file is read beyond its footer);
  3. the table gets what reports/engine/store.py gives a records table it writes: the change data feed.
Without --with-state there are no state tables: `reports build --from-store` makes them from all
records. With it, step 4 writes STORE/runs and STORE/flaky at the converted version with the store's
own writer, their rows computed from the generator's draws (reports/bench/bench_truth.py), in the schema
Spark's own state tables have.
The generated records are unique on the store's key (reports/engine/store.py KEY), as the MERGE keeps them.

    python -m reports.bench.bulk_store STORE N [--with-state] [--master URL] [--conf K=V ...]
    python -m reports.bench.bulk_store STORE --convert-only     (records generated already: step 2 and 3)
    python -m reports.bench.bulk_store STORE N --state-only     (records of generate(N) converted already: step 4)
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def convert(spark, store: str) -> int:
    """Turn STORE/records, Parquet partitioned by date, into the store's Delta table; returns its version."""
    from ..engine import store as S

    where = S.path(store, S.RECORDS).replace("`", "``")
    spark.sql(f"CONVERT TO DELTA parquet.`{where}` NO STATISTICS PARTITIONED BY ({S.PARTITION} DATE)")
    spark.sql(f"ALTER TABLE delta.`{where}` SET TBLPROPERTIES (delta.enableChangeDataFeed = true)")
    return S.version(spark, S.path(store, S.RECORDS))


def state_schemas(spark, store: str):
    """(schema of STORE/runs, of STORE/flaky) as Spark's own folds make them from the store's records."""
    from ..engine import aggregate as A
    from ..engine import store as S

    d = A.project(S.read_records(spark, store).limit(0))
    return A.run_counts(d).schema, A.flaky_of(d).schema


def _frame(spark, rows: list[tuple], schema):
    """A DataFrame of `rows` (in the order of schema's columns) cast to exactly `schema`."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StructField, StructType

    loose = StructType([StructField(f.name, f.dataType, True) for f in schema.fields])
    df = spark.createDataFrame(rows, loose)
    return df.select(*[F.col(f.name).cast(f.dataType).alias(f.name) for f in schema.fields])


def write_state(spark, store: str, size: int, seed: int = 7, chunk_rows: int = 1_000_000, workers: int = 2) -> int:
    """Write STORE/runs and STORE/flaky of the records generate(size, seed, chunk_rows) wrote and the
    conversion made STORE/records of, at the records' current version; returns that version."""
    from ..engine import store as S
    from . import bench_truth

    version = S.version(spark, S.path(store, S.RECORDS))
    if version is None:
        raise ValueError(f"no records table at {S.path(store, S.RECORDS)}: convert the generated records first")
    runs_schema, flaky_schema = state_schemas(spark, store)
    if tuple(runs_schema.names) != bench_truth.RUNS_COLUMNS or tuple(flaky_schema.names) != bench_truth.FLAKY_COLUMNS:
        raise ValueError(f"the state tables' columns are {runs_schema.names} and {flaky_schema.names}; "
                         "reports/bench/bench_truth.py computes others")
    runs, flaky = bench_truth.state(size, seed, chunk_rows, workers)
    S.write_state(_frame(spark, runs, runs_schema), store, S.RUNS, version)
    S.write_state(_frame(spark, flaky, flaky_schema), store, S.FLAKY, version)
    return version


def make(store: Path, size: int, spark=None, master: str | None = None, conf: dict | None = None,
         workers: int = 2, out=print, with_state: bool = False, chunk_rows: int = 1_000_000) -> dict:
    """Generate `size` records into STORE/records and convert them (and, `with_state`, write the state
    tables of them); returns the seconds of each step."""
    from ..engine import store as S
    from ..spark import session
    from . import synthetic

    if (store / S.RECORDS).exists():
        raise FileExistsError(f"{store / S.RECORDS} exists: the bulk load makes a new store")
    t0 = time.perf_counter()
    synthetic.generate(store / S.RECORDS, size, chunk_rows=chunk_rows, by_date=True, workers=workers)
    t1 = time.perf_counter()
    own = spark is None
    spark = spark or session.start(master, conf or {})
    try:
        version = convert(spark, str(store.resolve()))
        t2 = time.perf_counter()
        if with_state:
            write_state(spark, str(store.resolve()), size, chunk_rows=chunk_rows, workers=workers)
        t3 = time.perf_counter()
    finally:
        if own:
            spark.stop()
    out(f"bulk store: {size:,} records in {store} (records version {version}): generated in {t1 - t0:.1f}s, "
        f"converted to Delta in {t2 - t1:.1f}s" + (f", state tables written in {t3 - t2:.1f}s" if with_state else ""))
    return {"generate_s": t1 - t0, "convert_s": t2 - t1, "state_s": t3 - t2 if with_state else None,
            "version": version}


def main(argv: list[str] | None = None) -> int:
    from ..spark.session import parse_conf

    p = argparse.ArgumentParser(prog="python -m reports.bench.bulk_store", description=__doc__.split("\n\n")[0])
    p.add_argument("store", metavar="STORE", help="the new store's folder (its records table must not exist)")
    p.add_argument("size", type=int, nargs="?", metavar="N", help="number of records")
    p.add_argument("--convert-only", action="store_true",
                   help="only turn STORE/records, Parquet already partitioned by date, into the Delta table")
    p.add_argument("--with-state", action="store_true",
                   help="also write the state tables runs and flaky, computed from the generator's draws")
    p.add_argument("--state-only", action="store_true",
                   help="only write the state tables of the records generate(N) wrote, converted already")
    p.add_argument("--master", default=None, metavar="URL")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--workers", type=int, default=2, metavar="N", help="processes generating side by side (default 2)")
    args = p.parse_args(argv)
    if (args.size is None) != args.convert_only:
        p.error("give N, or --convert-only")
    if args.state_only + args.with_state + args.convert_only > 1:
        p.error("give one of --with-state, --state-only, --convert-only")
    if args.state_only:
        from ..spark import session

        t0 = time.perf_counter()
        spark = session.start(args.master, parse_conf(args.conf))
        try:
            version = write_state(spark, str(Path(args.store).resolve()), args.size, workers=args.workers)
        except ValueError as exc:
            print(f"bulk store: {exc}", file=sys.stderr)
            return 2
        finally:
            spark.stop()
        print(f"bulk store: the generator's state tables of {args.size:,} records written to {args.store} "
              f"(records version {version}) in {time.perf_counter() - t0:.1f}s")
        return 0
    if args.convert_only:
        from ..spark import session

        t0 = time.perf_counter()
        spark = session.start(args.master, parse_conf(args.conf))
        try:
            version = convert(spark, str(Path(args.store).resolve()))
        finally:
            spark.stop()
        print(f"bulk store: {args.store} converted to Delta (records version {version}) in {time.perf_counter() - t0:.1f}s")
        return 0
    try:
        make(Path(args.store), args.size, master=args.master, conf=parse_conf(args.conf), workers=args.workers,
             with_state=args.with_state)
    except (FileExistsError, ValueError) as exc:
        print(f"bulk store: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
