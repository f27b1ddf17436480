"""The cluster harness (reports/bench/standalone.py, reports/bench/bench_cluster.py): the event log's figures (pure code),
the command's checks, and a real cluster of two workers in two network namespaces that runs a tiny build
with an executor on each and leaves nothing behind, also when its block fails."""
from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reports.bench import bench_cluster, spark_events
from reports.bench.netns import available

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "reports" / "data" / "results.jsonl.gz"
why = available()


def ev(kind: str, **fields) -> str:
    return json.dumps({"Event": kind, **fields})


def task(executor: str, launch: int, finish: int, run_ms: int, cpu_ns: int = 0, failed: bool = False) -> str:
    return ev("SparkListenerTaskEnd",
              **{"Task Info": {"Launch Time": launch, "Finish Time": finish, "Executor ID": executor, "Failed": failed},
                 "Task Metrics": {"Executor Run Time": run_ms, "Executor CPU Time": cpu_ns}})


def executor(eid: str, host: str, cores: int) -> str:
    return ev("SparkListenerExecutorAdded", **{"Executor ID": eid, "Executor Info": {"Host": host, "Total Cores": cores}})


def test_event_log_splits_the_span_into_driver_only_and_task_time():
    lines = [ev("SparkListenerApplicationStart", Timestamp=1_000),
             executor("0", "10.0.0.3", 1), executor("1", "10.0.0.4", 1),
             # two overlapping tasks (2,000..4,000 busy), then one alone (6,000..7,000)
             task("0", 2_000, 4_000, 1_900, 1_500_000_000), task("1", 3_000, 4_000, 900, 800_000_000),
             task("0", 6_000, 7_000, 1_000, failed=True), "",
             ev("SparkListenerApplicationEnd", Timestamp=11_000)]
    s = spark_events.summarize(lines)
    assert s["complete"] and s["executors"] == 2 and s["cores"] == 2
    assert s["hosts"] == ["10.0.0.3", "10.0.0.4"]
    assert s["app_s"] == 10.0 and s["busy_s"] == 3.0 and s["driver_only_s"] == 7.0
    assert s["task_s"] == 3.8 and s["task_cpu_s"] == 2.3 and s["tasks"] == 3 and s["failed_tasks"] == 1
    assert s["concurrency"] == pytest.approx(3.8 / 3.0)
    assert s["task_share"] == {"0": pytest.approx(2.9 / 3.8), "1": pytest.approx(0.9 / 3.8)}


def test_event_log_without_an_end_ends_at_its_last_task_and_says_so():
    s = spark_events.summarize([ev("SparkListenerApplicationStart", Timestamp=0), task("0", 1_000, 5_000, 4_000)])
    assert not s["complete"] and s["app_s"] == 5.0 and s["driver_only_s"] == 1.0 and s["executors"] == 0


def test_event_log_errors_name_the_line():
    with pytest.raises(ValueError, match="line 2: not JSON"):
        spark_events.summarize([ev("SparkListenerApplicationStart", Timestamp=0), "{torn"])
    with pytest.raises(ValueError, match="no SparkListenerApplicationStart"):
        spark_events.summarize([task("0", 1, 2, 1)])


def test_layouts_and_workload_are_checked():
    assert bench_cluster._layouts("1x1, 2x1,1x2") == [(1, 1), (2, 1), (1, 2)]
    for bad in ("2", "0x1", "1x0", "2*1"):
        with pytest.raises(argparse.ArgumentTypeError, match="WORKERSxCORES"):
            bench_cluster._layouts(bad)
    with pytest.raises(argparse.ArgumentTypeError, match=r"unknown placeholder\(s\) \['mastr'\]"):
        bench_cluster._workload("x --master {mastr}")
    with pytest.raises(argparse.ArgumentTypeError, match="must name {master}"):
        bench_cluster._workload("x --out {out}")
    assert bench_cluster._workload(bench_cluster.WORKLOAD) == bench_cluster.WORKLOAD
    assert bench_cluster._mem_times("2g", 2) == "4g" and bench_cluster._mem_times("1536m", 1) == "1536m"


