"""A send refused by the broker's flow control (TOO_MANY_REQUESTS) is sent again after short pauses,
each noted as a wait; any other refusal, and the last flow-control one, is the send's answer."""
from types import SimpleNamespace

import pytest

from fixtures.adapters import rocketmq as R
from fixtures.adapters.base import PeerError, Refused
from fixtures.codecs.model import RocketMQMessage
from fixtures.verdict import waits


class _Adapter:
    def __init__(self, answers):
        self.answers = list(answers)
        self.sent = 0

    def call(self, what, fn, *, topic=None, bound=None):
        self.sent += 1
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return SimpleNamespace(message_id=answer)


def _topics(adapter, monkeypatch):
    topics = R.Topics.__new__(R.Topics)
    topics._a = adapter
    monkeypatch.setattr(topics, "_producer_started", lambda: object(), raising=False)
    monkeypatch.setattr(R, "message_to_client", lambda topic, message: SimpleNamespace(topic=topic))
    monkeypatch.setattr(R.time, "sleep", lambda s: None)
    return topics


def _refused(condition):
    return Refused("send to 't'", PeerError("request", condition, "broker busy"))


def test_flow_control_is_waited_out_and_noted(monkeypatch):
    adapter = _Adapter([_refused(R.FLOW_CONTROL), _refused(R.FLOW_CONTROL), "id-1"])
    with waits.collecting() as waited:
        assert _topics(adapter, monkeypatch).send("t", RocketMQMessage(body=b"x")) == "id-1"
    assert adapter.sent == 3
    assert [w[1] for w in waited] == list(R.FLOW_CONTROL_BACKOFF_S[:2])
    assert all("flow control" in w[2] for w in waited)


def test_the_last_flow_control_refusal_and_any_other_are_the_answer(monkeypatch):
    adapter = _Adapter([_refused(R.FLOW_CONTROL)] * (len(R.FLOW_CONTROL_BACKOFF_S) + 1))
    with pytest.raises(Refused, match="TOO_MANY_REQUESTS"):
        _topics(adapter, monkeypatch).send("t", RocketMQMessage(body=b"x"))
    assert adapter.sent == len(R.FLOW_CONTROL_BACKOFF_S) + 1
    adapter = _Adapter([_refused("BAD_REQUEST"), "never"])
    with pytest.raises(Refused, match="BAD_REQUEST"):
        _topics(adapter, monkeypatch).send("t", RocketMQMessage(body=b"x"))
    assert adapter.sent == 1


def test_a_message_with_a_delivery_time_is_never_sent_again(monkeypatch):
    adapter = _Adapter([_refused(R.FLOW_CONTROL), "never"])
    with pytest.raises(Refused, match="TOO_MANY_REQUESTS"):
        _topics(adapter, monkeypatch).send("t", RocketMQMessage(body=b"x"), delivery_timestamp_s=2_000_000_000)
    assert adapter.sent == 1
