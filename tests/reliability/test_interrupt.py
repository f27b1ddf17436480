"""Ctrl-C during a run: SIGINT to the inner session's process group (what a terminal sends) while
its broker is up and vectors run. The session ends within a bound, its broker container is
removed, no process it started outlives it, and the results written so far are whole lines."""
from __future__ import annotations

import signal
import time

import pytest

from .vectors import QUICK_COUNT, QUICK_GARAGEMQ, SEQUENTIAL

pytestmark = [pytest.mark.containers]


def _interrupt(s):
    """Ctrl-C the session once its broker is up; checked: exit 2 within 30 s, no container or process
    left. Returns (output, rows)."""
    s.wait_marker()
    assert s.containers(), "precondition: the broker is up when Ctrl-C comes"
    t0 = time.monotonic()
    s.signal_group(signal.SIGINT)
    rc = s.wait(60)
    stopped_in = time.monotonic() - t0
    out = s.output()
    assert rc == 2, f"pytest's exit code for an interrupted run is 2, got {rc}:\n{out}"  # ExitCode.INTERRUPTED
    assert stopped_in < 30, f"{stopped_in:.1f}s from Ctrl-C to exit"
    assert s.containers() == [], "Ctrl-C left the broker's container behind"
    assert s.leftover_processes() == [], "Ctrl-C left processes of the session behind"
    rows = s.rows()  # every line parses
    assert 2 <= len(rows) < QUICK_COUNT, (len(rows), out[-3000:])
    return out, rows


def test_ctrl_c_mid_run_leaves_no_container_no_process_and_readable_results(inner):
    out, rows = _interrupt(inner("ctrl-c", *QUICK_GARAGEMQ, pace_s=1.0, mark_after=2))
    assert "KeyboardInterrupt" in out, out
    assert all(r["outcome"] == "pass" for r in rows), [(r["outcome"], r["message"]) for r in rows]


def test_ctrl_c_under_xdist_stops_the_workers_too(inner):
    """The main job runs targets on xdist workers, which ignore SIGINT: the worker's brokers are
    removed by the provisioning handler and its session ends at the next vector (plugin), instead
    of failing every remaining vector against a broker that is gone."""
    _, rows = _interrupt(inner("ctrl-c-xdist", *QUICK_GARAGEMQ, "-n", "2", "--dist", "loadgroup", pace_s=1.0, mark_after=2))
    # the vector in flight when the broker went may be an error row; none may pass or fail falsely after it
    assert [r["outcome"] for r in rows].count("error") <= 1, [(r["outcome"], r["message"]) for r in rows]
    assert all(r["message"].startswith("interrupted:") for r in rows if r["outcome"] == "error"), rows[-1]


def test_rows_of_vectors_a_signal_cut_short_say_the_run_was_interrupted(inner):
    """Started with SIGINT ignored (as `cmd &` in a script), a run goes on after Ctrl-C. The brokers
    belong to the controller, which started them early (fixtures/run/brokers.py), so the vector in
    flight either ends against its live broker or, where its broker was removed under it, says the
    run was interrupted (never a raw '404 ... no container', StreamLostError); no vector runs after
    it, and no container is left."""
    s = inner("signal-worker", *SEQUENTIAL, "-n", "2", "--dist", "loadgroup", pace_s=3.0, mark_after=2,
              env={"MQC_PACE_IN": "call"}, ignore_sigint=True)
    s.wait_marker()
    s.signal_group(signal.SIGINT)
    s.wait(90)
    rows = s.rows()
    assert s.containers() == [], "the signal left the broker's container behind"
    errors = [r["message"] for r in rows if r["outcome"] == "error"]
    assert len(errors) <= 1, [(r["outcome"], r["message"]) for r in rows]
    for e in errors:
        assert e.startswith("interrupted: the run was stopped"), e
        assert "404" not in e and "no container" not in e, e
    assert len(rows) < QUICK_COUNT, "vectors ran on after the signal"
