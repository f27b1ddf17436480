"""Measuring a whole command for `reports bench`: its wall time and the peak resident memory of its
process tree (from /proc), stopped past a memory cap or a time limit."""
from __future__ import annotations

import os
import signal
import subprocess
import threading
import time


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
