"""Synthetic result records for `reports bench`: N records written straight to Parquet with pyarrow,
a chunk at a time (10^7 records as Python dicts would not fit comfortably), and one run appended after
them. Deterministic from a seed: reports/bench/bench_truth.py computes a store's state tables from the same
draws (generate, draw, chunks and the run names below), and diff_runs names two of the runs.
"""
from __future__ import annotations

import datetime as dt
import functools
from pathlib import Path

import numpy as np

from fixtures.verdict.levels import LEVEL_ORDER

from ..rows.outcomes import OUTCOME_ORDER
from ..rows.schema import arrow_schema

LEVELS = np.array(LEVEL_ORDER)
LEVEL_P = [0.5, 0.1, 0.2, 0.05, 0.15]   # of each level, in LEVEL_ORDER
# Base outcome of a vector on an implementation, in OUTCOME_ORDER.
BASE_P = [0.04, 0.01, 0.02, 0.01, 0.03, 0.04, 0.85]
SPECS = (("ce-amqp", "1.0.3-wip"), ("ce-rabbitmq", "1.0.2-wip"), ("rabbitmq-address@4.0", "4.0"))
# Runs are an hour apart from START: 10^8 records (10^5 runs) end in 2011, so that every generated run is
# in the past, as `reports build`'s trust check (reports/rows/trust.py) requires of a run it stores.
START = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)


def _strings(indices: np.ndarray, values: list[str]):
    import pyarrow as pa

    return pa.DictionaryArray.from_arrays(pa.array(indices, pa.int32()), pa.array(values, pa.string())).cast(pa.string())


