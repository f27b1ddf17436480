"""The state tables of a store of synthetic.generate's records, from what the generator knows.

STORE/runs and STORE/flaky are defined by reports/engine/aggregate.py (run_counts; per_run_vectors and
fold_flaky). Here they are computed from the generator's draws instead of read from its records, so
that a bulk-loaded store of 10^8 records gets its state without hours of Spark:

  * runs: per run (one implementation each), its metadata and how many records of each outcome;
  * flaky: per implementation x vector, its runs in time order; a consecutive pair counts when the
    implementation version and the vectors digest are the same in both runs, a change is a counted
    pair whose outcome class (outcomes.CLASS_OF) differs; and the last run's time, id, class, version
    and digest. Each record here is the only one of its (implementation, vector, run), so the class of
    a run is the class of its record's outcome.

Chunks of runs are summed up side by side (`summary`: per implementation x vector, the chunk's first
and last run and class and the pairs and changes inside it) and joined in run order (`join`): the pair
across two chunks is the last run of the one and the first of the next.
"""
from __future__ import annotations

import datetime as dt

import numpy as np

from ..rows.outcomes import CLASS_OF, OUTCOME_ORDER
from . import synthetic

CLASSES = tuple(dict.fromkeys(CLASS_OF[o] for o in OUTCOME_ORDER))
CLASS_OF_OUTCOME = np.array([CLASSES.index(CLASS_OF[o]) for o in OUTCOME_ORDER], dtype=np.int8)
START_US = int(synthetic.START.timestamp()) * 1_000_000
HOUR_US = 3600 * 1_000_000


