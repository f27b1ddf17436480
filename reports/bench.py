"""`reports bench`: full builds on Spark against a single-process DuckDB baseline, and appends.

For each size, synthetic results are written straight to Parquet with pyarrow,
a chunk at a time (10^7 records as Python dicts would not fit comfortably).
Then each engine makes a full build as a command of its own (`reports build`:
check, store as Delta, state tables, report; `reports.baseline_duckdb`: the
same store as Parquet and the same report), timed whole, with the peak resident
memory of its process tree; a build past the memory cap or the time limit is
stopped and said so. Both reports are compared. Last, one run of 2,000 records
is appended (`--accumulate`) to an empty store and to the largest history, and
once more (nothing to add). Commands run under `nice -n 10`.
"""
from __future__ import annotations

import datetime as dt
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from fixtures.verdict.levels import LEVEL_ORDER

from .outcomes import OUTCOME_ORDER
from .schema import arrow_schema

LEVELS = np.array(LEVEL_ORDER)
LEVEL_P = [0.5, 0.1, 0.2, 0.05, 0.15]   # of each level, in LEVEL_ORDER
# Base outcome of a vector on an implementation, in OUTCOME_ORDER.
BASE_P = [0.04, 0.01, 0.02, 0.01, 0.03, 0.04, 0.85]
SPECS = (("ce-amqp", "1.0.3-wip"), ("ce-rabbitmq", "1.0.2-wip"), ("rabbitmq-address@4.0", "4.0"))
# Runs are an hour apart from START: 10^8 records (10^5 runs) end in 2011, so that every generated run is
# in the past, as `reports build`'s trust check (reports/trust.py) requires of a run it stores.
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


# ---- measuring a whole command: wall time and the peak resident memory of its process tree -----------

