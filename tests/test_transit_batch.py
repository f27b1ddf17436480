"""RocketMQ's transit vectors of a target go through its topic together (fixtures/measurements/wire.py
rocketmq_transit_many): every message sent first, then one bounded drain that finds each by the id the
broker gave it, skipping what is not this batch's. Pure: an in-memory topic, no broker."""
from __future__ import annotations

from types import SimpleNamespace

from fixtures.adapters.base import Refused
from fixtures.measurements import wire


class Topic:
    """Hands messages back in reverse, at most `batch` a receive, after an earlier run's stray one;
    `lose` never comes back."""

    def __init__(self, lose=(), refuse=(), batch=1):
        self.sent, self.lose, self.refuse, self.receives, self.batch = [], set(lose), set(refuse), 0, batch
        self.asked = []

    def send(self, topic, message):
        if message in self.refuse:
            raise Refused(SimpleNamespace(condition="x", description="no"), "refused")
        self.sent.append((f"id-{message}", message))
        return f"id-{message}"

    def receive(self, topic, group):
        self.receives += 1
        if self.receives == 1:
            return SimpleNamespace(message_id="id-stray", message="stray")
        left = [s for s in self.sent if s[1] not in self.lose]
        if not left:
            return None
        mid, message = left.pop()
        self.sent.remove((mid, message))
        return SimpleNamespace(message_id=mid, message=message)

    def receive_many(self, topic, group, most):
        self.asked.append(most)
        out = []
        while len(out) < min(most, self.batch) and (got := self.receive(topic, group)) is not None:
            out.append(got)
            if got.message == "stray":
                break
        return out


def run(topic, messages, monkeypatch):
    broker = SimpleNamespace(adapter=lambda protocol: SimpleNamespace(topics=topic))
    monkeypatch.setattr(wire, "_rocketmq_topic", lambda b, a: ("ce", "ce_g"))
    return wire.rocketmq_transit_many(broker, "rocketmq-grpc", messages)


def test_each_message_is_found_by_its_id_whatever_the_order(monkeypatch):
    got = run(Topic(), ["a", "b", "c"], monkeypatch)
    assert got == [("ok", "a"), ("ok", "b"), ("ok", "c")]


def test_a_message_that_never_comes_is_not_delivered_and_the_drain_ends(monkeypatch):
    topic = Topic(lose={"b"})
    got = run(topic, ["a", "b", "c"], monkeypatch)
    assert got[0] == ("ok", "a") and got[2] == ("ok", "c")
    assert got[1][0] == "not-delivered" and "id-b" in got[1][1]
    assert topic.receives <= 3 * 3


def test_a_refused_send_is_that_message_not_delivered_the_others_go_on(monkeypatch):
    got = run(Topic(refuse={"b"}), ["a", "b"], monkeypatch)
    assert got[0] == ("ok", "a") and got[1][0] == "not-delivered" and "refused" in got[1][1]


def test_a_receive_takes_several_at_once_and_asks_for_no_more_than_are_missing(monkeypatch):
    topic = Topic(batch=16)
    got = run(topic, [str(i) for i in range(20)], monkeypatch)
    assert got == [("ok", str(i)) for i in range(20)]
    assert topic.asked[0] == wire.RECEIVE_MANY and topic.asked[-1] <= 20 - wire.RECEIVE_MANY + 1
    assert len(topic.asked) <= 4      # a stray, then two full receives at most, then the rest