def _ver(g: dict, runs):
    return synthetic.run_version(runs // g["n_impl"])


def summary(size: int, seed: int, run0: int, run1: int, r, v, outcome) -> dict:
    """What the state needs of the records (r, v, outcome: synthetic.draw) of runs run0..run1-1.

    Arrays per implementation x vector (rows: implementation, columns: vector; -1 where the chunk has
    no record of it): first and last run number and their classes; the pairs and changes between
    consecutive runs inside the chunk. And per run of the chunk, its records of each outcome."""
    g = synthetic._plan(size, seed)
    n_vec, n_impl = g["n_vec"], g["n_impl"]
    m = run1 - run0
    grid = np.full((m, n_vec), -1, dtype=np.int8)   # class per run of the chunk x vector
    grid[r - run0, v] = CLASS_OF_OUTCOME[outcome]
    runs = np.arange(run0, run1)

    pairs = np.zeros((n_impl, n_vec), dtype=np.int64)
    changes = np.zeros((n_impl, n_vec), dtype=np.int64)
    if m > n_impl:  # the run before a run of the same implementation is n_impl runs earlier
        prev, cur = grid[:-n_impl], grid[n_impl:]
        same = (_ver(g, runs[n_impl:]) == _ver(g, runs[:-n_impl])) & (
            synthetic.run_digest(runs[n_impl:]) == synthetic.run_digest(runs[:-n_impl]))
        pair = (prev >= 0) & (cur >= 0) & same[:, None]
        keys = ((runs[n_impl:] % n_impl)[:, None] * n_vec + np.arange(n_vec)).ravel()
        pairs += np.bincount(keys, pair.ravel(), n_impl * n_vec).astype(np.int64).reshape(n_impl, n_vec)
        changes += np.bincount(keys, (pair & (prev != cur)).ravel(), n_impl * n_vec).astype(np.int64).reshape(
            n_impl, n_vec)

    impls = np.arange(n_impl)
    j_first = (impls - run0) % n_impl                          # the chunk's first row of each implementation
    present = j_first < m
    j_last = np.where(present, j_first + (m - 1 - j_first) // n_impl * n_impl, 0)
    cols = np.arange(n_vec)
    first_cls = np.where(present[:, None], grid[np.minimum(j_first, m - 1)][:, cols], -1)
    last_cls = np.where(present[:, None], grid[j_last][:, cols], -1)
    first_run = np.where(first_cls >= 0, (run0 + j_first)[:, None], -1)
    last_run = np.where(last_cls >= 0, (run0 + j_last)[:, None], -1)
    # only the generator's very last run is cut short: a vector missing there has its last run before it
    cut = present[:, None] & (last_cls < 0) & ((j_last - n_impl) >= j_first)[:, None]
    before = np.maximum(j_last - n_impl, 0)
    last_cls = np.where(cut, grid[before][:, cols], last_cls)
    last_run = np.where(cut, (run0 + before)[:, None], last_run)
    counts = np.bincount((r - run0) * len(OUTCOME_ORDER) + outcome, minlength=m * len(OUTCOME_ORDER))
    return {"run0": run0, "first_run": first_run, "first_cls": first_cls, "last_run": last_run,
            "last_cls": last_cls, "pairs": pairs, "changes": changes,
            "counts": counts.reshape(m, len(OUTCOME_ORDER)).astype(np.int64)}


def chunk_summary(size: int, seed: int, part: int, run0: int, run1: int) -> dict:
    """summary() of one chunk of generate(size, seed), drawn again (the same draws as its records)."""
    return summary(size, seed, run0, run1, *synthetic.draw(size, seed, part, run0, run1))


def join(size: int, seed: int, summaries: list[dict]) -> dict:
    """The summaries of consecutive chunks, in run order, as one (last run, pairs and changes per cell;
    counts per run)."""
    g = synthetic._plan(size, seed)
    acc = None
    for s in summaries:
        if acc is None:
            acc = {k: s[k].copy() if isinstance(s[k], np.ndarray) else s[k] for k in s}
            continue
        link = (acc["last_run"] >= 0) & (s["first_run"] >= 0)
        link &= _ver(g, acc["last_run"]) == _ver(g, s["first_run"])
        link &= synthetic.run_digest(acc["last_run"]) == synthetic.run_digest(s["first_run"])
        acc["pairs"] += s["pairs"] + link
        acc["changes"] += s["changes"] + (link & (acc["last_cls"] != s["first_cls"]))
        later = s["last_run"] >= 0
        acc["last_run"] = np.where(later, s["last_run"], acc["last_run"])
        acc["last_cls"] = np.where(later, s["last_cls"], acc["last_cls"])
        acc["counts"] = np.concatenate([acc["counts"], s["counts"]])
    return acc


def state(size: int, seed: int = 7, chunk_rows: int = 1_000_000, workers: int = 1) -> tuple[list[tuple], list[tuple]]:
    """(rows of STORE/runs, rows of STORE/flaky) of the records generate(size, seed, chunk_rows) writes,
    in the columns of aggregate.run_counts and aggregate.fold_flaky (RUNS_COLUMNS, FLAKY_COLUMNS)."""
    todo = synthetic.chunks(size, seed, chunk_rows)
    if workers <= 1 or len(todo) == 1:
        parts = [chunk_summary(size, seed, *c) for c in todo]
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            parts = list(pool.map(chunk_summary, *zip(*[(size, seed, *c) for c in todo], strict=True)))
    return rows(size, seed, join(size, seed, parts))


RUNS_COLUMNS = ("impl", "run_id", "run_us", "run_started", "kind", "version", "vectors_digest", "suite_version",
                "date", *(f"n_{o}" for o in OUTCOME_ORDER))
FLAKY_COLUMNS = ("impl", "vector_id", "pairs", "changes", "run_us", "run_id", "cls", "version", "digest")


def _impl(i: int) -> str:
    return f"impl-{i:02d}"


def rows(size: int, seed: int, joined: dict) -> tuple[list[tuple], list[tuple]]:
    g = synthetic._plan(size, seed)
    n_impl = g["n_impl"]
    runs = []
    for x, counts in enumerate(joined["counts"].tolist()):
        runs.append((_impl(x % n_impl), synthetic.run_id_of(seed, x), START_US + x * HOUR_US, synthetic.run_started(x),
                     "codec" if x % n_impl % 2 == 0 else "broker", synthetic.version_name(int(_ver(g, x))),
                     synthetic.digest_name(int(synthetic.run_digest(x))), "0.1.0",
                     (synthetic.START + dt.timedelta(days=x // 24)).date(), *counts))
    flaky = []
    last_run, last_cls = joined["last_run"], joined["last_cls"]
    for i, v in zip(*np.nonzero(last_run >= 0), strict=True):
        x = int(last_run[i, v])
        flaky.append((_impl(int(i)), g["vec_ids"][v], int(joined["pairs"][i, v]), int(joined["changes"][i, v]),
                      START_US + x * HOUR_US, synthetic.run_id_of(seed, x), CLASSES[last_cls[i, v]],
                      synthetic.version_name(int(_ver(g, x))), synthetic.digest_name(int(synthetic.run_digest(x)))))
    return runs, flaky