def process_tree(pid: int) -> list[int]:
    """`pid` and all its descendants, from /proc (the processes alive now)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat", "rb") as f:
                    ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(d))
            except (OSError, ValueError, IndexError):
                continue
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def _tree_rss(pid: int) -> int:
    """Bytes resident in `pid` and all its descendants (from /proc; 0 once gone)."""
    total = 0
    for p in process_tree(pid):
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            pass
    return total


def measure(cmd: list[str], cap_bytes: int, timeout_s: float, env: dict | None = None) -> dict:
    """Run `cmd` niced in a process group of its own; stop it (the whole group) past cap_bytes resident
    or timeout_s. Returns wall_s, peak_bytes, rc, stopped (None, "memory" or "time") and its output."""
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, env={**os.environ, **(env or {})})
    peak, stopped = 0, None
    output: list[str] = []
    reader = threading.Thread(target=lambda: output.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        while proc.poll() is None:
            peak = max(peak, _tree_rss(proc.pid))
            if peak > cap_bytes:
                stopped = "memory"
            elif time.monotonic() - started > timeout_s:
                stopped = "time"
            if stopped:
                os.killpg(proc.pid, signal.SIGKILL)
                break
            time.sleep(0.2)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        reader.join(timeout=10)
        try:  # a JVM left behind by a killed driver is in the same group
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return {"wall_s": time.monotonic() - started, "peak_bytes": peak, "rc": proc.returncode,
            "stopped": stopped, "output": "".join(output)}


def _report(out: Path) -> dict | None:
    f = out / "compliance.json"
    if not f.is_file():
        return None
    rep = json.loads(f.read_text(encoding="utf-8"))
    rep.pop("generated", None)
    return rep


def _python() -> list[str]:
    return ["nice", "-n", "10", sys.executable, "-m"]


def _spark_cmd(results: Path, out: Path, master, conf: dict, clauses: Path, accumulate: bool = False) -> list[str]:
    # synthetic records name specs, clauses and vectors of no registry
    cmd = [*_python(), "reports", "build", "--results", str(results), "--out", str(out), "--clauses", str(clauses),
           "--registry", "none"]
    if master:
        cmd += ["--master", master]
    for k, v in conf.items():
        cmd += ["--conf", f"{k}={v}"]
    return cmd + (["--accumulate"] if accumulate else [])


def _gib(n: int) -> str:
    return f"{n / 2**30:.1f}"


def _line(out, row: dict) -> None:
    def cell(r):
        if r["stopped"]:
            return f"stopped ({r['stopped']}) at {r['wall_s']:.0f}s, {_gib(r['peak_bytes'])} GiB"
        return f"{r['wall_s']:.1f}s, {_gib(r['peak_bytes'])} GiB" + ("" if r["rc"] == 0 else f", exit {r['rc']}")
    out(f"| {row['size']:,} | {cell(row['spark'])} | {cell(row['duckdb'])} | "
        f"{row['ratio']:.2f} | {row['same_report']} |" if row["ratio"] else
        f"| {row['size']:,} | {cell(row['spark'])} | {cell(row['duckdb'])} | - | {row['same_report']} |")
    for engine in ("spark", "duckdb"):   # a build that failed says why, below its line
        r = row[engine]
        if r["rc"] != 0 and not r["stopped"]:
            said = [ln for ln in r["output"].splitlines() if ln.strip() and "WARN" not in ln][-5:]
            out(f"  {engine} at {row['size']:,} exited {r['rc']}:" + "".join(f"\n    {ln[:300]}" for ln in said))


def run(sizes: list[int], master: str | None = None, conf: dict | None = None, workdir: str | None = None,
        keep: bool = False, out=print, append_to: list[int] | None = None, append_rows: int = 2000,
        cap_gib: float = 12.0, timeout_s: float = 3600.0, history: list[int] | None = None) -> dict:
    """Full builds of each size by both engines, then appends of one run, then the report read from a
    store of each `history` size; returns every measurement."""
    conf = conf or {}
    root = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="mqconform-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    clauses = root / "no-clauses"
    clauses.mkdir(exist_ok=True)
    cap = int(cap_gib * 2**30)
    append_to = sorted(append_to if append_to is not None else [s for s in sizes if s <= 10_000_000][-1:])
    results: dict = {"builds": [], "appends": [], "history": []}
    try:
        if sizes:
            _full_builds(sizes, append_to, append_rows, root, clauses, master, conf, cap, cap_gib, timeout_s, keep,
                         out, results)
        if history:
            _history(history, root, clauses, master, conf, cap, cap_gib, timeout_s, keep, out, results)
    finally:
        if not keep and not workdir:
            shutil.rmtree(root, ignore_errors=True)
    return results


def _full_builds(sizes, append_to, append_rows, root, clauses, master, conf, cap, cap_gib, timeout_s, keep, out,
                 results) -> None:
    out(f"full builds (wall time of the whole command, JVM start included; peak resident memory of its "
        f"process tree; stopped past {cap_gib:g} GiB or {timeout_s / 60:.0f} min)")
    out("| records | Spark (reports build) | DuckDB (one process) | Spark/DuckDB time | same report |")
    out("| ---: | --- | --- | ---: | --- |")
    for size in sizes:
        folder = root / f"results-{size}"
        t0 = time.perf_counter()
        generate(folder, size)
        t_gen = time.perf_counter() - t0
        spark_out, duck_out = root / f"spark-{size}", root / f"duckdb-{size}"
        rs = measure(_spark_cmd(folder, spark_out, master, conf, clauses), cap, timeout_s)
        rd = measure([*_python(), "reports.baseline_duckdb", str(folder / "*.parquet"), str(duck_out),
                      f"{int(cap_gib * 0.8)}GB"], cap, timeout_s)
        a, b = _report(spark_out) if rs["rc"] == 0 else None, _report(duck_out) if rd["rc"] == 0 else None
        row = {"size": size, "generate_s": t_gen, "spark": rs, "duckdb": rd,
               "ratio": rs["wall_s"] / rd["wall_s"] if rs["rc"] == 0 and rd["rc"] == 0 else None,
               "same_report": "yes" if a is not None and a == b else ("-" if a is None or b is None else "NO")}
        results["builds"].append(row)
        _line(out, row)
        if not keep:
            shutil.rmtree(duck_out, ignore_errors=True)
            if size not in append_to:
                shutil.rmtree(spark_out, ignore_errors=True)
            shutil.rmtree(folder, ignore_errors=True)
    for size in append_to:
        history = root / f"spark-{size}"
        if not (history / "store").is_dir():
            out(f"append to {size:,}: no history (its full build did not finish)")
            continue
        run_dir = append_run(root / f"append-{size}", size, append_rows)
        empty = root / f"append-empty-{size}"
        r_empty = measure(_spark_cmd(run_dir, empty, master, conf, clauses, accumulate=True), cap, timeout_s)
        r_hist = measure(_spark_cmd(run_dir, history, master, conf, clauses, accumulate=True), cap, timeout_s)
        r_again = measure(_spark_cmd(run_dir, history, master, conf, clauses, accumulate=True), cap, timeout_s)
        row = {"history": size, "rows": append_rows, "empty": r_empty, "onto_history": r_hist, "again": r_again}
        results["appends"].append(row)
        out(f"append one run of {append_rows:,} records (reports build --accumulate, whole command):")
        for name, r in (("to an empty store", r_empty), (f"to a store of {size:,}", r_hist),
                        ("the same run again (idempotent)", r_again)):
            inner = [ln for ln in r["output"].splitlines() if ln.startswith("reports build:")]
            out(f"  {name}: {r['wall_s']:.1f}s, {_gib(r['peak_bytes'])} GiB, exit {r['rc']}"
                + (f"  [{inner[-1][len('reports build: '):]}]" if inner else ""))
        if r_empty["rc"] == 0 and r_hist["rc"] == 0:
            out(f"  onto history / onto empty: {r_hist['wall_s'] / r_empty['wall_s']:.2f}")
        if not keep:
            shutil.rmtree(empty, ignore_errors=True)
            shutil.rmtree(history, ignore_errors=True)


# ---- the history workload: the report read from a store of N records ----------------------------------

def _flags(master, conf: dict) -> list[str]:
    cmd = ["--master", master] if master else []
    for k, v in conf.items():
        cmd += ["--conf", f"{k}={v}"]
    return cmd


def _du(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def _cell(r: dict) -> str:
    if r is None:
        return "-"
    if r["stopped"]:
        return f"stopped ({r['stopped']}) at {r['wall_s']:.0f}s, {_gib(r['peak_bytes'])} GiB"
    return f"{r['wall_s']:.1f}s, {_gib(r['peak_bytes'])} GiB" + ("" if r["rc"] == 0 else f", exit {r['rc']}")


def _same(reports: dict[str, dict | None]) -> str:
    """'yes' when every report that was written is the same (and there are two or more), else which differ."""
    got = {k: v for k, v in reports.items() if v is not None}
    if len(got) < 2:
        return "-"
    first = next(iter(got.values()))
    differ = [k for k, v in got.items() if v != first]
    return "yes" + (f" ({len(got)} of {len(reports)})" if len(got) < len(reports) else "") if not differ else \
        "NO: " + ", ".join(differ) + f" differ from {next(iter(got))}"


def diff_runs(size: int, seed: int = 7) -> tuple[str, str]:
    """(oldest, newest) run id of impl-00 in generate(size, seed): the pair `reports diff` compares."""
    g = _plan(size, seed)
    return run_id_of(seed, 0), run_id_of(seed, (g["n_runs"] - 1) // g["n_impl"] * g["n_impl"])


def _history(sizes, root, clauses, master, conf, cap, cap_gib, timeout_s, keep, out, results) -> None:
    """Per size: a bulk-loaded store (reports/bulk_store.py; setup, timed apart), then the report read
    from it by each engine, cold (every record; Spark makes the state tables) and warm (state tables
    at the current version, plus the latest runs' partitions), and `reports diff` of two runs. When
    Spark's cold read does not finish, the warm reads get the generator's state tables (said so)."""
    out("")
    out(f"the report read from a store of N records (reports build --from-store; reports.baseline_duckdb "
        f"--from-store on the same Delta store; whole commands; stopped past {cap_gib:g} GiB or "
        f"{timeout_s / 60:.0f} min)")
    out("| records | Spark cold | DuckDB cold | Spark warm | DuckDB warm | diff | same report |")
    out("| ---: | --- | --- | --- | --- | --- | --- |")
    duck_mem = f"{int(cap / 2**30 * 0.8)}GB"
    for size in sizes:
        where = root / f"history-{size}"
        shutil.rmtree(where, ignore_errors=True)
        store = where / "store"
        t0 = time.perf_counter()
        generate(store / "records", size, by_date=True, workers=2)
        t_gen = time.perf_counter() - t0
        conv = measure([*_python(), "reports.bulk_store", str(store), "--convert-only", *_flags(master, conf)],
                       cap, timeout_s)
        setup = (f"  setup of {size:,}: generated in {t_gen:.1f}s (2 processes), converted to Delta in "
                 f"{conv['wall_s']:.1f}s (exit {conv['rc']}); {_du(store) / 2**20:,.0f} MiB on disk")
        row: dict = {"size": size, "generate_s": t_gen, "convert": conv}
        if conv["rc"] != 0:
            out(f"| {size:,} | - | - | - | - | - | - |")
            out(setup + "; the conversion failed:\n" + conv["output"][-2000:])
            results["history"].append(row)
            continue
        outs = {k: where / k for k in ("spark-cold", "duckdb-cold", "spark-warm", "duckdb-warm")}

        spark = [*_python(), "reports", "build", "--from-store", "--store", str(store), "--clauses", str(clauses),
                 "--registry", "none", *_flags(master, conf), "--out"]
        duck = [*_python(), "reports.baseline_duckdb", "--from-store"]
        # the first Spark read finds no state tables and makes them from all records; the second finds them
        # at the current version. DuckDB's warm read needs them (it does not fold). When the cold read did
        # not finish, the warm reads get the state tables the generator's draws give (reports/bench_truth.py,
        # equal to Spark's: tests/reports/test_reports_truth.py), written by reports.bulk_store.
        row["spark_cold"] = measure([*spark, str(outs["spark-cold"])], cap, timeout_s)
        row["duckdb_cold"] = measure([*duck, "cold", str(store), str(outs["duckdb-cold"]), duck_mem], cap, timeout_s)
        row["state"] = None
        if row["spark_cold"]["rc"] != 0:
            row["state"] = measure([*_python(), "reports.bulk_store", str(store), str(size), "--state-only",
                                    *_flags(master, conf)], cap, timeout_s)
            setup += (f"; warm read the generator's state tables (written in {row['state']['wall_s']:.1f}s, exit "
                      f"{row['state']['rc']}) because Spark's cold read did not finish")
        if row["state"] is None or row["state"]["rc"] == 0:   # else Spark's "warm" read would fold all records
            row["spark_warm"] = measure([*spark, str(outs["spark-warm"])], cap, timeout_s)
            row["duckdb_warm"] = measure([*duck, "warm", str(store), str(outs["duckdb-warm"]), duck_mem], cap,
                                         timeout_s)
        else:
            row["spark_warm"] = row["duckdb_warm"] = None
            setup += ":\n" + row["state"]["output"][-2000:]
        first, last = diff_runs(size)
        row["diff"] = measure([*_python(), "reports", "diff", first, last, "--store", str(store), "--json",
                               *_flags(master, conf)], cap, timeout_s)
        done = {k: row[k] is not None and row[k]["rc"] == 0 for k in ("spark_cold", "duckdb_cold", "spark_warm",
                                                                      "duckdb_warm")}
        reps = {k: _report(o) if done[k.replace("-", "_")] else None for k, o in outs.items()}
        row["same_report"] = _same(reps)
        results["history"].append(row)
        out(f"| {size:,} | {_cell(row['spark_cold'])} | {_cell(row['duckdb_cold'])} | {_cell(row['spark_warm'])} | "
            f"{_cell(row['duckdb_warm'])} | {_cell(row['diff'])} | {row['same_report']} |")
        ratios = [f"{mode} {row[f'spark_{mode}']['wall_s'] / row[f'duckdb_{mode}']['wall_s']:.1f}x"
                  for mode in ("cold", "warm") if done[f"spark_{mode}"] and done[f"duckdb_{mode}"]]
        only = [f"{mode}: Spark finishes, DuckDB does not ({row[f'duckdb_{mode}']['stopped'] or 'exit ' + str(row[f'duckdb_{mode}']['rc'])})"
                for mode in ("cold", "warm") if done[f"spark_{mode}"] and not done[f"duckdb_{mode}"]]
        out(setup + (f"; Spark/DuckDB time: {', '.join(ratios)}" if ratios else "") + "".join(f"; {o}" for o in only))
        if not keep:
            shutil.rmtree(where, ignore_errors=True)
