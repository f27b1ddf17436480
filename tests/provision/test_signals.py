"""SIGTERM (what a CI timeout sends) ends `./mqconform certify` and `./mqconform run` as Ctrl-C does,
and `./mqconform cleanup --endpoint` removes what a SIGKILLed run left on a broker.

The vendor's broker is the catalog's RabbitMQ 4.0.5 started here and configured as a vendor would
(test_vendor_endpoint.py's `vendor`: a user of its own, queues, an exchange, bindings and a
server-named queue of its own, one queue holding a message). Its queues, exchanges and bindings,
as rabbitmqctl lists them, are compared before and after. The signal is sent to the command's
process alone (it must pass it on) or to its whole process group (as `timeout` does).
"""
from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from ..paths import ROOT
from .test_vendor_endpoint import PASSWORD, state, vendor  # noqa: F401 - `vendor` is a fixture

pytestmark = [pytest.mark.containers]
SPEC = "rabbitmq-address@4.0"


class Command:
    """`./mqconform ARGS` in a session of its own, its output read as it comes."""

    def __init__(self, args, env):
        self.proc = subprocess.Popen([str(ROOT / "mqconform"), *args], cwd=ROOT, env=env, text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_for_text(self, text: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            assert self.proc.poll() is None, f"ended ({self.proc.returncode}) before {text!r}:\n{self.output[-3000:]}"
            assert time.monotonic() < deadline, f"no {text!r} within {timeout}s:\n{self.output[-3000:]}"
            time.sleep(0.2)

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout)
        finally:
            self._reader.join(30)   # the last lines read (the output ends when every holder of the pipe has)

    def processes(self) -> list[str]:
        """The processes still in the command's session (its pid is the session id)."""
        left = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
                cmd = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if fields[3] == str(self.proc.pid) and fields[0] != "Z":
                left.append(f"{stat.parent.name}: {cmd[:150]}")
        return left

    def kill_all(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _setup(rt, engine, tmp_path):
    host, port, mport = rt.host, rt.port("amqp091"), rt.port("http-management")
    url = f"vendor=amqp://vendor@{host}:{port}?amqp_address_v1=permitted&management=http://{host}:{mport}"
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "MQCONFORM_RUN_ID" and not k.startswith("MQCONFORM_PASSWORD")}
    env.update(engine.env)
    env.update({"MQCONFORM_PASSWORD_vendor": PASSWORD, "TMPDIR": str(tmp)})
    return url, env, tmp, f"http://{host}:{mport}"


def _suites_names(management: str) -> list[str]:
    """The suite's queues and exchanges on the broker now (the management API: quicker than rabbitmqctl)."""
    token = base64.b64encode(f"vendor:{PASSWORD}".encode()).decode()
    names = []
    for kind in ("queues", "exchanges"):
        req = urllib.request.Request(f"{management}/api/{kind}/%2F?columns=name", headers={"Authorization": f"Basic {token}"})
        with urllib.request.urlopen(req, timeout=5) as r:
            names += [f"{kind[:-1]} {e['name']}" for e in json.load(r) if e["name"].startswith("mqc.")]
    return names


def _wait_for_the_suites_names(cmd: Command, management: str, timeout: float = 400) -> list[str]:
    deadline = time.monotonic() + timeout
    while True:
        found = _suites_names(management)
        if found:
            return found
        assert cmd.proc.poll() is None, f"ended before making anything:\n{cmd.output[-3000:]}"
        assert time.monotonic() < deadline, cmd.output[-3000:]
        time.sleep(0.1)


def _nothing_left(cmd: Command, rt, before, out: Path, tmp: Path):
    deadline = time.monotonic() + 30
    while cmd.processes() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert cmd.processes() == [], "processes outlived the command"
    assert state(rt) == before, "the broker is not as it was:\n" + cmd.output[-3000:]
    assert not out.exists() and not list(out.parent.glob(f"{out.name}*")), list(out.parent.iterdir())
    assert not list(tmp.iterdir()), f"temporary files left: {list(tmp.iterdir())}"


@pytest.fixture
def certify(vendor, engine, tmp_path):  # noqa: F811 - the fixture imported above
    rt, _ = vendor
    url, env, tmp, management = _setup(rt, engine, tmp_path)
    out = tmp_path / "certificates" / "vendor"
    started = []

    def start(*extra):
        cmd = Command(["certify", "--endpoint", url, "--spec", SPEC, "--out", str(out), *extra], env)
        started.append(cmd)
        return cmd
    yield rt, start, out, tmp, management, url, env
    for cmd in started:
        cmd.kill_all()


def test_sigterm_to_certify_during_the_vectors_leaves_nothing(certify):
    rt, start, out, tmp, management, _, _ = certify
    before = state(rt)
    cmd = start()
    seen = _wait_for_the_suites_names(cmd, management)
    cmd.proc.send_signal(signal.SIGTERM)            # the command's process alone: it passes it on
    rc = cmd.wait(240)
    assert rc == 3, cmd.output[-3000:]
    assert "interrupted (SIGTERM): no certificate" in cmd.output, cmd.output[-3000:]
    assert "Traceback" not in cmd.output, cmd.output[-3000:]
    _nothing_left(cmd, rt, before, out, tmp)
    print(f"made on the broker when SIGTERM came: {seen}")


def test_sigterm_to_certify_during_the_report_leaves_nothing(certify):
    rt, start, out, tmp, _, _, _ = certify
    before = state(rt)
    cmd = start()
    cmd.wait_for_text("building the report", 900)
    time.sleep(8)                                   # Spark is starting: its JVM is up
    os.killpg(cmd.proc.pid, signal.SIGTERM)         # the whole process group, as `timeout` does
    rc = cmd.wait(240)
    assert rc == 3, cmd.output[-3000:]
    assert "interrupted (SIGTERM): no certificate" in cmd.output, cmd.output[-3000:]
    _nothing_left(cmd, rt, before, out, tmp)


def test_cleanup_endpoint_removes_what_a_sigkilled_certify_left(certify, tmp_path):
    rt, start, out, tmp, management, url, env = certify
    before = state(rt)
    # The kill must find something of the suite's on the broker: a run that deleted what it made
    # before the kill came leaves nothing to clean up and is made again (a bounded number of times).
    for _ in range(3):
        cmd = start()
        _wait_for_the_suites_names(cmd, management)
        cmd.kill_all()                              # SIGKILL: nothing of the suite's can clean up
        cmd.wait(30)
        left = state(rt)
        if any("mqc." in line for v in left.values() for line in v):
            break
    assert left != before and any("mqc." in line for v in left.values() for line in v), left
    cleaned = subprocess.run([str(ROOT / "mqconform"), "cleanup", "--endpoint", url], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=180)
    assert cleaned.returncode == 0, cleaned.stdout + cleaned.stderr
    assert "leftover(s) of the suite deleted" in cleaned.stdout and PASSWORD not in cleaned.stdout + cleaned.stderr
    assert state(rt) == before, (cleaned.stdout, left)
    again = subprocess.run([str(ROOT / "mqconform"), "cleanup", "--endpoint", url], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=180)
    assert again.returncode == 0 and ": 0 leftover(s) of the suite deleted" in again.stdout, again.stdout + again.stderr
    print(f"left by the SIGKILLed run: {sorted(set(sum(left.values(), [])) - set(sum(before.values(), [])))}\n"
          f"cleanup said: {cleaned.stdout}")


def test_sigterm_to_run_during_the_vectors_leaves_the_endpoint_as_found(vendor, engine, tmp_path):  # noqa: F811
    """`./mqconform run` (the script, its pytest with two xdist workers, the report's Spark beside):
    SIGTERM to the script alone reaches pytest and its workers, which stop as on Ctrl-C."""
    rt, _ = vendor
    url, env, tmp, management = _setup(rt, engine, tmp_path)
    env.update({"MQCONFORM_OUT": str(tmp_path / "out"), "MQCONFORM_JOBS": "2"})
    before = state(rt)
    cmd = Command(["run", "--endpoint", url, "--spec", SPEC], env)
    try:
        _wait_for_the_suites_names(cmd, management, timeout=900)
        cmd.proc.send_signal(signal.SIGTERM)
        rc = cmd.wait(240)
        assert rc == 3, cmd.output[-3000:]
        assert "stopped by a signal" in cmd.output, cmd.output[-3000:]
        assert state(rt) == before, "the broker is not as it was:\n" + cmd.output[-3000:]
        # the report's Spark, started beside the vectors, is stopped by the script's exit (its JVM's
        # shutdown takes a while on a loaded host)
        deadline = time.monotonic() + 240
        while cmd.processes() and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not cmd.processes(), f"left running after the run ended: {cmd.processes()}"
        rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
        assert all(r["error_kind"] == "interrupted" for r in rows if r["outcome"] == "error"
                   and r["error_kind"] in ("adapter", "target", "observation")), rows[-1]
    finally:
        cmd.kill_all()
