"""A store of N synthetic records made without a build, for `reports bench`'s history workload.

A full build of 10^8 records takes too long to be the way a large store is made. Instead:
  1. bench.generate writes the records as Parquet, already in the records table's layout: one
     folder per date (date=YYYY-MM-DD), the record schema's columns in the files (RESULT_SCHEMA;
     `date` only in the folder name, as Delta keeps a partition column);
  2. CONVERT TO DELTA turns that folder into the Delta table STORE/records in place: it writes only
     the log (NO STATISTICS: no file is read beyond its footer);
  3. the table gets what reports/store.py gives a records table it writes: the change data feed.
There are no state tables: `reports build --from-store` makes them from all records.
The generated records are unique on the store's key (reports/store.py KEY), as the MERGE keeps them.

    python -m reports.bulk_store STORE N [--master URL] [--conf K=V ...]
    python -m reports.bulk_store STORE --convert-only     (records generated already: step 2 and 3)
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def convert(spark, store: str) -> int:
    """Turn STORE/records, Parquet partitioned by date, into the store's Delta table; returns its version."""
    from . import store as S

    where = S.path(store, S.RECORDS).replace("`", "``")
    spark.sql(f"CONVERT TO DELTA parquet.`{where}` NO STATISTICS PARTITIONED BY ({S.PARTITION} DATE)")
    spark.sql(f"ALTER TABLE delta.`{where}` SET TBLPROPERTIES (delta.enableChangeDataFeed = true)")
    return S.version(spark, S.path(store, S.RECORDS))


def make(store: Path, size: int, spark=None, master: str | None = None, conf: dict | None = None,
         workers: int = 2, out=print) -> dict:
    """Generate `size` records into STORE/records and convert them; returns the seconds of each step."""
    from . import bench, session
    from . import store as S

    if (store / S.RECORDS).exists():
        raise FileExistsError(f"{store / S.RECORDS} exists: the bulk load makes a new store")
    t0 = time.perf_counter()
    bench.generate(store / S.RECORDS, size, by_date=True, workers=workers)
    t1 = time.perf_counter()
    own = spark is None
    spark = spark or session.start(master, conf or {})
    try:
        version = convert(spark, str(store.resolve()))
    finally:
        if own:
            spark.stop()
    t2 = time.perf_counter()
    out(f"bulk store: {size:,} records in {store} (records version {version}): generated in {t1 - t0:.1f}s, "
        f"converted to Delta in {t2 - t1:.1f}s")
    return {"generate_s": t1 - t0, "convert_s": t2 - t1, "version": version}


def main(argv: list[str] | None = None) -> int:
    from .session import parse_conf

    p = argparse.ArgumentParser(prog="python -m reports.bulk_store", description=__doc__.split("\n\n")[0])
    p.add_argument("store", metavar="STORE", help="the new store's folder (its records table must not exist)")
    p.add_argument("size", type=int, nargs="?", metavar="N", help="number of records")
    p.add_argument("--convert-only", action="store_true",
                   help="only turn STORE/records, Parquet already partitioned by date, into the Delta table")
    p.add_argument("--master", default=None, metavar="URL")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--workers", type=int, default=2, metavar="N", help="processes generating side by side (default 2)")
    args = p.parse_args(argv)
    if (args.size is None) != args.convert_only:
        p.error("give N, or --convert-only")
    if args.convert_only:
        from . import session

        t0 = time.perf_counter()
        spark = session.start(args.master, parse_conf(args.conf))
        try:
            version = convert(spark, str(Path(args.store).resolve()))
        finally:
            spark.stop()
        print(f"bulk store: {args.store} converted to Delta (records version {version}) in {time.perf_counter() - t0:.1f}s")
        return 0
    try:
        make(Path(args.store), args.size, master=args.master, conf=parse_conf(args.conf), workers=args.workers)
    except (FileExistsError, ValueError) as exc:
        print(f"bulk store: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
