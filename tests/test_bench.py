"""The benchmark's pure parts (fixtures/bench): one row from the timings, the table, the bound on a
step, and the count of links a broker still holds that decides when a bare AMQP 1.0 client or the
adapter replaces its connection."""
from __future__ import annotations

import signal
import time

import pytest

from fixtures.adapters import amqp10
from fixtures.bench import isolated
from fixtures.bench.__main__ import GOAL, KINDS, markdown, summary
from fixtures.bench.bound import Overrun, within


def timings(warm, isolated_, suite):
    return {"warm": warm, "isolated": isolated_, "suite": suite}


def a_row(**over):
    per_op = timings([0.001, 0.002, 0.003], [0.004, 0.005, 0.100], [0.005, 0.006, 0.007])
    per_block = timings([0.002], [0.006], [0.009])
    steps = [{"send": 0.002, "receive": 0.001}, {"send": 0.004}, {"send": 0.003, "receive": 0.003}]
    row = summary("broker-1", "amqp10", "lib", 3, per_op, per_block, steps)
    row.update(over)
    return row


def test_summary_has_the_three_medians_and_both_ratios():
    r = a_row()
    assert (r["warm_ms"], r["isolated_ms"], r["suite_ms"]) == (2.0, 5.0, 6.0)   # medians: one slow (b) does not count
    assert r["suite_over_isolated"] == 1.2 and r["suite_over_warm"] == 3.0
    assert (r["warm_block_ms"], r["isolated_block_ms"], r["suite_block_ms"]) == (2.0, 6.0, 9.0)
    assert r["block_suite_over_isolated"] == 1.5 and r["block_suite_over_warm"] == 4.5


def test_summary_steps_count_a_skipped_step_as_zero_largest_first():
    steps = a_row()["suite_steps_ms"]
    assert list(steps) == ["send", "receive"]
    assert steps == {"send": 3.0, "receive": 1.0}


def test_markdown_marks_an_overhead_past_the_goal_and_shows_errors():
    ok, over = a_row(), a_row(target="broker-2", suite_over_isolated=GOAL + 0.01)
    lines = markdown([ok, over, {"target": "broker-3", "protocol": "amqp091", "error": "RuntimeError: gone"}]).splitlines()
    assert len(lines) == 5 and all(line.count("|") == lines[0].count("|") for line in lines)
    assert "(over" not in lines[2] and f"(over {GOAL:g})" in lines[3]
    assert "2.00 / 6.00 / 9.00" in lines[2] and "RuntimeError: gone" in lines[4]


def test_every_kind_has_its_json_fields():
    r = a_row()
    assert all(f"{k}_ms" in r and f"{k}_block_ms" in r for k in KINDS)


def test_within_raises_past_its_bound_and_restores_the_handler():
    before = signal.getsignal(signal.SIGALRM)
    t0 = time.monotonic()
    with pytest.raises(Overrun, match="sleeping did not finish within 0.1s"):
        with within(0.1, "sleeping"):
            time.sleep(5)
    assert time.monotonic() - t0 < 2
    assert signal.getsignal(signal.SIGALRM) is before
    with within(1.0, "a quick step"):
        pass
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


class Link:
    def __init__(self, conn, i):
        self.conn, self.i = conn, i

    def next(self, mask):
        return self.conn.link_head(mask, self.i + 1)


class Conn:
    """Links with given remote states; link_head / next walk those matching the mask, as proton's do."""

    def __init__(self, states):
        self.states = states

    def link_head(self, mask, start=0):
        for i in range(start, len(self.states)):
            if self.states[i] & mask == mask:
                return Link(self, i)
        return None


@pytest.mark.parametrize("count", [amqp10._held_links, isolated._held_links])
def test_held_links_are_those_the_broker_has_not_detached(count):
    from proton import Endpoint

    held = Endpoint.REMOTE_ACTIVE | Endpoint.LOCAL_CLOSED       # detach not answered
    used = Endpoint.REMOTE_ACTIVE | Endpoint.LOCAL_ACTIVE
    gone = Endpoint.REMOTE_CLOSED | Endpoint.LOCAL_CLOSED
    assert count(Conn([held, gone, used, gone, held])) == 3
    assert count(Conn([gone, gone])) == 0
