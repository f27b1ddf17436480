"""The image build plan: lanes by base, side by side, one failure not stopping the others."""
from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from fixtures.provision import buildplan


def entry(name, base):
    return SimpleNamespace(name=name, base=base)


ENTRIES = [entry("a1", "A"), entry("b1", "B"), entry("a2", "A"), entry("c1", "C"), entry("a3", "A"), entry("b2", "B")]


def names(lanes):
    return [[e.name for e in lane] for lane in lanes]


def test_one_job_is_one_lane_with_each_base_together_in_catalog_order():
    assert names(buildplan.lanes(ENTRIES, 1)) == [["a1", "a2", "a3", "b1", "b2", "c1"]]


def test_two_jobs_put_the_largest_base_alone_and_the_others_beside_it():
    assert names(buildplan.lanes(ENTRIES, 2)) == [["a1", "a2", "a3"], ["b1", "b2", "c1"]]


def test_no_more_lanes_than_bases():
    assert names(buildplan.lanes(ENTRIES, 8)) == [["a1", "a2", "a3"], ["b1", "b2"], ["c1"]]


def test_a_base_is_never_split_across_lanes():
    for jobs in range(1, 5):
        bases = [{e.base for e in lane} for lane in buildplan.lanes(ENTRIES, jobs)]
        assert sum(len(b) for b in bases) == len(set().union(*bases)) == 3


def test_jobs_below_one_is_an_error():
    with pytest.raises(ValueError, match="at least 1"):
        buildplan.lanes(ENTRIES, 0)


def test_lanes_run_side_by_side_and_a_failure_is_said_while_the_rest_is_built():
    both_lanes = threading.Barrier(2, timeout=10)   # broken (a failure of a1 or b1) unless they overlap
    built, lock = [], threading.Lock()

    def build(e):
        if e.name in ("a1", "b1"):
            both_lanes.wait()
        with lock:
            built.append(e.name)
        if e.name == "a2":
            raise RuntimeError("no such package")
        return "built"

    lines = []
    failures = buildplan.build_all(ENTRIES, build, 2, say=lines.append)
    assert failures == ["a2: no such package"]
    assert sorted(built) == sorted(e.name for e in ENTRIES)     # a3 still built after a2 failed
    assert built.index("a1") < built.index("a2") < built.index("a3")   # one base: in order
    assert any(ln.startswith("a2: failed after") for ln in lines) and "c1: built" in lines


def test_given_urgency_a_base_builds_its_most_urgent_first_and_the_bases_go_in_that_order():
    urgency = {"c1": 70.0, "b2": 60.0, "a3": 50.0, "b1": 5.0}
    # c1's base first, then b2's (the least loaded lane), then A's (C's lane, now the least loaded)
    assert names(buildplan.lanes(ENTRIES, 2, urgency)) == [["c1", "a3", "a1", "a2"], ["b2", "b1"]]
    assert names(buildplan.lanes(ENTRIES, 1, urgency)) == [["c1", "b2", "b1", "a3", "a1", "a2"]]


def test_once_stopped_a_lane_starts_no_further_build_and_the_one_in_flight_ends():
    built, stopped = [], threading.Event()

    def build(e):
        built.append(e.name)
        if e.name == "a1":
            stopped.set()          # the run's vectors end while a1 is being built
        return "built"

    lines = []
    failures = buildplan.build_all(ENTRIES, build, 1, say=lines.append, stop=stopped.is_set)
    assert built == ["a1"] and failures == []
    assert "a1: built" in lines and "a2: not built (no longer needed)" in lines and len(lines) == len(ENTRIES)
