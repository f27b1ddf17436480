"""Where a Spark application's time went, from its event log (spark.eventLog.enabled, one JSON object a line).

From the log alone: the application's span (its start to its end event), the executors it got and their
cores, and per task its launch and finish times, its executor, its run time and CPU time. The span splits
into the time at least one task ran somewhere ("tasks busy", the union of the tasks' intervals) and the
rest, when only the driver worked (planning, the Delta log, collecting results, writing the report);
the tasks' run time summed over the busy time is how many tasks ran at once on average.
"""
from __future__ import annotations

import json
from pathlib import Path


def _union_ms(intervals: list[tuple[int, int]]) -> int:
    total, end = 0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def summarize(lines) -> dict:
    """The figures of one application's event log, given as its lines (see the module)."""
    start = end = None
    executors: dict[str, dict] = {}
    intervals: list[tuple[int, int]] = []
    run_ms: dict[str, int] = {}
    cpu_ns, tasks, failed = 0, 0, 0
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            e = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"event log line {n}: not JSON ({exc})") from None
        kind = e.get("Event")
        if kind == "SparkListenerApplicationStart":
            start = e["Timestamp"]
        elif kind == "SparkListenerApplicationEnd":
            end = e["Timestamp"]
        elif kind == "SparkListenerExecutorAdded":
            info = e["Executor Info"]
            executors[e["Executor ID"]] = {"host": info.get("Host"), "cores": info.get("Total Cores", 0)}
        elif kind == "SparkListenerTaskEnd":
            info, metrics = e["Task Info"], e.get("Task Metrics") or {}
            tasks += 1
            failed += bool(info.get("Failed"))
            if info.get("Finish Time", 0) >= info["Launch Time"] > 0:
                intervals.append((info["Launch Time"], info["Finish Time"]))
            ex = info.get("Executor ID", "?")
            run_ms[ex] = run_ms.get(ex, 0) + metrics.get("Executor Run Time", 0)
            cpu_ns += metrics.get("Executor CPU Time", 0)
    if start is None:
        raise ValueError("event log: no SparkListenerApplicationStart")
    app_ms = (end if end is not None else max([start, *(b for _, b in intervals)])) - start
    busy_ms = _union_ms(intervals)
    task_ms = sum(run_ms.values())
    return {
        "complete": end is not None,
        "executors": len(executors),
        "cores": sum(x["cores"] for x in executors.values()),
        "hosts": sorted({x["host"] for x in executors.values() if x["host"]}),
        "app_s": app_ms / 1000,
        "busy_s": busy_ms / 1000,
        "driver_only_s": max(0, app_ms - busy_ms) / 1000,
        "tasks": tasks,
        "failed_tasks": failed,
        "task_s": task_ms / 1000,
        "task_cpu_s": cpu_ns / 1e9,
        "concurrency": task_ms / busy_ms if busy_ms else 0.0,
        # Each executor's share of the task time: whether the work was spread at all.
        "task_share": {ex: ms / task_ms for ex, ms in sorted(run_ms.items())} if task_ms else {},
    }


def _part(p: Path) -> int:
    """The index of a rolling log's part (events_<N>_<app>), 0 for a single file."""
    head = p.name.split("_")
    return int(head[1]) if len(head) > 2 and head[0] == "events" and head[1].isdigit() else 0


def read(folder: Path) -> dict:
    """summarize() of the one application whose event log is in `folder` (the harness gives each application a
    folder): a single file, or a rolling log's folder of parts (events_1_..., events_2_...) read in order."""
    apps = list(folder.iterdir()) if folder.is_dir() else []
    if len(apps) != 1:
        raise ValueError(f"expected the event log of one application in {folder}, found {len(apps)}")
    parts = sorted((p for p in apps[0].iterdir() if p.name.startswith("events_")), key=_part) \
        if apps[0].is_dir() else apps
    if not parts:
        raise ValueError(f"no events_* file in {apps[0]}")

    def lines():
        for p in parts:
            with p.open(encoding="utf-8") as f:
                yield from f

    return summarize(lines())