def leftovers(pid: int) -> list[str]:
    """Namespaces, links and processes of the clusters process `pid` made that are still there."""
    names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30).stdout
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True, timeout=30).stdout
    found = [ln for ln in names.splitlines() if f"mqc-cl{pid}-" in ln]
    found += [ln for ln in links.splitlines() if f"mqc{pid}" in ln or f"mqcb{pid}" in ln]
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, timeout=30).stdout
    found += [ln for ln in ps.splitlines() if "deploy.worker.Worker" in ln or "deploy.master.Master" in ln
              if f"10.232.{pid % 250 + 1}." in ln]
    return found


needs_namespaces = pytest.mark.skipif(why is not None and os.environ.get("CI") != "true", reason=f"cluster: {why}")


@needs_namespaces
def test_two_workers_in_two_namespaces_run_a_build_and_leave_nothing(tmp_path):
    if why:
        pytest.fail(f"cluster: {why}")
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "results.jsonl").write_bytes(gzip.decompress(SAMPLE.read_bytes()))
    workload = ("{python} -m reports build --results {shared}/results.jsonl --out {out} --master {master} "
                "--clauses {clauses} --conf spark.sql.shuffle.partitions=4")
    fields = {"python": sys.executable, "shared": str(shared), "clauses": str(ROOT / "vectors" / "clauses")}
    row = bench_cluster.measure_layout(tmp_path, shared, 2, 1, workload, fields, "1g", 600)
    log = (tmp_path / "2x1" / "workload.log").read_text(errors="replace")
    assert row["rc"] == 0, log
    # Spark got one executor on each worker, each at its own address, and both ran tasks.
    assert row["executors"] == 2 and row["cores"] == 2, row
    assert len(row["hosts"]) == 2 and all(h.startswith("10.232.") for h in row["hosts"]), row
    assert len(row["task_share"]) == 2 and row["failed_tasks"] == 0, row
    assert 0 < row["busy_s"] <= row["app_s"] <= row["wall_s"] and row["task_s"] > 0, row
    assert row["driver_cpu_s"] > 0 and row["cluster_cpu_s"] > 0, row
    assert json.loads((shared / "out-2x1" / "compliance.json").read_text())["totals"]["records"] > 0
    # Each worker, in its namespace, launched an executor of its own; none ran Python.
    worker_logs = [p.read_text(errors="replace") for p in sorted((tmp_path / "2x1" / "logs").glob("mqc-cl*-w*.log"))]
    assert len(worker_logs) == 2
    assert all("Asked to launch executor" in w and "Python worker" not in w for w in worker_logs)
    assert leftovers(os.getpid()) == []


@needs_namespaces
def test_a_failure_inside_the_cluster_block_removes_it(tmp_path):
    if why:
        pytest.fail(f"cluster: {why}")
    from reports.bench.standalone import Cluster, master_state

    with pytest.raises(RuntimeError, match="inside"):
        with Cluster(tmp_path, tmp_path / "logs", workers=2, memory="512m") as c:
            assert len({w.name for w in c.workers}) == 2
            assert [w["state"] for w in master_state(c.master_ns.ip)["workers"]] == ["ALIVE", "ALIVE"]
            raise RuntimeError("inside")
    assert leftovers(os.getpid()) == []


def test_event_log_is_read_from_a_file_or_from_a_rolling_log_in_order(tmp_path):
    lines = [ev("SparkListenerApplicationStart", Timestamp=0), executor("0", "h", 2), task("0", 1_000, 2_000, 1_000),
             ev("SparkListenerApplicationEnd", Timestamp=4_000)]
    single = tmp_path / "single"
    single.mkdir()
    (single / "app-1").write_text("\n".join(lines) + "\n")
    rolling = tmp_path / "rolling" / "eventlog_v2_app-1"
    rolling.mkdir(parents=True)
    (rolling / "appstatus_app-1.inprogress").write_text("")
    for i, chunk in ((10, lines[3:]), (2, lines[1:3]), (1, lines[:1])):  # 10 after 2: numbers, not names
        (rolling / f"events_{i}_app-1").write_text("\n".join(chunk) + "\n")
    for folder in (single, rolling.parent):
        s = spark_events.read(folder)
        assert s["complete"] and s["app_s"] == 4.0 and s["busy_s"] == 1.0 and s["cores"] == 2
    with pytest.raises(ValueError, match="one application"):
        spark_events.read(tmp_path / "nothing")
