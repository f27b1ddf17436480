"""A run killed with SIGKILL mid-run (no handler, no atexit): its results file is still read by
`reports gate` and `reports build` (a cut-off last line is named and skipped, not a crash), and the
container it leaves behind is swept by the next run (its owner process is gone)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from fixtures.provision import engine as engine_mod

from ..paths import ROOT
from .vectors import QUICK_COUNT, QUICK_GARAGEMQ

pytestmark = [pytest.mark.containers]

CUT_LINE = '{"schema_version":1,"run_id":"cut","outc'   # what a writer killed mid-line would leave


def reports(*args):
    return subprocess.Popen([sys.executable, "-m", "reports", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


def finish(proc, timeout=240):
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"reports did not finish within {timeout}s: {err[-2000:]}") from None
    return proc.returncode, out, err


def test_killed_run_results_are_readable_and_its_container_is_swept_by_the_next_run(inner, tmp_path):
    crashed = inner("crashed", *QUICK_GARAGEMQ, pace_s=1.0, mark_after=2)
    crashed.wait_marker()
    crashed.signal_group(signal.SIGKILL)
    assert crashed.wait(30) == -signal.SIGKILL
    leftovers = crashed.containers()
    assert len(leftovers) == 1, f"precondition: SIGKILL leaves the broker's container ({leftovers})"
    rows = crashed.rows()   # whole lines only: the writer writes each record in one append
    assert 2 <= len(rows) < QUICK_COUNT

    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(crashed.lines()) + CUT_LINE, encoding="utf-8")
    # Spark's JVM takes a while: build runs while the next session sweeps and runs
    build = reports("build", "--results", str(cut), "--out", str(tmp_path / "site"))

    gate_rc, gate_out, gate_err = finish(reports("gate", "--results", str(crashed.results)))
    assert gate_rc in (0, 1) and "Traceback" not in gate_err, gate_err
    assert f"{len(rows)} result(s)" in gate_out, gate_out
    gate_rc, gate_out, gate_err = finish(reports("gate", "--results", str(cut)))
    assert gate_rc in (0, 1), gate_err
    assert f"{cut}:{len(rows) + 1}: the last line is not a complete record" in gate_err, gate_err

    nxt = inner("next", *QUICK_GARAGEMQ[:-1], "amqp091 and properties-unchanged")
    assert nxt.wait(120) == 0, nxt.output()
    assert crashed.containers() == [], "the next run did not sweep the killed run's container"
    assert not (engine_mod.state_dir() / "runs" / crashed.run_id).exists(), "the killed run's config files stayed"
    assert nxt.containers() == []

    build_rc, build_out, build_err = finish(build)
    assert build_rc == 0, build_err[-3000:]
    assert f"{cut}:{len(rows) + 1}: the last line is not a complete record" in build_err, build_err[-3000:]
    assert f"reports build: {len(rows)} records, 1 runs" in build_out, build_out
