"""`reports build`: results in, the store (Delta Lake, reports/engine/store.py) and the report folder out.

Order of a build, and what a failure at each step leaves:
  1. read and check the inputs (reports/engine/read.py): an invalid record, two records of one key with
     different outcomes (reports/rows/conflicts.py) or no valid record at all exits 2 before anything
     is written;
  2. commit the records to STORE/records (one atomic commit);
  3. bring STORE/runs and STORE/flaky up to that version (reports/engine/incremental_build.py);
  4. render the report into a temporary folder inside OUT and swap it in, file by file,
     index.html last. A build killed before the swap leaves the previous report whole; the
     next build catches up whatever steps 3-4 missed.
"""
from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlparse

from ..paths import is_local_path
from ..render.outputs import write_outputs
from ..rows import conflicts, validate
from ..views import clauses, measurements, model, profile

OUTPUTS = ("index.html", "summary.md", "compliance.json", "badges/")
# Swapped in this order: index.html, what people open, comes last.
SWAP_ORDER = ("badges", "compliance.json", "summary.md", "index.html")
TMP_PREFIX = ".report-tmp-"
# Tests stop a build at a named step, as a crash would: MQCONFORM_BUILD_FAILPOINT=after-records.
FAILPOINT = "MQCONFORM_BUILD_FAILPOINT"


def failpoint(name: str) -> None:
    if os.environ.get(FAILPOINT) == name:
        print(f"reports build: killed at {name} ({FAILPOINT})", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)


def _local_path(uri: str) -> Path:
    return Path(urlparse(uri).path if uri.startswith("file:") else uri).resolve()


def publish_local(report: dict, out: Path) -> None:
    """Render into OUT/.report-tmp-*, then move each output into place (atomic per file on one file system)."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob(f"{TMP_PREFIX}*"):  # left by a build killed mid-render
        shutil.rmtree(old, ignore_errors=True)
    tmp = out / f"{TMP_PREFIX}{uuid.uuid4().hex[:8]}"
    try:
        write_outputs(report, tmp)
        failpoint("before-swap")
        old = tmp / ".old"
        old.mkdir()
        for name in SWAP_ORDER:
            new, cur = tmp / name, out / name
            if new.is_dir():
                if cur.exists():
                    cur.rename(old / name)
                new.rename(cur)
            else:
                os.replace(new, cur)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def publish_hadoop(spark, report: dict, out: str) -> None:
    """The same on a Hadoop file system (hdfs:, s3a:, ...): copy to OUT/.report-tmp-*, then rename into place."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    hpath = jvm.org.apache.hadoop.fs.Path
    fs = hpath(out).getFileSystem(conf)
    tmp = f"{out}/{TMP_PREFIX}{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="mqconform-report-") as local:
        write_outputs(report, Path(local))
        fs.copyFromLocalFile(False, True, hpath(Path(local).as_uri()), hpath(tmp))
    try:
        for name in SWAP_ORDER:
            cur = hpath(f"{out}/{name}")
            if fs.exists(cur):
                fs.delete(cur, True)
            if not fs.rename(hpath(f"{tmp}/{name}"), cur):
                raise OSError(f"could not move {tmp}/{name} to {out}/{name}")
    finally:
        fs.delete(hpath(tmp), True)


def store_location(out: str, store: str | None) -> str:
    """The store's folder: --store, else OUT/store (local paths made absolute)."""
    if store:
        return str(_local_path(store)) if is_local_path(store) else store.rstrip("/")
    return f"{_local_path(out) if is_local_path(out) else out.rstrip('/')}/store"


def _as_of(text: str) -> int | str:
    """--as-of: a version number of the store, or a date / timestamp."""
    return int(text) if text.isdigit() else text


# A read of every stored record wants the second JIT tier from this size as JSON Lines (Parquet counted
# as reports/engine/read.py COLUMNAR_RATIO times its bytes): measured, a cold read of 10^6 synthetic records
# (12 MiB of Parquet) took 95-96 s with the first tier alone against 111-119 s with both, and one of
# 10^7 (123 MiB) 256 s against 172 s.
STORE_READ_BYTES = 1024 ** 3


