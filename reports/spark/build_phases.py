"""Where a build's time goes: an opt-in table of its phases (env MQCONFORM_BUILD_PROFILE=1).

Each phase is timed on the driver (wall seconds, phases run side by side overlap) and names the
Spark jobs it starts (their job description). With the switch on, the session writes Spark's event
log to a temporary folder; at the end the tasks' run and CPU time are summed per phase from it.
Off (the default), a phase only sets the job description: nothing is logged or printed.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

SWITCH = "MQCONFORM_BUILD_PROFILE"
DESCRIPTION = "spark.job.description"


def enabled() -> bool:
    return os.environ.get(SWITCH, "") not in ("", "0")


_log_dir: str | None = None


def spark_conf() -> dict[str, str]:
    """The session's settings for the profile: an uncompressed event log in a folder of its own."""
    global _log_dir
    if not enabled():
        return {}
    _log_dir = tempfile.mkdtemp(prefix="mqconform-build-events-")
    return {"spark.eventLog.enabled": "true", "spark.eventLog.dir": Path(_log_dir).as_uri(),
            "spark.eventLog.compress": "false", "spark.eventLog.rolling.enabled": "false"}


class Phases:
    """Driver wall per phase, in the order phases started."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self._lock = threading.Lock()

    @contextmanager
    def __call__(self, name: str, spark=None):
        sc = spark.sparkContext if spark is not None else None
        before = sc.getLocalProperty(DESCRIPTION) if sc is not None else None
        if sc is not None:
            sc.setJobDescription(name)
        t0 = time.monotonic()
        try:
            yield
        finally:
            with self._lock:
                self.wall[name] = self.wall.get(name, 0.0) + time.monotonic() - t0
            if sc is not None:
                sc.setJobDescription(before)

    def say(self, out=sys.stderr) -> None:
        """The table, only with the switch on (the event log stays in its temporary folder, named)."""
        if not enabled():
            return
        tasks = _task_times()
        total = sum(self.wall.values())
        print("build phases (driver wall s, share of the phases' wall; Spark jobs, task run s, task CPU s):", file=out)
        print(f"  {'phase':<22} {'wall':>8} {'share':>6} {'jobs':>5} {'run':>8} {'cpu':>8}", file=out)
        names = list(self.wall) + [n for n in tasks if n not in self.wall]
        for name in names:
            w = self.wall.get(name, 0.0)
            jobs, run, cpu = tasks.get(name, (0, 0.0, 0.0))
            print(f"  {name:<22} {w:8.1f} {w / total if total else 0:6.0%} {jobs:5d} {run:8.1f} {cpu:8.1f}", file=out)
        print(f"  (Spark's event log: {_log_dir})", file=out)


def _task_times() -> dict[str, tuple[int, float, float]]:
    """Per job description: (jobs, summed task run seconds, summed task CPU seconds), from the event log."""
    if not _log_dir:
        return {}
    stage_of: dict[int, str] = {}
    jobs: dict[str, int] = defaultdict(int)
    run: dict[str, float] = defaultdict(float)
    cpu: dict[str, float] = defaultdict(float)
    for f in Path(_log_dir).rglob("*"):
        if not f.is_file():
            continue
        with f.open(encoding="utf-8", errors="replace") as lines:
            for line in lines:
                try:
                    e = json.loads(line)
                except ValueError:   # the last line of a log still being written
                    continue
                kind = e.get("Event")
                if kind == "SparkListenerJobStart":
                    name = (e.get("Properties") or {}).get(DESCRIPTION) or "(no phase)"
                    jobs[name] += 1
                    for s in e.get("Stage IDs", []):
                        stage_of.setdefault(s, name)
                elif kind == "SparkListenerTaskEnd":
                    m = e.get("Task Metrics") or {}
                    name = stage_of.get(e.get("Stage ID"), "(no phase)")
                    run[name] += m.get("Executor Run Time", 0) / 1e3
                    cpu[name] += m.get("Executor CPU Time", 0) / 1e9
    return {n: (jobs.get(n, 0), run.get(n, 0.0), cpu.get(n, 0.0)) for n in set(jobs) | set(run)}
