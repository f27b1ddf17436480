"""The fault scenario's bookkeeping (fixtures/openmessaging/faults.py) on an in-memory binding whose
"broker" the test faults: what it confirmed and lost is named by id, what it delivers again after
an acknowledgement is a duplicate, and one fault run serves every semantics."""
from __future__ import annotations

import collections
from types import SimpleNamespace

import pytest

from fixtures.faults import steps
from fixtures.openmessaging import faults
from fixtures.openmessaging.binding import Delivery, Destination, Sent
from fixtures.openmessaging.model import OMMessage
from fixtures.verdict.outcomes import Unsupported


class MemBroker:
    def __init__(self):
        self.queues: dict[str, collections.deque] = {}
        self.acked: dict[str, list] = {}
        self.target = SimpleNamespace(name="mem-1", protocols=("mem",))
        self.container = object()
        self.shared = {faults.FAULT_STAGE: True}


class MemConsumer:
    def __init__(self, broker, queue, auto_ack):
        self.broker, self.queue, self.auto_ack, self.held = broker, queue, auto_ack, []

    def receive(self, timeout):
        q = self.broker.queues.get(self.queue)
        if not q:
            return None
        body = q.popleft()
        if not self.auto_ack:
            self.held.append(body)

        def settle(how, body=body):
            if not self.auto_ack and body in self.held:
                self.held.remove(body)
                self.broker.acked.setdefault(self.queue, []).append(body)
        return Delivery(OMMessage(headers={}, body=body), None, 0, settle)

    def close(self):
        self.broker.queues[self.queue].extendleft(reversed(self.held))   # unacked go back
        self.held = []


class MemBinding:
    protocol = "mem"

    def __init__(self, broker, auto_ack_offered=True):
        self.broker, self.auto_ack_offered, self.n = broker, auto_ack_offered, 0

    def destination(self, purpose="plain"):
        self.n += 1
        name = f"q{self.n}-{purpose}"
        self.broker.queues[name] = collections.deque()
        return Destination(topic=name, queues=[name])

    def consumer(self, dest, index=0, *, auto_ack=False):
        if auto_ack and not self.auto_ack_offered:
            raise Unsupported("no settled delivery here", feature="openmessaging/delivery-semantics/at-most-once")
        return MemConsumer(self.broker, dest.queues[0], auto_ack)

    def send(self, dest, om):
        assert om.headers == {"durability": 0}
        self.broker.queues[dest.queues[0]].append(om.body)
        return Sent(om.body.decode(), 0, 0)

    def unavailable(self, name):
        return None

    def close(self):
        pass

    def arrival_bound_s(self, count=1):
        return 0.5

    def arrival_gap_s(self):
        return 0.1

    def quiet_s(self):
        return 0.05

    def redelivery_wait_s(self):
        return 0.1

    def regroup(self):
        return None   # no consumer of it waits for a share of queues

    def arrival_why(self, count=1):
        return "test"

    quiet_why = arrival_why


def _run(monkeypatch, fault, *, auto_ack_offered=True):
    broker = MemBroker()
    b = MemBinding(broker, auto_ack_offered)
    monkeypatch.setattr(steps, "restart", lambda _: fault(broker) or 0.1)
    monkeypatch.setattr(faults, "_reopened", lambda b: MemBinding(b.broker, auto_ack_offered))   # connections anew
    return b, broker


def test_a_restart_that_loses_what_was_queued_is_counted_and_named(monkeypatch):
    def lose(broker):
        for q in broker.queues.values():
            q.clear()
    b, _ = _run(monkeypatch, lose)
    obs = faults.fault(b, {"fault": "restart", "semantics": "at-least-once"})
    # Sent before the fault: m00-m07; m00, m01 acknowledged, m02, m03 held unacknowledged (they go
    # back when their consumer closes, after the loss); the sends during the fault came before it.
    assert obs["tally"]["lost_ids"][:2] == ["m04", "m05"] and obs["lost"] > 0
    assert "m00" not in obs["tally"]["lost_ids"] and obs["duplicated"] == 0
    assert obs["survived_restart"] is False


def test_an_acknowledged_message_that_comes_again_is_a_duplicate(monkeypatch):
    def again(broker):
        for q, acked in broker.acked.items():
            broker.queues[q].extend(acked)
    b, _ = _run(monkeypatch, again)
    at_least = faults.fault(b, {"fault": "restart", "semantics": "at-least-once"})
    exactly = faults.fault(b, {"fault": "restart", "semantics": "exactly-once"})
    assert at_least["lost"] == 0 and at_least["duplicated"] == 2
    assert exactly["tally"] == at_least["tally"]            # one fault run, judged by each semantics
    assert at_least["tally"]["duplicated_ids"] == ["m00", "m01"]


def test_without_a_no_acknowledgement_mode_only_at_most_once_is_unsupported(monkeypatch):
    b, _ = _run(monkeypatch, lambda broker: None, auto_ack_offered=False)
    with pytest.raises(Unsupported):
        faults.fault(b, {"fault": "restart", "semantics": "at-most-once"})
    assert faults.fault(b, {"fault": "restart", "semantics": "at-least-once"})["lost"] == 0


def test_outside_the_fault_stage_nothing_is_faulted(monkeypatch):
    b, broker = _run(monkeypatch, lambda broker: pytest.fail("faulted outside the fault stage"))
    broker.shared.clear()
    from fixtures.verdict.outcomes import AdapterLimitation
    with pytest.raises(AdapterLimitation, match="--faults"):
        faults.fault(b, {"fault": "restart", "semantics": "at-least-once"})