def second_tier(results: list[str], store: str, from_store: bool, as_of: bool) -> bool:
    """Whether the build's JVM gets both JIT tiers (reports/spark/session.py large_input), decided before Spark
    starts by the size of what it reads record by record, local files only (not known: the first tier).
    A build from results reads them; --as-of reads every record of the store; --from-store reads every
    record only when a state table is missing (it is made from all records). A warm --from-store read
    (state tables there: only the latest runs' records) keeps the first tier: with both, a warm read of
    a 10^6-record store took a quarter longer."""
    from reports.engine import read
    from reports.engine import store as S
    from reports.spark import session

    if not (from_store or as_of):
        return session.large_input(read.local_text_bytes(results))
    if not is_local_path(store):
        return False
    if from_store and all((_local_path(S.path(store, t)) / "_delta_log").is_dir() for t in (S.RUNS, S.FLAKY)):
        return False
    size = read.local_text_bytes([S.path(store, S.RECORDS)])
    return size is not None and size >= STORE_READ_BYTES


def run(results: list[str], out: str, master: str | None = None, conf: dict | None = None,
        clause_dir: str | None = None, accumulate: bool = False, spark=None, store: str | None = None,
        as_of: str | None = None, expectations: list[str] | None = None, quiet: bool = False,
        registry: str | None = None, from_store: bool = False) -> int:
    # pyspark is imported only here, so that gate and --help stay light.
    from reports.engine import aggregate, keys, read
    from reports.engine import full_build as replace
    from reports.engine import incremental_build as update
    from reports.spark import cluster, session
    from reports.spark.build_phases import Phases
    from reports.views import known_deviations as known

    from . import store as S

    started = time.monotonic()
    try:   # checked before anything is started or written
        entries = known.load(expectations)
    except ValueError as exc:   # ExpectationsError: names file, line and field
        print(f"reports build: {exc}", file=sys.stderr)
        return 2
    from ..rows import trust as trust_mod

    try:
        trust = trust_mod.Trust(trust_mod.load_registry(registry))
    except (OSError, ValueError) as exc:
        print(f"reports build: {exc}", file=sys.stderr)
        return 2
    if trust.registry is None and not quiet:
        print("reports build: --registry none: the spec, clause and vector ids of the rows are not checked",
              file=sys.stderr)
    local = is_local_path(out)
    out_uri = str(_local_path(out)) if local else out.rstrip("/")
    store_uri = store_location(out, store)
    conf = conf or {}
    phase = Phases()
    try:
        with phase("session start"):
            spark = spark or session.start(master, conf,
                                           large_input=second_tier(list(results), store_uri, from_store, as_of is not None))
        session.wait_for_executors(spark)
    except session.ClusterError as exc:
        print(f"reports build: {exc}", file=sys.stderr)
        return 1
    master = spark.sparkContext.master

    if from_store:
        # The store as it stands: its state tables folded up to its latest records version (made from all
        # records when absent), then the latest runs' partitions; no record is read or written besides.
        version = S.version(spark, S.path(store_uri, S.RECORDS))
        if version is None:
            print(f"reports build: no store at {store_uri} (no Delta table {S.path(store_uri, S.RECORDS)}): give "
                  "--store the folder a build wrote, OUT/store of `reports build --out OUT` by default", file=sys.stderr)
            return 2
        if not session.is_local(master) and (missing := cluster.unseen(spark, out_uri, [])):
            print(f"reports build: {cluster.refusal(master, missing)}", file=sys.stderr)
            return 2
        agg = update.build(spark, store_uri, version)
    elif as_of is not None:
        when = _as_of(as_of)
        if not session.is_local(master) and (missing := cluster.unseen(spark, out_uri, [])):
            print(f"reports build: {cluster.refusal(master, missing)}", file=sys.stderr)
            return 2
        try:
            records = S.read_records(spark, store_uri, when)
            version = when
            agg = aggregate.compute(records)
        except Exception as exc:  # noqa: BLE001 - no store, or no version at that time
            print(f"reports build: no store version as of {as_of} in {store_uri}: {str(exc).splitlines()[0]}",
                  file=sys.stderr)
            return 2
    else:
        inputs = list(results)
        legacy = f"{out_uri}/parquet"
        if accumulate and not S.is_table(spark, S.path(store_uri, S.RECORDS)) and read.exists(spark, legacy):
            print(f"reports build: reading the Parquet store of an older build, {legacy}, into {store_uri}",
                  file=sys.stderr)
            inputs.append(legacy)
        try:
            with phase("input listing", spark):
                found = read.classify(spark, inputs)
        except read.InputError as exc:
            print(f"reports build: {exc}", file=sys.stderr)
            return 2
        if not session.is_local(master):
            files = found.json_paths + [f for _, fs in found.parquet_reads for f in fs]
            if missing := cluster.unseen(spark, out_uri if local else "", files if local else []):
                print(f"reports build: {cluster.refusal(master, missing)}", file=sys.stderr)
                return 2
        partitions = session.tune_for_input(spark, found.nbytes, conf, text_bytes=found.text_bytes,
                                            split_inputs=not accumulate)
        with phase("read + check", spark):
            raw = read.read_raw(spark, found)
            checked = read.check(spark, raw, found, trust)
        if not checked.problems.errors:
            # what the gate refuses, the report refuses: no verdict or badge from a row it cannot trust
            with phase("trust check", spark):
                distrust = read.trust_check(spark, checked, trust)
            checked.problems.errors.extend(distrust.errors)
        checked.problems.say("reports build", sys.stderr)
        if checked.problems.errors:
            return 2
        if not checked.n_valid:
            print("reports build: no valid result records in the inputs; the store and the report are left "
                  "as they were", file=sys.stderr)
            return 2
        with phase("key check", spark):
            repeats = keys.has_duplicates(raw)
            # the gate's rule (reports/rows/conflicts.py): rows of one key with different outcomes, in any order
            clashes = keys.conflicting_keys(raw)
        if clashes:
            named = validate.Problems()
            for where, n, why in conflicts.name_rows(clashes, lambda where: read._lines(spark, where)):
                named.add(where, n, why)
            named.say("reports build", sys.stderr)
            return 2
        rows = S.stored_rows(read.normalize(raw), partitions, dedupe=repeats)
        if accumulate:
            version = S.commit_records(rows, store_uri, replace=False, dates=checked.dates)
            failpoint("after-records")
            agg = update.build(spark, store_uri, version, step=failpoint)
        else:
            agg, version = replace.build(rows, store_uri, step=failpoint, phase=phase)
    with phase("report model"):
        # the measurements beside the results files this build read (none from the store alone)
        measured = measurements.load(measurements.beside(list(results))) if not from_store and as_of is None else None
        report = known.annotate(model.build_report(agg, clauses.load(clause_dir), requirements=profile.load_requirements(),
                                                   measurements=measured), entries)
    with phase("render + publish"):
        if local:
            publish_local(report, Path(out_uri))
        else:
            publish_hadoop(spark, report, out_uri)
    phase.say()
    if quiet:
        return 0
    t = report["totals"]
    verdicts = ", ".join(f"{v['implementation']} {v['spec']}: {v['verdict']}" + (f" ({v['covers']})" if v["covers"] in ("reference", "provider verdict") else "")
                         for v in report["verdicts"])
    print(f"reports build: {t['records']} records, {t['runs']} runs, {t['implementations']} implementations "
          f"in {time.monotonic() - started:.1f}s -> {out_uri}/{{{','.join(OUTPUTS)}}}; "
          f"store {store_uri} version {version}")
    if verdicts:
        print(f"  {verdicts}")
    return 0
