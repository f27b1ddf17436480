"""A broker-wide fault shared by a target's protocols (fixtures/openmessaging/joint.py): the stage's
order, and the meeting points every party passes together."""
from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from fixtures.openmessaging import joint
from fixtures.verdict.outcomes import PreconditionFailed


def _v(vid, scenario="fault", fault=None):
    params = {"fault": fault} if fault else {}
    return SimpleNamespace(id=vid, input={"scenario": scenario, "params": params})


def test_the_first_run_of_each_protocol_needing_a_shared_fault_is_one_group_the_rest_alone():
    r1, r2 = _v("alo.restart", fault="restart"), _v("amo.restart", fault="restart")
    c1, d = _v("alo.cut", fault="cut"), _v("durability", scenario="durability-restart")
    items = [(r1, "amqp091"), (r2, "amqp091"), (c1, "amqp091"), (d, "amqp091"),
             (r1, "amqp10"), (r2, "amqp10"), (c1, "amqp10"), (d, "amqp10")]
    assert joint.groups(items) == [[(r1, "amqp091"), (r1, "amqp10")], [(r2, "amqp091")], [(c1, "amqp091")],
                                   [(d, "amqp091")], [(r2, "amqp10")], [(c1, "amqp10")], [(d, "amqp10")]]
    assert [joint.fault_of(v) for v in (r1, c1, d, _v("x", scenario="other"))] == ["restart", "cut", "restart", None]


def _parties(j, names, work):
    out, threads = {}, []
    for n in names:
        def run(n=n):
            try:
                out[n] = work(n)
            except BaseException as exc:  # noqa: BLE001 - kept for the assertion
                out[n] = exc
        threads.append(threading.Thread(target=run))
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    return out


def test_the_fault_is_injected_once_when_every_party_came_and_each_gets_its_result():
    j = joint.Joint("restart", ["a", "b", "c"], bound_s=5)
    injected = []
    out = _parties(j, "abc", lambda n: j.meet(n, joint.FAULT, lambda: injected.append(n) or ("restarted", 1.5)))
    assert len(injected) == 1 and out == {n: ("restarted", 1.5) for n in "abc"}
    assert j.met(joint.FAULT) == ["a", "b", "c"]


def test_a_party_that_leaves_is_not_waited_for_and_an_injection_error_reaches_every_party():
    j = joint.Joint("kill", ["a", "b", "gone"], bound_s=5)
    threading.Timer(0.2, j.leave, args=("gone",)).start()
    t0 = time.monotonic()
    out = _parties(j, "ab", lambda n: j.meet(n, joint.FAULT, lambda: (_ for _ in ()).throw(RuntimeError("no start"))))
    assert time.monotonic() - t0 < 3
    assert all(isinstance(e, RuntimeError) and str(e) == "no start" for e in out.values())


def test_a_party_that_never_comes_is_a_precondition_of_the_waiting_runs_past_the_bound():
    j = joint.Joint("pause", ["a", "late"], bound_s=0.3)
    with pytest.raises(PreconditionFailed, match="over late did not reach the shared fault's ready point"):
        j.meet("a", joint.READY)