@functools.lru_cache(maxsize=2)
def _plan(size: int, seed: int) -> dict:
    """What every chunk of generate(size, seed) shares: the vectors, clauses, implementations and their
    base outcomes (drawn once, from `seed`)."""
    rng = np.random.default_rng(seed)
    n_vec = int(min(1000, max(10, size // 10)))
    n_impl = int(min(10, max(2, size // (n_vec * 3))))
    spec_of = np.arange(n_vec) % len(SPECS)
    vec_ids = [f"{SPECS[s][0]}.topic{v % 17}.vector-{v:05d}" for v, s in enumerate(spec_of)]
    level_of = rng.choice(len(LEVELS), size=n_vec, p=LEVEL_P)
    # One or two clauses per vector, from a pool half the size of the vectors.
    clause_lists = []
    for v in range(n_vec):
        k = 1 + (rng.random() < 0.3)
        clause_lists.append([f"{SPECS[spec_of[v]][0]}/{c % 40}.{c}/clause-{c}"
                             for c in sorted(set(rng.integers(0, max(n_vec // 2, 1), size=k)))])
    clause_flat = [c for cs in clause_lists for c in cs]
    clause_pool = sorted(set(clause_flat))
    position = {c: i for i, c in enumerate(clause_pool)}
    return {"n_vec": n_vec, "n_impl": n_impl, "n_runs": -(-size // n_vec), "spec_of": spec_of, "vec_ids": vec_ids,
            "level_of": level_of, "clause_counts": np.array([len(c) for c in clause_lists]),
            "clause_pool": clause_pool, "clause_idx": np.array([position[c] for c in clause_flat]),
            "base": rng.choice(len(OUTCOME_ORDER), size=(n_impl, n_vec), p=BASE_P),
            "flaky": rng.random((n_impl, n_vec)) < 0.03}


def run_id_of(seed: int, x: int) -> str:
    """The run id of the x-th run generate(..., seed) writes (run 0 is the oldest)."""
    return f"{(seed * 1_000_003 + x) * 2654435761 % (1 << 128):032x}"


def chunks(size: int, seed: int, chunk_rows: int) -> list[tuple[int, int, int]]:
    """(part, run0, run1) of each chunk generate(size, seed, chunk_rows) writes: whole runs, in order."""
    g = _plan(size, seed)
    runs_per_chunk = max(1, chunk_rows // g["n_vec"])
    return [(part, run0, min(g["n_runs"], run0 + runs_per_chunk))
            for part, run0 in enumerate(range(0, g["n_runs"], runs_per_chunk))]


def run_version(nth):
    """The implementation version of an implementation's nth run (an index into its version strings)."""
    return nth // 20


def run_digest(r):
    """The vectors digest of run r (an index into the digest strings)."""
    return r // 50


def version_name(k: int) -> str:
    return f"1.{k}.0"


def digest_name(k: int) -> str:
    return f"sha256:{k:064x}"


def run_started(x: int) -> str:
    return (START + dt.timedelta(hours=x)).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def draw(size: int, seed: int, part: int, run0: int, run1: int, rng=None):
    """(run number, vector index, outcome index in OUTCOME_ORDER) of each record of runs run0..run1-1 of
    generate(size, seed), in the order written: by run, then vector. `rng` is the chunk's generator (the
    outcomes are its first draws); without it a new one of the same seed draws the same outcomes."""
    g = _plan(size, seed)
    rng = np.random.default_rng([seed, part]) if rng is None else rng
    n_vec, n_impl, n_runs = g["n_vec"], g["n_impl"], g["n_runs"]
    runs = np.arange(run0, run1)
    r = np.repeat(runs, n_vec)
    v = np.tile(np.arange(n_vec), len(runs))
    if run1 == n_runs and n_runs * n_vec > size:  # the last run is cut to hit `size` exactly
        keep = len(r) - (n_runs * n_vec - size)
        r, v = r[:keep], v[:keep]
    impl = r % n_impl
    outcome = g["base"][impl, v].copy()
    fl = g["flaky"][impl, v]
    outcome[fl] = rng.choice([0, 1, 6], size=int(fl.sum()), p=[0.2, 0.1, 0.7])
    return r, v, outcome


def _chunk(size: int, seed: int, part: int, run0: int, run1: int):
    """(the records of runs run0..run1-1 as a pyarrow Table of the record schema, each row's run number)."""
    import pyarrow as pa

    g = _plan(size, seed)
    rng = np.random.default_rng([seed, part])
    n_impl = g["n_impl"]
    spec_of, clause_counts = g["spec_of"], g["clause_counts"]
    outcomes = list(OUTCOME_ORDER)
    messages = ["" if o == "pass" else f"synthetic {o}: expected the clause to hold, observed otherwise"
                for o in outcomes]
    impl_names = [f"impl-{i:02d}" for i in range(n_impl)]
    kinds = ["codec" if i % 2 == 0 else "broker" for i in range(n_impl)]
    schema = arrow_schema()

    runs = np.arange(run0, run1)
    r, v, outcome = draw(size, seed, part, run0, run1, rng)
    n = len(r)
    impl = r % n_impl
    nth = r // n_impl  # the how-manieth run of its implementation

    run_idx = r - run0
    run_ids = [run_id_of(seed, x) for x in runs.tolist()]
    started = [run_started(x) for x in runs.tolist()]
    versions = [version_name(k) for k in range(int(run_version(nth.max())) + 1)]
    digests = [digest_name(k) for k in range(int(run_digest(r.max())) + 1)]

    counts = clause_counts[v]
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    starts = np.concatenate([[0], np.cumsum(clause_counts)[:-1]])
    flat_pos = np.repeat(starts[v], counts) + (np.arange(offsets[-1]) - np.repeat(offsets[:-1], counts))
    clause_ids = pa.ListArray.from_arrays(pa.array(offsets), _strings(g["clause_idx"][flat_pos], g["clause_pool"]))

    name_arr = _strings(impl, impl_names)
    version_arr = _strings(run_version(nth), versions)
    prov = pa.MapArray.from_arrays(pa.array(np.arange(n + 1, dtype=np.int32)),
                                   _strings(np.zeros(n, dtype=np.int32), ["package"]), version_arr)
    implementation = pa.StructArray.from_arrays(
        [name_arr, _strings(impl, kinds), version_arr, prov, _strings(np.zeros(n, dtype=np.int32), ["product"])],
        fields=list(schema.field("implementation").type))
    expected = np.where((outcome == OUTCOME_ORDER.index("xfail")) | (outcome == OUTCOME_ORDER.index("xpass")), 1, 0)
    vec_ids = g["vec_ids"]
    table = pa.Table.from_arrays([
        pa.array(np.ones(n, dtype=np.int32)),
        _strings(run_idx, run_ids),
        _strings(run_idx, started),
        _strings(np.zeros(n, dtype=np.int32), ["0.1.0"]),
        _strings(run_digest(r), digests),
        _strings(spec_of[v], [s[0] for s in SPECS]),
        _strings(spec_of[v], [s[1] for s in SPECS]),
        clause_ids,
        _strings(g["level_of"][v], list(LEVELS)),
        # schema version 1 records: no per-clause outcomes (every clause has the row's outcome)
        *(pa.nulls(n, schema.field(name).type)
          for name in ("clause_outcomes", "failed_step", "error_kind", "notes", "set_by", "profile", "tally",
                       "witnesses")),
        _strings(v, [f"tests/test_vectors.py::test_vector[{x}]" for x in vec_ids]),
        _strings(v, vec_ids),
        _strings(np.zeros(n, dtype=np.int32), ["stable"]),
        implementation,
        _strings(np.zeros(n, dtype=np.int32), ["pika 1.3.2"]),
        pa.nulls(n, schema.field("protocol").type),   # a field of later schemas, absent here
        _strings(outcome, outcomes),
        _strings(expected, ["pass", "fail"]),
        _strings(outcome, messages),
        _strings(run_idx, started),
        pa.array(rng.random(n) * 0.05),
        pa.nulls(n, schema.field("shard").type),      # no run of these was split across machines
    ], schema=schema)
    return table, r


def _write_chunk(folder: Path, size: int, seed: int, part: int, run0: int, run1: int, by_date: bool) -> None:
    import pyarrow.parquet as pq

    table, r = _chunk(size, seed, part, run0, run1)
    if not by_date:
        pq.write_table(table, folder / f"part-{part:05d}.parquet", compression="snappy")
        return
    # One file per UTC date of the runs (runs are an hour apart from START, a midnight): the store's
    # partition folders, date=YYYY-MM-DD, the column itself in the folder name only, as Delta keeps it.
    day = r // 24
    cuts = np.flatnonzero(np.diff(day)) + 1
    for lo, hi in zip([0, *cuts.tolist()], [*cuts.tolist(), len(r)], strict=True):
        where = folder / f"date={(START + dt.timedelta(days=int(day[lo]))).date().isoformat()}"
        where.mkdir(exist_ok=True)
        pq.write_table(table.slice(lo, hi - lo), where / f"part-{part:05d}.parquet", compression="snappy")


def generate(folder: Path, size: int, seed: int = 7, chunk_rows: int = 1_000_000, by_date: bool = False,
             workers: int = 1) -> Path:
    """Write `size` synthetic records as Parquet files under `folder`; returns folder.

    Every run is one implementation running every vector; runs rotate over
    the implementations an hour apart. Versions change every 20 runs of an
    implementation and the vectors digest every 50 runs, so that flakiness
    has pairs to count and pairs to skip. A few percent of vector x
    implementation cells are flaky: they draw a new outcome every run.
    With `by_date` the files go to one folder per UTC date of their runs (date=YYYY-MM-DD), as the
    store's records table keeps them; `workers` processes write chunks side by side.
    """
    folder.mkdir(parents=True, exist_ok=True)
    todo = [(folder, size, seed, part, run0, run1, by_date) for part, run0, run1 in chunks(size, seed, chunk_rows)]
    if workers <= 1 or len(todo) == 1:
        for c in todo:
            _write_chunk(*c)
        return folder
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        for f in [pool.submit(_write_chunk, *c) for c in todo]:
            f.result()
    return folder


def append_run(folder: Path, history: int, rows: int = 2000, seed: int = 11) -> Path:
    """One new run of `rows` records after the history that generate(history) wrote: one run id, the
    implementations impl-00, impl-01, ... each running the same vectors, an hour after the last run."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n_vec = int(min(1000, max(10, history // 10)))
    when = (START + dt.timedelta(hours=-(-history // n_vec) + 1)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    run_id = f"{seed:08x}" + "f" * 24
    rng = np.random.default_rng(seed)
    recs = []
    for i in range(rows):
        v, impl = i % n_vec, i // n_vec
        s = v % len(SPECS)
        outcome = OUTCOME_ORDER[rng.choice(len(OUTCOME_ORDER), p=BASE_P)]
        vid = f"{SPECS[s][0]}.topic{v % 17}.vector-{v:05d}"
        recs.append({
            "schema_version": 1, "run_id": run_id, "run_started": when, "suite_version": "0.1.0",
            "vectors_digest": "sha256:appended", "spec": SPECS[s][0], "spec_revision": SPECS[s][1],
            "clause_ids": [f"{SPECS[s][0]}/{v % 40}.{v}/clause-{v}"], "level": "MUST",
            "test_id": f"tests/test_vectors.py::test_vector[{vid}]", "vector_id": vid, "vector_status": "stable",
            "implementation": {"name": f"impl-{impl:02d}", "kind": "codec" if impl % 2 == 0 else "broker",
                               "version": "9.0.0", "provenance": [("package", "9.0.0")]},
            "adapter": "pika 1.3.2", "outcome": outcome, "expected_outcome": "pass",
            "message": "" if outcome == "pass" else f"synthetic {outcome}", "started": when, "duration_s": 0.01})
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(recs, schema=arrow_schema()), folder / "run.parquet")
    return folder


def diff_runs(size: int, seed: int = 7) -> tuple[str, str]:
    """(oldest, newest) run id of impl-00 in generate(size, seed): the pair `reports diff` compares."""
    g = _plan(size, seed)
    return run_id_of(seed, 0), run_id_of(seed, (g["n_runs"] - 1) // g["n_impl"] * g["n_impl"])
