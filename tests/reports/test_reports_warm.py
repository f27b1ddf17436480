"""`reports build --wait-for` (reports/engine/early_session.py): the bounded wait, the warm-up's records, and a build
that waits for its signal writing what a one-shot build writes. The replacing build's shortcut
(reports/engine/full_build.py) against the store's own path, on the fixture files."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reports.engine import early_session as warm
from reports.rows import validate

ROOT = Path(__file__).resolve().parents[2]


class Clock:
    """A clock that moves only when the code under test sleeps."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def sleep(self, s):
        self.now += s


def test_wait_returns_once_the_file_is_there(tmp_path):
    marker = tmp_path / "done"
    clock = Clock()

    def sleep(s):
        clock.sleep(s)
        if clock.now >= 1.0:
            marker.touch()
    assert warm.wait_for(marker, 10, parent=None, poll_s=0.25, clock=clock, sleep=sleep) == 1.0


def test_wait_gives_up_at_its_bound_naming_the_file_and_the_option(tmp_path):
    clock = Clock()
    with pytest.raises(warm.WaitError, match=r"done did not appear within 2s \(--wait-timeout\)"):
        warm.wait_for(tmp_path / "done", 2, parent=None, poll_s=0.3, clock=clock, sleep=clock.sleep)
    assert clock.now == pytest.approx(2.0)


def test_wait_ends_when_the_caller_has_gone(tmp_path):
    clock = Clock()
    parents = iter([41, 41, 1])
    with pytest.raises(warm.WaitError, match="the process that started this build .41. ended"):
        warm.wait_for(tmp_path / "done", 60, parent=41, clock=clock, sleep=clock.sleep,
                      parent_now=lambda: next(parents))
    assert clock.now < 1


def test_warm_up_records_are_valid_and_cover_what_a_build_does():
    rows = warm.synthetic_records()
    assert all(validate.record_problem(json.loads(json.dumps(r))) is None for r in rows)
    assert {r["outcome"] for r in rows} == set(warm.OUTCOME_ORDER)
    runs = {(r["implementation"]["name"], r["run_id"]) for r in rows}
    assert len(runs) == 6 and len({impl for impl, _ in runs}) == 3          # two runs each: diff, flakiness
    assert any(r["clause_outcomes"] for r in rows) and any(r["clause_outcomes"] is None for r in rows)
    assert any(r["set_by"] for r in rows) and any(r["failed_step"] for r in rows)
    assert rows == warm.synthetic_records()


def _report(folder: Path) -> dict:
    rep = json.loads((folder / "compliance.json").read_text(encoding="utf-8"))
    rep.pop("generated")
    return rep


def test_replacing_build_equals_one_that_reads_the_store_back(spark, results, clause_dir, tmp_path, built):
    """Without --accumulate the aggregates come from the rows committed; into an empty store, an
    accumulating build takes them from the store's tables. Same inputs, same report."""
    from reports.engine import build

    out = tmp_path / "site"
    assert build.run([str(p) for p in results.values()], str(out), clause_dir=str(clause_dir), spark=spark,
                     accumulate=True) == 0
    assert _report(out) == _report(built[0])
    # The replacing build wrote the state tables the next accumulating build folds into.
    from reports.engine import store

    assert store.state_version(spark, str(built[0] / "store"), store.RUNS) == 0
    assert store.state_version(spark, str(built[0] / "store"), store.FLAKY) == 0


def test_a_build_waiting_for_its_signal_writes_what_a_one_shot_build_writes(results, clause_dir, built, tmp_path):
    out, marker = tmp_path / "site", tmp_path / "complete"
    env = {k: v for k, v in os.environ.items() if k != "SPARK_LOCAL_IP"}
    cmd = [sys.executable, "-m", "reports", "build", "--out", str(out), "--clauses", str(clause_dir),
           "--wait-for", str(marker), "--wait-timeout", "300"]
    for p in results.values():
        cmd += ["--results", str(p)]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(3)
        assert proc.poll() is None and not out.exists()     # waiting: nothing written before the signal
        marker.touch()
        stdout, stderr = proc.communicate(timeout=300)
    finally:
        proc.kill()
    assert proc.returncode == 0, stdout + stderr
    assert "Spark session started" in stdout and "reports build: 18 records" not in stderr
    assert _report(out) == _report(built[0])
    # a successful build prints no stack trace (the main job shows this output): neither Python's nor the JVM's
    assert not trace_lines(stdout + stderr), stdout + stderr


def trace_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines()
            if "Traceback" in ln or ln.strip().startswith("at org.apache") or "Exception" in ln]


STOP_SCRIPT = """\
import gc, sys, time
from reports.engine import early_session
from reports.spark import session
from pyspark import SparkContext

spark = session.start("local[1]", {"spark.sql.shuffle.partitions": "1"})
held = [spark.sparkContext._jvm.java.lang.StringBuilder() for _ in range(50)]
gateway = SparkContext._gateway
client, stdin = gateway._gateway_client, gateway.proc.stdin
told, sent = [], []
close, send = stdin.close, client.send_command
stdin.close = lambda: (told.append(1), close())
client.send_command = lambda *a, **k: (sent.append(bool(told)), send(*a, **k))[1]
early_session._stop(spark)
held.clear()          # Java objects Python frees once the JVM is gone (as at the interpreter's exit)
gc.collect()
time.sleep(2.5)       # py4j's finalizer worker looks at its queue every second
print("sent after the JVM was told to exit:", sum(sent), flush=True)
"""


def test_nothing_is_sent_to_the_jvm_once_it_is_told_to_exit():
    # py4j's release of a Java object sent as the JVM exited was answered by a reset connection, which
    # py4j logs with a traceback ("ERROR:root:Exception while sending command.") at the end of the main
    # job's report: early_session._settle() sends the releases first, then nothing more.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("SPARK_LOCAL_IP", None)
    r = subprocess.run([sys.executable, "-c", STOP_SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "sent after the JVM was told to exit: 0" in r.stdout, r.stdout + r.stderr
    assert not trace_lines(r.stdout + r.stderr), r.stdout + r.stderr


def test_a_build_whose_signal_never_comes_exits_3_having_written_nothing(tmp_path):
    out = tmp_path / "site"
    env = {k: v for k, v in os.environ.items() if k != "SPARK_LOCAL_IP"}
    r = subprocess.run([sys.executable, "-m", "reports", "build", "--results", str(tmp_path / "r.jsonl"),
                        "--out", str(out), "--wait-for", str(tmp_path / "never"), "--wait-timeout", "2"],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "never did not appear within 2s (--wait-timeout); nothing was built" in r.stderr
    assert not out.exists()
