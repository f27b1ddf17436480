"""`reports bench`: Spark's aggregation against a single-process DuckDB baseline.

For each size, synthetic results are written straight to Parquet with pyarrow,
a chunk at a time (10^7 records as Python dicts would not fit comfortably),
then both engines run the same aggregation (reports/aggregate.py and
reports/baseline_duckdb.py) and their reports are compared. The timings cover
reading and aggregating, not Spark's JVM start, which is printed on its own.
"""
from __future__ import annotations

import datetime as dt
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from .outcomes import OUTCOME_ORDER
from .schema import arrow_schema

LEVELS = np.array(["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"])
LEVEL_P = [0.5, 0.1, 0.2, 0.05, 0.15]
# Base outcome of a vector on an implementation, in OUTCOME_ORDER.
BASE_P = [0.04, 0.01, 0.02, 0.01, 0.03, 0.04, 0.85]
SPECS = (("ce-amqp", "1.0.3-wip"), ("ce-rabbitmq", "1.0.2-wip"), ("rabbitmq-address@4.0", "4.0"))
START = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


def _strings(indices: np.ndarray, values: list[str]):
    import pyarrow as pa

    return pa.DictionaryArray.from_arrays(pa.array(indices, pa.int32()), pa.array(values, pa.string())).cast(pa.string())


