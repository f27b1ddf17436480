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


def test_the_first_run_of_each_protocol_needing_a_shared_or_alongside_fault_is_one_group_the_rest_alone():
    r1, r2 = _v("alo.restart", fault="restart"), _v("amo.restart", fault="restart")
    c1, c2 = _v("alo.cut", fault="cut"), _v("amo.cut", fault="cut")
    d = _v("durability", scenario="durability-restart")
    items = [(r1, "amqp091"), (r2, "amqp091"), (c1, "amqp091"), (c2, "amqp091"), (d, "amqp091"),
             (r1, "amqp10"), (r2, "amqp10"), (c1, "amqp10"), (c2, "amqp10"), (d, "amqp10")]
    assert joint.groups(items) == [[(r1, "amqp091"), (r1, "amqp10")], [(r2, "amqp091")],
                                   [(c1, "amqp091"), (c1, "amqp10")], [(c2, "amqp091")],
                                   [(d, "amqp091")], [(r2, "amqp10")], [(c2, "amqp10")], [(d, "amqp10")]]
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
    with pytest.raises(PreconditionFailed, match="over late did not reach the shared pause's ready point"):
        j.meet("a", joint.READY)


def test_a_step_another_party_runs_is_waited_for_from_its_start_and_named():
    j = joint.Joint("restart", ["a", "b"], bound_s=0.5)
    started = threading.Event()

    def slow():
        started.set()
        time.sleep(2)
        return ("restarted", 2.0)
    runner = threading.Thread(target=lambda: j.meet("a", joint.FAULT, slow))
    threading.Timer(0.4, runner.start).start()     # b waits 0.4 s for a, then a runs the step for 2 s
    with pytest.raises(PreconditionFailed, match="restart's fault step, run by the run over a, did not end"):
        j.meet("b", joint.FAULT)
    assert started.is_set() and j.injecting.is_set() and j.injected_by == "a"
    runner.join(5)


def test_the_stage_lets_the_others_go_on_when_a_party_fails_before_it_comes_to_the_fault(monkeypatch):
    """A party whose vector fails before its fault run (its witness, its binding) leaves the shared fault:
    the others are not held up to the bound, and every Future of the stage is settled."""
    from concurrent.futures import Future

    from fixtures.openmessaging import pool, runner

    broker = SimpleNamespace(shared={}, target=SimpleNamespace(name="t"))
    r_a, r_b = _v("alo.restart", fault="restart"), _v("amo.restart", fault="restart")
    items = [(r_a, "A"), (r_a, "B"), (r_b, "A"), (r_b, "B")]

    def run_vector(vector, broker_, protocol, registry):
        j = joint.of(broker_, "restart")
        if j is None:                                   # after the group: the cached run
            return {"vector": vector.id, "protocol": protocol}, None
        if protocol == "A":
            raise RuntimeError("the witness did not hold")
        j.meet(protocol, joint.READY)
        return {"how": j.meet(protocol, joint.FAULT, lambda: ("restarted", 1.0))}, None
    monkeypatch.setattr(runner, "run_vector", run_vector)
    monkeypatch.setattr(pool, "RESULT_BOUND_S", 30.0)
    jobs = SimpleNamespace(broker=broker, registry=None, futures={}, seconds={},
                           stage={(v.id, p): Future() for v, p in items})
    t0 = time.monotonic()
    pool._stage(jobs, items, [])
    assert time.monotonic() - t0 < 5
    assert isinstance(jobs.stage[("alo.restart", "A")].exception(0), RuntimeError)
    assert jobs.stage[("alo.restart", "B")].result(0)[0] == {"how": ("restarted", 1.0)}
    assert all(f.done() for f in jobs.stage.values()) and (joint.KEY, "restart") not in broker.shared


def test_a_run_that_left_or_comes_after_the_stage_let_go_never_joins_a_past_fault():
    j = joint.Joint("kill", ["a", "b"], bound_s=1)
    broker = SimpleNamespace(shared={(joint.KEY, "kill"): j})
    j.leave("b")
    assert joint.taking(broker, "kill", "a") is j and joint.taking(broker, "kill", "b") is None
    with pytest.raises(PreconditionFailed, match="not one of the shared fault's runs"):
        j.meet("b", joint.READY)
    j.close()
    assert joint.taking(broker, "kill", "a") is None and joint.taking(broker, "cut", "a") is None


def test_the_cut_runs_of_the_protocols_go_side_by_side_each_under_its_own_lock_alone(monkeypatch):
    """A cut hits a proxy made for its own run (joint.ALONGSIDE): the stage starts the protocols' cut runs
    together, under the broker's fault lock, and each run's own lock is its protocol's (faults.shared_run)."""
    from concurrent.futures import Future

    from fixtures.openmessaging import faults, pool, runner

    broker = SimpleNamespace(target=SimpleNamespace(name="t"), shared={})
    c_a, c_b = _v("alo.cut", fault="cut"), _v("amo.cut", fault="cut")
    items = [(c_a, "A"), (c_a, "B"), (c_b, "A")]
    both = threading.Barrier(2, timeout=5)
    seen = []

    def run_vector(vector, broker_, protocol, registry):
        seen.append((vector.id, protocol, broker_.shared.get((joint.SIDE_KEY, "cut")),
                     faults.broker_lock(broker_).locked()))
        if vector.id == "alo.cut":
            both.wait()                                  # both protocols' runs are in at once, or this times out
        return {"vector": vector.id, "protocol": protocol}, None
    monkeypatch.setattr(runner, "run_vector", run_vector)
    jobs = SimpleNamespace(broker=broker, registry=None, futures={}, seconds={},
                           stage={(v.id, p): Future() for v, p in items})
    pool._stage(jobs, items, [])
    assert all(f.result(0)[0]["vector"] == vid for (vid, _), f in jobs.stage.items())
    assert sorted(seen[:2]) == [("alo.cut", "A", {"A", "B"}, True), ("alo.cut", "B", {"A", "B"}, True)]
    assert seen[2] == ("amo.cut", "A", None, False)     # alone, after the group: the flag gone, the lock free
    assert (joint.SIDE_KEY, "cut") not in broker.shared


def test_a_cut_run_of_the_group_takes_its_protocols_lock_and_any_other_run_the_brokers(monkeypatch):
    """faults.shared_run while the stage holds the broker's lock for a cut's group of protocols A and B:
    A's run goes on under its own lock; C's (not of the group) waits for the broker's, so that it can
    never outlive the group into the next fault."""
    from fixtures.openmessaging import faults

    broker = SimpleNamespace(target=SimpleNamespace(name="t"), shared={})
    monkeypatch.setattr(faults, "run", lambda b, name: {"acked": f"{b.protocol} ran", "auto": "-"})
    done = {}

    def take(proto):
        b = SimpleNamespace(broker=broker, protocol=proto)
        t = threading.Thread(target=lambda: done.setdefault(proto, faults.shared_run(b, "cut")["acked"]))
        t.start()
        return t
    with faults.broker_lock(broker):
        broker.shared[(joint.SIDE_KEY, "cut")] = frozenset({"A", "B"})
        a, c = take("A"), take("C")
        a.join(5)
        c.join(0.5)
        assert done == {"A": "A ran"} and c.is_alive()
        broker.shared.pop((joint.SIDE_KEY, "cut"))
    c.join(5)
    assert done == {"A": "A ran", "C": "C ran"}
