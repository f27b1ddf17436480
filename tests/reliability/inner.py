"""Inner pytest sessions of the suites started in the background, for what tests/sessions.py's
run_pytest cannot do: send them signals, kill them, run two at once.

Each session is its own process group and session (start_new_session), so a Ctrl-C can be
sent the way a terminal sends it (to the whole group) and any process it leaves behind can be
found by its session id. Its containers are found by the run id it is given (MQCONFORM_RUN_ID,
the `mqconform.run` label). The `mqc_pace` plugin written beside it marks when the broker is up
and vectors are running, and slows the later vectors down so there is time to interrupt them.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from ..paths import ROOT

# After the target's MARK_AFTER-th vector: write the marker (the target's ports as JSON: the broker is
# up, vectors run), then sleep PACE_S after each vector, or with MQC_PACE_IN=call at the start of
# each later vector's call (so that a signal lands while a vector is in flight). Vectors without a
# target are not counted.
PACE_PLUGIN = '''
import json, os, pathlib, time

import pytest

_seen = [0]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    target = getattr(getattr(item, "callspec", None), "params", {}).get("target")
    if target is not None and os.environ.get("MQC_PACE_IN") == "call" and _seen[0] >= int(os.environ["MQC_MARK_AFTER"]):
        time.sleep(float(os.environ["MQC_PACE_S"]))
    return (yield)


def pytest_runtest_teardown(item):
    target = getattr(getattr(item, "callspec", None), "params", {}).get("target")
    if target is None:
        return
    _seen[0] += 1
    mark_after = int(os.environ["MQC_MARK_AFTER"])
    if _seen[0] == mark_after:
        from fixtures.plugin.targets import brokers
        broker = brokers(item.config).current(target)
        ports = broker.container.ports if broker is not None and broker.container is not None else {}
        marker = pathlib.Path(os.environ["MQC_MARKER"])
        marker.with_suffix(".tmp").write_text(json.dumps({"pid": os.getpid(), "ports": ports}))
        marker.with_suffix(".tmp").replace(marker)
    if _seen[0] >= mark_after and os.environ.get("MQC_PACE_IN", "teardown") == "teardown":
        time.sleep(float(os.environ["MQC_PACE_S"]))
'''


class Inner:
    def __init__(self, engine, workdir: Path, args, *, env=None, pace_s: float = 0.0, mark_after: int = 1,
                 ignore_sigint: bool = False):
        self.engine, self.dir = engine, Path(workdir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.run_id = uuid.uuid4().hex
        self.results = self.dir / "results.jsonl"
        self.marker = self.dir / "marker.json"
        (self.dir / "mqc_pace.py").write_text(PACE_PLUGIN)
        full_env = {**os.environ, **engine.env, "PYTHONPATH": os.pathsep.join([str(self.dir), str(ROOT)]),
                    "MQCONFORM_RUN_ID": self.run_id, "MQC_MARKER": str(self.marker), "MQC_PACE_S": str(pace_s),
                    "MQC_MARK_AFTER": str(mark_after), **(env or {})}
        full_env.pop("PYTEST_XDIST_WORKER", None)
        self._out = open(self.dir / "output.txt", "w")  # noqa: SIM115 - closed in discard()
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "mqc_pace", "-q",
             "--results", str(self.results), *args],
            cwd=ROOT, env=full_env, stdout=self._out, stderr=subprocess.STDOUT, start_new_session=True,
            # as a non-interactive shell starts a background job (`cmd &`): SIGINT ignored, by every process
            preexec_fn=(lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignore_sigint else None)

    # -- driving
    def wait_marker(self, timeout: float = 120) -> dict:
        """The marker (broker up, vectors running); fails when the session ends or times out first."""
        deadline = time.monotonic() + timeout
        while not self.marker.exists():
            if self.proc.poll() is not None:
                raise AssertionError(f"inner session ended (rc {self.proc.returncode}) before its marker:\n{self.output()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no marker within {timeout:.0f}s:\n{self.output()}")
            time.sleep(0.1)
        return json.loads(self.marker.read_text())

    def signal_group(self, sig: int) -> None:
        """What a terminal does on Ctrl-C (SIGINT) or a `kill -9 -PGID`: the whole process group."""
        os.killpg(self.proc.pid, sig)

    def wait(self, timeout: float = 120) -> int:
        """The exit code; the session is reaped (a zombie would still count as a live owner)."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"inner session still running after {timeout:.0f}s:\n{self.output()}") from None

    # -- looking
    def output(self) -> str:
        self._out.flush()
        return (self.dir / "output.txt").read_text(errors="replace")[-4000:]

    def lines(self) -> list[str]:
        return self.results.read_text(encoding="utf-8").splitlines(keepends=True) if self.results.exists() else []

    def rows(self) -> list[dict]:
        """Every line of the results file as JSON: a line that does not parse fails the caller."""
        return [json.loads(line) for line in self.lines()]

    def containers(self) -> list[str]:
        cmd = [*self.engine.cli, "ps", "-a", "--filter", f"label=mqconform.run={self.run_id}", "--format", "{{.Names}}"]
        p = subprocess.run(cmd, env=self.engine.cli_env(), capture_output=True, text=True, timeout=60, check=True)
        return [line for line in p.stdout.splitlines() if line.strip()]

    def leftover_processes(self) -> list[str]:
        """Processes still in the inner session's session (its children that outlived it)."""
        out = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                text = stat.read_text()
            except OSError:
                continue
            fields = text.rsplit(")", 1)[1].split()
            # fields: state, ppid, pgrp, session, ...; a zombie reaped a moment later is no leak
            if fields[3] == str(self.proc.pid) and fields[0] != "Z":
                out.append(text.split(")", 1)[0] + ")")
        return out

    # -- cleanup (the fixture's finalizer)
    def discard(self) -> None:
        if self.proc.poll() is None or self.leftover_processes():
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait(30)
        for name in self.containers():
            subprocess.run([*self.engine.cli, "rm", "-f", name], env=self.engine.cli_env(), capture_output=True,
                           timeout=60)
        self._out.close()
