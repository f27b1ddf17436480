"""`python -m reports cluster`: one workload command on standalone clusters of different layouts, and where its time went.

A layout WxC is W workers of C cores each, every worker in a network namespace of its own
(reports/bench/standalone.py). Per layout: a fresh cluster, the workload run once from this host (the driver),
then the cluster removed. The workload is one command with placeholders ({python}, {master}, {store},
{out}, {clauses}, {shared}); by default the heavy history read: `reports build --as-of 0` over a store of
--records synthetic records, which recomputes every aggregate from all records. The store is made
once, locally, under the shared folder (or taken from --store, which must be there already).

Per layout it prints: the workload's wall time; the executors and cores Spark got; from the driver's
event log (reports/bench/spark_events.py) the application's span split into driver-only time and the time
tasks ran, the tasks' summed run and CPU time, how many ran at once, and each executor's share; and
the CPU seconds the driver's processes and the cluster's processes (executors, workers) used, read
from /proc every quarter second (the last quarter second of an exiting process is missed).

The driver's Spark settings for the measurement come from a spark-defaults.conf of the harness's
(SPARK_CONF_DIR): the event log, the executors' memory, and the rule that the application starts
only once every worker has given it an executor, so that no layout starts its first stage short.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from reports.bench import spark_events
from reports.bench.measure import process_tree
from reports.bench.netns import available

WORKLOAD = ("{python} -m reports build --as-of 0 --store {store} --out {out} --master {master} "
            "--registry none --clauses {clauses}")
PLACEHOLDERS = ("python", "master", "store", "out", "clauses", "shared")
TICK = os.sysconf("SC_CLK_TCK")
GROUP_GRACE_S = 30.0


def _layouts(text: str) -> list[tuple[int, int]]:
    out = []
    for part in text.split(","):
        m = re.fullmatch(r"\s*([1-9]\d*)x([1-9]\d*)\s*", part)
        if not m:
            raise argparse.ArgumentTypeError(f"a layout is WORKERSxCORES (1x1, 2x1, 1x2), got {part!r}")
        out.append((int(m[1]), int(m[2])))
    return out


def _workload(text: str) -> str:
    try:
        names = {f[1] for f in __import__("string").Formatter().parse(text) if f[1] is not None}
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--workload: {exc}") from None
    if unknown := names - set(PLACEHOLDERS):
        raise argparse.ArgumentTypeError(f"--workload: unknown placeholder(s) {sorted(unknown)}; "
                                         f"known: {', '.join('{' + p + '}' for p in PLACEHOLDERS)}")
    if "master" not in names:
        raise argparse.ArgumentTypeError("--workload must name {master}: the command runs on the cluster")
    return text


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m reports cluster", description="One workload command on Spark standalone clusters of different layouts, and where its time went.",
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="The default workload:\n  " + WORKLOAD)
    p.add_argument("--layouts", type=_layouts, default=_layouts("1x1,2x1,1x2"), metavar="WxC,...",
                   help="clusters to run the workload on, in order (default 1x1,2x1,1x2)")
    p.add_argument("--records", type=int, default=1_000_000, metavar="N",
                   help="make a store of N synthetic records for the default workload (default 10^6)")
    p.add_argument("--store", default=None, metavar="DIR",
                   help="an existing store under --workdir's shared/ folder instead of making one")
    p.add_argument("--workload", type=_workload, default=WORKLOAD, metavar="CMD",
                   help="the command to measure, with placeholders (see below)")
    p.add_argument("--workdir", default=None, metavar="DIR",
                   help="where the shared folder, the logs and the results go (default: a temp dir, removed)")
    p.add_argument("--executor-memory", default="2g", metavar="SIZE", help="per core of a worker (default 2g)")
    p.add_argument("--timeout-min", type=float, default=60.0, metavar="MIN",
                   help="stop a workload, or the making of the store, after this long (default 60)")
    p.add_argument("--keep", action="store_true", help="keep the temp dir")
    return p


# ---- CPU seconds of processes, from /proc --------------------------------------------------------------

def _cpu_ticks(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime, stime
    except (OSError, ValueError, IndexError):
        return None


class CpuMeter:
    """CPU seconds used since start() by each named group of processes (a group: a function giving its pids
    now); a process seen before start() counts from what it had then, one seen later from zero."""

    def __init__(self, groups: dict, interval_s: float = 0.25):
        self.groups, self.interval_s = groups, interval_s
        self.base: dict[int, int] = {}
        self.last: dict[str, dict[int, int]] = {g: {} for g in groups}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        for fn in self.groups.values():
            for pid in fn():
                if (t := _cpu_ticks(pid)) is not None:
                    self.base[pid] = t
        self._thread.start()

    def _sample(self) -> None:
        for name, fn in self.groups.items():
            for pid in fn():
                if (t := _cpu_ticks(pid)) is not None:
                    self.last[name][pid] = t

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._sample()

    def stop(self) -> dict[str, float]:
        self._stop.set()
        self._thread.join(timeout=10)
        return {name: sum(t - self.base.get(pid, 0) for pid, t in seen.items()) / TICK
                for name, seen in self.last.items()}


# ---- one layout ----------------------------------------------------------------------------------------

def _spark_defaults(folder: Path, events: Path, executor_memory: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    events.mkdir(parents=True, exist_ok=True)
    (folder / "spark-defaults.conf").write_text("\n".join([
        "spark.eventLog.enabled true",
        f"spark.eventLog.dir {events.as_uri()}",
        "spark.eventLog.compress false",
        f"spark.executor.memory {executor_memory}",
        "spark.scheduler.minRegisteredResourcesRatio 1.0",
        "spark.scheduler.maxRegisteredResourcesWaitingTime 60s",
    ]) + "\n", encoding="utf-8")
    return folder


def _mem_times(size: str, k: int) -> str:
    m = re.fullmatch(r"(\d+)([kmgt]?)", size.strip().lower())
    if not m:
        raise ValueError(f"--executor-memory: not a size like 2g or 1536m: {size!r}")
    return f"{int(m[1]) * k}{m[2]}"


def _wait_group(pgid: int, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)


def run_workload(cmd: list[str], env: dict, log: Path, timeout_s: float, on_start=None) -> tuple[int | None, float]:
    """Run cmd in a process group of its own, output to `log`; the whole group is killed past timeout_s and
    on any exception (Ctrl-C). on_start(pid) is called once it runs. Returns its exit code (None: stopped
    at the time limit) and its wall time (until the command's own process ended)."""
    started = time.monotonic()
    rc = None
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            if on_start:
                on_start(proc.pid)
            proc.wait(timeout=timeout_s)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            pass
        finally:
            ended = time.monotonic()
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
            # The JVM outlives its Python for a moment (it writes the event log's end then): it is given
            # GROUP_GRACE_S to end, as the rest of the group; what is left then is killed.
            _wait_group(proc.pid, GROUP_GRACE_S if rc is not None else 0)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    return rc, ended - started


def measure_layout(root: Path, shared: Path, workers: int, cores: int, workload: str, fields: dict,
                   executor_memory: str, timeout_s: float) -> dict:
    from reports.bench.standalone import Cluster

    name = f"{workers}x{cores}"
    here = root / name
    shutil.rmtree(here, ignore_errors=True)
    out = shared / f"out-{name}"
    shutil.rmtree(out, ignore_errors=True)
    conf = _spark_defaults(here / "conf", here / "events", _mem_times(executor_memory, cores))
    env = {**os.environ, "SPARK_CONF_DIR": str(conf)}
    env.pop("SPARK_LOCAL_IP", None)
    # A worker offers exactly its executor's memory (its own daemon's heap is apart).
    worker_memory = _mem_times(executor_memory, cores)
    row: dict = {"layout": name, "workers": workers, "cores_per_worker": cores}
    with Cluster(shared, here / "logs", workers=workers, cores=cores, memory=worker_memory) as cluster:
        cmd = shlex.split(workload.format(**fields, master=cluster.master, out=str(out)))
        row["command"] = shlex.join(cmd)
        driver: list[int] = []
        meter = CpuMeter({"driver": lambda: process_tree(driver[0]) if driver else [],
                          "cluster": lambda: [p for ns in cluster.workers for p in ns.pids()]})
        meter.start()
        try:
            rc, wall = run_workload(cmd, env, here / "workload.log", timeout_s, on_start=driver.append)
        finally:
            cpu = meter.stop()
    row.update(rc=rc, wall_s=wall, driver_cpu_s=cpu["driver"], cluster_cpu_s=cpu["cluster"])
    try:
        row.update(spark_events.read(here / "events"))
    except (OSError, ValueError) as exc:
        row["events_error"] = str(exc)
    return row



# ---- the store, the table, the command -------------------------------------------------------------------

def make_store(root: Path, shared: Path, records: int, clauses: Path, timeout_s: float, out=print) -> Path:
    """A store of `records` synthetic records under the shared folder, built locally (reused when there)."""
    from reports.bench.synthetic import generate

    hist = shared / f"hist-{records}"
    if (hist / "store").is_dir():
        out(f"store: reusing {hist / 'store'}")
        return hist / "store"
    results = root / f"results-{records}"
    t0 = time.monotonic()
    generate(results, records)
    cmd = [sys.executable, "-m", "reports", "build", "--results", str(results), "--out", str(hist),
           "--registry", "none", "--clauses", str(clauses)]
    rc, wall = run_workload(cmd, dict(os.environ), root / f"store-{records}.log", timeout_s)
    shutil.rmtree(results, ignore_errors=True)
    if rc != 0:
        raise RuntimeError(f"making the store failed (exit {rc}): see {root / f'store-{records}.log'}")
    out(f"store: {records:,} records in {hist / 'store'} ({time.monotonic() - t0:.0f}s, build {wall:.0f}s)")
    return hist / "store"


def _share(row: dict) -> str:
    return "/".join(f"{100 * v:.0f}%" for v in row.get("task_share", {}).values()) or "-"


def table(rows: list[dict], out=print) -> None:
    out("| layout | executors (cores) | exit | wall s | app s | driver only s | tasks busy s | task time s "
        "| task CPU s | tasks at once | task time per executor | driver CPU s | cluster CPU s |")
    out("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
    for r in rows:
        if "app_s" not in r:
            out(f"| {r['layout']} | - | {r['rc']} | {r['wall_s']:.1f} |" + " - |" * 7
                + f" {r['driver_cpu_s']:.1f} | {r['cluster_cpu_s']:.1f} |")
            continue
        out(f"| {r['layout']} | {r['executors']} ({r['cores']}) | {r['rc']} | {r['wall_s']:.1f} | {r['app_s']:.1f} "
            f"| {r['driver_only_s']:.1f} | {r['busy_s']:.1f} | {r['task_s']:.1f} | {r['task_cpu_s']:.1f} "
            f"| {r['concurrency']:.2f} | {_share(r)} | {r['driver_cpu_s']:.1f} | {r['cluster_cpu_s']:.1f} |")
    for r in rows:
        if "events_error" in r:
            out(f"{r['layout']}: no figures from the event log: {r['events_error']}")
    ok = {r["layout"]: r for r in rows if r["rc"] == 0}
    if "1x1" in ok:
        for name, r in ok.items():
            if name != "1x1":
                out(f"1x1 / {name}: wall {ok['1x1']['wall_s'] / r['wall_s']:.2f}"
                    + (f", tasks busy {ok['1x1']['busy_s'] / r['busy_s']:.2f}"
                       if r.get("busy_s") and ok["1x1"].get("busy_s") else ""))


class Stopped(Exception):
    """SIGTERM: unwinds like Ctrl-C, so that every cluster is removed."""


def _on_term(signum, frame):
    raise Stopped(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if why := available():
        print(f"reports cluster: {why}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _on_term)
    root = Path(args.workdir).resolve() if args.workdir else Path(tempfile.mkdtemp(prefix="mqconform-cluster-"))
    shared = root / "shared"
    shared.mkdir(parents=True, exist_ok=True)
    clauses = shared / "no-clauses"
    clauses.mkdir(exist_ok=True)
    rows: list[dict] = []
    try:
        if args.store:
            store = Path(args.store).resolve()
            if not store.is_dir() or shared not in store.parents:
                print(f"reports cluster: --store {store}: not a folder under {shared}, which every worker sees",
                      file=sys.stderr)
                return 2
        elif "{store}" in args.workload:
            store = make_store(root, shared, args.records, clauses, args.timeout_min * 60)
        else:
            store = shared
        fields = {"python": sys.executable, "store": str(store), "clauses": str(clauses), "shared": str(shared)}
        for workers, cores in args.layouts:
            print(f"{workers}x{cores}: starting {workers} worker(s) of {cores} core(s) ...", flush=True)
            rows.append(measure_layout(root, shared, workers, cores, args.workload, fields, args.executor_memory,
                                       args.timeout_min * 60))
            if rows[-1]["rc"] != 0:
                print(f"{workers}x{cores}: the workload exited {rows[-1]['rc']}: see {root / f'{workers}x{cores}'}"
                      "/workload.log", file=sys.stderr)
        print(f"workload: {rows[0]['command'] if rows else args.workload}")
        table(rows)
        (root / "cluster-bench.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
        if args.workdir or args.keep:
            print(f"results: {root / 'cluster-bench.json'}")
        return 0 if all(r["rc"] == 0 for r in rows) else 1
    except (KeyboardInterrupt, Stopped):
        print("reports cluster: stopped; the clusters are removed", file=sys.stderr)
        return 130
    finally:
        if not args.workdir and not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
