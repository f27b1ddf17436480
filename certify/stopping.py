"""A certification ends on SIGTERM and SIGHUP exactly as on Ctrl-C (SIGINT): no bundle, nothing left.

The rules:
- `handled()`: while certifying, the first SIGTERM or SIGHUP raises `Stopped` (a
  KeyboardInterrupt) where the certification is, as Ctrl-C does; later ones are ignored, so
  the cleanup is never cut short by the same signal sent to the whole process group.
- `run_child()`: each step's process (pytest, the report build) is waited for here. When the
  certification is stopped, the child is stopped first, by SIGTERM, which every step handles as
  Ctrl-C (fixtures/run/signals.py: pytest tears its vectors down and deletes what the suite made on
  the endpoint; the report build stops Spark). A child that already took the stop from the
  process group ignores it. The child gets CHILD_STOP_S to end, then it and the processes it
  started (a Spark JVM) are killed; only then does the caller remove the partial folder and the
  temporary store, which the child writes into.
"""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

CHILD_STOP_S = 150.0   # pytest's teardown and the endpoint's sweep (fixtures/adapters/footprint.py: 60 s) fit in it


class Stopped(KeyboardInterrupt):
    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_state = {"stopped": None}   # the signal that stopped this certification, once there is one


def _on_signal(signum, frame):
    if _state["stopped"] is not None:
        return
    _state["stopped"] = signum
    raise Stopped(signum)


@contextlib.contextmanager
def handled():
    """SIGTERM and SIGHUP stop the certification as Ctrl-C does (main thread only)."""
    _state["stopped"] = None
    previous = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    for s in previous:
        signal.signal(s, _on_signal)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


def quiet() -> None:
    """From now on a stop signal is ignored: the cleanup runs to its end."""
    if _state["stopped"] is None:
        _state["stopped"] = signal.SIGINT


def run_child(cmd: list[str], *, timeout_s: float, **popen) -> subprocess.CompletedProcess:
    """Run one step's process to its end (see the module docstring for a stop);
    subprocess.TimeoutExpired after timeout_s, with the child stopped the same way."""
    capture = popen.pop("capture_output", False)
    if capture:
        popen.update(stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc = subprocess.Popen(cmd, **popen)
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except BaseException:   # Stopped, KeyboardInterrupt, TimeoutExpired: the child stops first
        quiet()
        stop(proc)
        raise
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def stop(proc: subprocess.Popen) -> None:
    tree = descendants(proc.pid)
    with contextlib.suppress(OSError):
        proc.send_signal(signal.SIGTERM)
    try:
        proc.communicate(timeout=CHILD_STOP_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 20   # what it started ends with it (a JVM reads EOF on its stdin)
    while [p for p in tree if alive(p)] and time.monotonic() < deadline:
        time.sleep(0.2)
    for p in tree:
        if alive(p):
            with contextlib.suppress(OSError):
                os.kill(p, signal.SIGKILL)


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def alive(pid: int) -> bool:
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def descendants(pid: int) -> list[int]:
    """Every live process below `pid` (from /proc)."""
    parent = {}
    for d in Path("/proc").glob("[0-9]*"):
        fields = _stat(int(d.name))
        if fields is not None:
            parent[int(d.name)] = int(fields[1])
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        found += kids
        todo += kids
    return found
