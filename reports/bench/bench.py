"""`reports bench`: full builds on Spark against a single-process DuckDB baseline, and appends.

For each size, synthetic results (reports/bench/synthetic.py) are written straight to Parquet with pyarrow,
a chunk at a time (10^7 records as Python dicts would not fit comfortably).
Then each engine makes a full build as a command of its own (`reports build`:
check, store as Delta, state tables, report; `reports.baseline.baseline_duckdb`: the
same store as Parquet and the same report), timed whole, with the peak resident
memory of its process tree (reports/bench/measure.py); a build past the memory cap or the time limit is
stopped and said so. Both reports are compared. Last, one run of 2,000 records
is appended (`--accumulate`) to an empty store and to the largest history, and
once more (nothing to add). Commands run under `nice -n 10`.
"""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from .measure import measure
from .synthetic import append_run, diff_runs, generate


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
        rd = measure([*_python(), "reports.baseline.baseline_duckdb", str(folder / "*.parquet"), str(duck_out),
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


def _history(sizes, root, clauses, master, conf, cap, cap_gib, timeout_s, keep, out, results) -> None:
    """Per size: a bulk-loaded store (reports/bench/bulk_store.py; setup, timed apart), then the report read
    from it by each engine, cold (every record; Spark makes the state tables) and warm (state tables
    at the current version, plus the latest runs' partitions), and `reports diff` of two runs. When
    Spark's cold read does not finish, the warm reads get the generator's state tables (said so)."""
    out("")
    out(f"the report read from a store of N records (reports build --from-store; reports.baseline.baseline_duckdb "
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
        conv = measure([*_python(), "reports.bench.bulk_store", str(store), "--convert-only", *_flags(master, conf)],
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
        duck = [*_python(), "reports.baseline.baseline_duckdb", "--from-store"]
        # the first Spark read finds no state tables and makes them from all records; the second finds them
        # at the current version. DuckDB's warm read needs them (it does not fold). When the cold read did
        # not finish, the warm reads get the state tables the generator's draws give (reports/bench/bench_truth.py,
        # equal to Spark's: tests/reports/test_reports_truth.py), written by reports.bench.bulk_store.
        row["spark_cold"] = measure([*spark, str(outs["spark-cold"])], cap, timeout_s)
        row["duckdb_cold"] = measure([*duck, "cold", str(store), str(outs["duckdb-cold"]), duck_mem], cap, timeout_s)
        row["state"] = None
        if row["spark_cold"]["rc"] != 0:
            row["state"] = measure([*_python(), "reports.bench.bulk_store", str(store), str(size), "--state-only",
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