def generate(folder: Path, size: int, seed: int = 7, chunk_rows: int = 1_000_000) -> Path:
    """Write `size` synthetic records as Parquet files under `folder`; returns folder.

    Every run is one implementation running every vector; runs rotate over
    the implementations an hour apart. Versions change every 20 runs of an
    implementation and the vectors digest every 50 runs, so that flakiness
    has pairs to count and pairs to skip. A few percent of vector x
    implementation cells are flaky: they draw a new outcome every run.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    n_vec = int(min(1000, max(10, size // 10)))
    n_impl = int(min(10, max(2, size // (n_vec * 3))))
    n_runs = -(-size // n_vec)

    spec_of = np.arange(n_vec) % len(SPECS)
    vec_ids = [f"{SPECS[s][0]}.topic{v % 17}.vector-{v:05d}" for v, s in enumerate(spec_of)]
    level_of = rng.choice(len(LEVELS), size=n_vec, p=LEVEL_P)
    # One or two clauses per vector, from a pool half the size of the vectors.
    clause_lists = []
    for v in range(n_vec):
        k = 1 + (rng.random() < 0.3)
        clause_lists.append([f"{SPECS[spec_of[v]][0]}/{c % 40}.{c}/clause-{c}"
                             for c in sorted(set(rng.integers(0, max(n_vec // 2, 1), size=k)))])
    clause_counts = np.array([len(c) for c in clause_lists])
    clause_flat = [c for cs in clause_lists for c in cs]
    clause_pool = sorted(set(clause_flat))
    position = {c: i for i, c in enumerate(clause_pool)}
    clause_idx = np.array([position[c] for c in clause_flat])

    base = rng.choice(len(OUTCOME_ORDER), size=(n_impl, n_vec), p=BASE_P)
    flaky = rng.random((n_impl, n_vec)) < 0.03
    outcomes = list(OUTCOME_ORDER)
    messages = ["" if o == "pass" else f"synthetic {o}: expected the clause to hold, observed otherwise"
                for o in outcomes]
    impl_names = [f"impl-{i:02d}" for i in range(n_impl)]
    kinds = ["codec" if i % 2 == 0 else "broker" for i in range(n_impl)]
    schema = arrow_schema()

    part, run0 = 0, 0
    runs_per_chunk = max(1, chunk_rows // n_vec)
    while run0 < n_runs:
        run1 = min(n_runs, run0 + runs_per_chunk)
        runs = np.arange(run0, run1)
        n = len(runs) * n_vec
        r = np.repeat(runs, n_vec)
        v = np.tile(np.arange(n_vec), len(runs))
        if run1 == n_runs and n_runs * n_vec > size:  # the last run is cut to hit `size` exactly
            keep = n - (n_runs * n_vec - size)
            r, v, n = r[:keep], v[:keep], keep
        impl = r % n_impl
        nth = r // n_impl  # the how-manieth run of its implementation
        outcome = base[impl, v].copy()
        fl = flaky[impl, v]
        outcome[fl] = rng.choice([0, 1, 6], size=int(fl.sum()), p=[0.2, 0.1, 0.7])

        run_idx = r - run0
        run_ids = [f"{(seed * 1_000_003 + x) * 2654435761 % (1 << 128):032x}" for x in runs.tolist()]
        started = [(START + dt.timedelta(hours=x)).strftime("%Y-%m-%dT%H:%M:%S.000Z") for x in runs.tolist()]
        versions = [f"1.{int(k // 20)}.0" for k in range(int(nth.max()) + 1)]
        digests = [f"sha256:{k:064x}" for k in range(int(r.max()) // 50 + 1)]

        counts = clause_counts[v]
        offsets = np.zeros(n + 1, dtype=np.int32)
        np.cumsum(counts, out=offsets[1:])
        starts = np.concatenate([[0], np.cumsum(clause_counts)[:-1]])
        flat_pos = np.repeat(starts[v], counts) + (np.arange(offsets[-1]) - np.repeat(offsets[:-1], counts))
        clause_ids = pa.ListArray.from_arrays(pa.array(offsets), _strings(clause_idx[flat_pos], clause_pool))

        name_arr = _strings(impl, impl_names)
        version_arr = _strings(nth, versions)
        prov = pa.MapArray.from_arrays(pa.array(np.arange(n + 1, dtype=np.int32)),
                                       _strings(np.zeros(n, dtype=np.int32), ["package"]), version_arr)
        implementation = pa.StructArray.from_arrays(
            [name_arr, _strings(impl, kinds), version_arr, prov], fields=list(schema.field("implementation").type))
        expected = np.where((outcome == OUTCOME_ORDER.index("xfail")) | (outcome == OUTCOME_ORDER.index("xpass")), 1, 0)
        table = pa.Table.from_arrays([
            pa.array(np.ones(n, dtype=np.int32)),
            _strings(run_idx, run_ids),
            _strings(run_idx, started),
            _strings(np.zeros(n, dtype=np.int32), ["0.1.0"]),
            _strings(r // 50, digests),
            _strings(spec_of[v], [s[0] for s in SPECS]),
            _strings(spec_of[v], [s[1] for s in SPECS]),
            clause_ids,
            _strings(level_of[v], list(LEVELS)),
            _strings(v, [f"tests/test_vectors.py::test_vector[{x}]" for x in vec_ids]),
            _strings(v, vec_ids),
            _strings(np.zeros(n, dtype=np.int32), ["stable"]),
            implementation,
            _strings(np.zeros(n, dtype=np.int32), ["pika 1.3.2"]),
            _strings(outcome, outcomes),
            _strings(expected, ["pass", "fail"]),
            _strings(outcome, messages),
            _strings(run_idx, started),
            pa.array(rng.random(n) * 0.05),
        ], schema=schema)
        pq.write_table(table, folder / f"part-{part:05d}.parquet", compression="snappy")
        part += 1
        run0 = run1
    return folder


def _spark_agg(spark, path: Path, conf: dict | None = None):
    from . import aggregate, model, read, session

    # As `build` does: listing the input decides on code generation.
    found = read.classify(spark, [str(path)])
    session.tune_for_input(spark, found.nbytes, conf)
    agg = aggregate.compute(read.read_results(spark, found))
    return model.build_report(agg, {}, generated="bench")


def _duckdb_agg(path: Path):
    import duckdb

    from . import baseline_duckdb, model

    con = duckdb.connect()
    try:
        agg = baseline_duckdb.compute(con, str(path / "*.parquet"))
    finally:
        con.close()
    return model.build_report(agg, {}, generated="bench")


def _timed(fn, *args):
    t = time.perf_counter()
    value = fn(*args)
    return time.perf_counter() - t, value


def run(sizes: list[int], master: str | None = None, conf: dict | None = None, workdir: str | None = None,
        keep: bool = False, spark=None, out=print, warmup: bool = True) -> list[dict]:
    from . import session

    root = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="mqconform-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    results = []
    try:
        t_start, spark = _timed(lambda: spark or session.start(master, conf, app="mqconform-bench"))
        out(f"spark start-up: {t_start:.1f}s (master {spark.sparkContext.master}, "
            f"{spark.sparkContext.defaultParallelism} cores)")
        # Warm both engines on a tiny set so the first timed size does not pay for JIT and imports.
        if warmup:
            warm = generate(root / "warmup", 1000)
            _spark_agg(spark, warm, conf)
            _duckdb_agg(warm)
        out(f"{'records':>12} {'generate s':>10} {'spark s':>9} {'spark rec/s':>12} "
            f"{'duckdb s':>9} {'duckdb rec/s':>12} {'spark/duckdb':>12}  same report")
        for size in sizes:
            folder = root / f"results-{size}"
            t_gen, _ = _timed(generate, folder, size)
            t_spark, rep_spark = _timed(_spark_agg, spark, folder, conf)
            t_duck, rep_duck = _timed(_duckdb_agg, folder)
            same = rep_spark == rep_duck
            row = {"size": size, "generate_s": t_gen, "spark_s": t_spark, "duckdb_s": t_duck,
                   "spark_rows_per_s": size / t_spark, "duckdb_rows_per_s": size / t_duck,
                   # Throughput ratio: above 1 means Spark is faster.
                   "ratio": (size / t_spark) / (size / t_duck), "same_report": same,
                   "records_seen": rep_spark["totals"]["records"]}
            results.append(row)
            out(f"{size:>12,} {t_gen:>10.1f} {t_spark:>9.1f} {row['spark_rows_per_s']:>12,.0f} "
                f"{t_duck:>9.1f} {row['duckdb_rows_per_s']:>12,.0f} {row['ratio']:>12.2f}  {'yes' if same else 'NO'}")
            if not keep:
                shutil.rmtree(folder, ignore_errors=True)
    finally:
        if not keep and not workdir:
            shutil.rmtree(root, ignore_errors=True)
    return results
