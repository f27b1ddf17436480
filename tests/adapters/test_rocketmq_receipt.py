"""A popped RocketMQ message held unsettled is kept invisible (its invisible time extended before it
runs out) until it is acked or its consumer dies; an ack the proxy refuses as an expired receipt
handle is our client's timing, said as such (an adapter error), never a bare client exception."""
import re
import threading
import time

import pytest

from fixtures.adapters import rocketmq as R
from fixtures.adapters import rocketmq_received as held
from fixtures.adapters.base import PeerError, Refused, TransportError
from fixtures.codecs.model import RocketMQMessage
from fixtures.verdict.outcomes import AdapterLimitation


class _Client:
    """Records what a SimpleConsumer was asked; `refuse` answers each call with that condition."""

    def __init__(self, refuse=None, fail_changes=0):
        self.calls: list[str] = []
        self.extended = threading.Event()
        self.refuse = refuse
        self.fail_changes = fail_changes           # the first n extensions fail (no answer in time)

    def ack(self, raw):
        self._answer("ack")

    def change_invisible_duration(self, raw, seconds):
        if self.fail_changes:
            self.fail_changes -= 1
            self.calls.append(f"change {seconds} failed")
            raise TransportError("change of the invisible time at 127.0.0.1:1: StatusCode.UNAVAILABLE")
        self._answer(f"change {seconds}")
        self.extended.set()

    def _answer(self, call):
        self.calls.append(call)
        if self.refuse:
            raise Refused(call, PeerError("request", self.refuse, "receipt handle is expired"))


class _Adapter:
    def call(self, what, fn, *, topic=None, bound=None):
        return fn()


def _received(client, invisible_s=1, asked_at=None):
    asked = time.monotonic() if asked_at is None else asked_at
    return held.Received(RocketMQMessage(topic="t", properties={}, body=b"x"), "m-1", 1, None, None, None, "NORMAL",
                      False, client, object(), _Adapter(), invisible_s, asked, asked + 0.5)


def test_a_held_message_is_extended_before_its_invisible_time_runs_out_and_then_acked(monkeypatch):
    monkeypatch.setattr(held, "RENEW_AT", 0.01)
    client = _Client()
    r = _received(client)
    r.hold()
    assert client.extended.wait(5), "the held message's invisible time was never extended"
    r.ack()
    calls = list(client.calls)
    assert calls[0] == "change 1" and calls[-1] == "ack"
    time.sleep(0.1)                                # ten extension periods: none after the ack
    assert client.calls == calls
    assert r.acked


def test_a_released_message_is_not_extended(monkeypatch):
    monkeypatch.setattr(held, "RENEW_AT", 0.5)
    client = _Client()
    r = _received(client, invisible_s=4)           # the extension due 2 s after the receive
    r.hold()
    r.release()                                    # its consumer died: it must come back
    assert r._hold.timer.finished.is_set()         # the extension's timer was cancelled
    assert not client.extended.wait(2.5)
    assert client.calls == []


def test_an_expired_receipt_handle_is_named_as_our_clients_timing():
    r = _received(_Client(refuse=held.RECEIPT_EXPIRED), invisible_s=5, asked_at=time.monotonic() - 6.5)
    with pytest.raises(held.InvisibleTimeRanOut) as exc:
        r.ack()
    assert isinstance(exc.value, AdapterLimitation) and exc.value.kind == "adapter"
    text = str(exc.value)
    assert "5 s invisible time" in text and "INVALID_RECEIPT_HANDLE" in text and "not the broker's" in text
    took = re.search(r"came ([0-9.]+) s after its receive .*, ([0-9.]+) s after that returned", text)
    assert took and float(took.group(1)) >= 6.5 and float(took.group(2)) >= 6.0
    assert not r.acked


def test_a_failed_extension_is_tried_again_while_the_invisible_time_lasts(monkeypatch):
    monkeypatch.setattr(held, "RENEW_AT", 0.01)
    monkeypatch.setattr(held, "RETRY_S", 0.01)
    client = _Client(fail_changes=2)
    r = _received(client, invisible_s=5)
    r.hold()
    assert client.extended.wait(5), "the extension was not tried again after it failed"
    r.ack()
    assert client.calls[:3] == ["change 5 failed", "change 5 failed", "change 5"] and client.calls[-1] == "ack"
    assert r._hold.extensions >= 1 and r._hold.failure is None


def test_an_expired_handle_after_a_failed_extension_says_what_the_hold_did(monkeypatch):
    monkeypatch.setattr(held, "RENEW_AT", 0.01)
    client = _Client(fail_changes=1)
    r = _received(client, invisible_s=1, asked_at=time.monotonic() - 0.995)    # no time left for another try
    r.hold()
    deadline = time.monotonic() + 5
    while not r._hold.stopped and time.monotonic() < deadline:
        time.sleep(0.01)
    assert r._hold.stopped and client.calls == ["change 1 failed"]
    client.refuse = held.RECEIPT_EXPIRED
    with pytest.raises(held.InvisibleTimeRanOut) as exc:
        r.ack()
    text = str(exc.value)
    assert re.search(r"extended 0 time\(s\); the next extension, tried [0-9.]+ s after the receive", text), text
    assert "failed (TransportError: change of the invisible time at 127.0.0.1:1: StatusCode.UNAVAILABLE)" in text
    assert "not the broker's" in text


def test_an_extension_refused_as_expired_is_not_tried_again(monkeypatch):
    monkeypatch.setattr(held, "RENEW_AT", 0.01)
    monkeypatch.setattr(held, "RETRY_S", 0.01)
    client = _Client(refuse=held.RECEIPT_EXPIRED)
    r = _received(client, invisible_s=5)
    r.hold()
    deadline = time.monotonic() + 5
    while not r._hold.stopped and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)                                # ten retry periods: no second try
    assert client.calls == ["change 5"]
    with pytest.raises(held.InvisibleTimeRanOut) as exc:
        r.ack()
    assert "failed (the proxy refused the expired receipt handle (INVALID_RECEIPT_HANDLE))" in str(exc.value)


class _Raw:
    receipt_handle = "handle-1"


class _EmptyingClient(_Client):
    """As the client library does: the answer's (empty) receipt handle is stored before its status is read."""

    def change_invisible_duration(self, raw, seconds):
        raw.receipt_handle = ""
        self.calls.append(f"change {seconds}")
        raise Refused("change", PeerError("request", "INTERNAL_SERVER_ERROR", "busy"))


def test_a_refused_change_leaves_the_message_its_receipt_handle():
    r = _received(_EmptyingClient())
    r._raw = _Raw()
    with pytest.raises(Refused):
        r.change_invisible_duration(1)
    assert r._raw.receipt_handle == "handle-1"


def test_a_late_ack_after_extensions_made_says_the_next_was_not_made(monkeypatch):
    monkeypatch.setattr(held, "RENEW_AT", 0.5)
    client = _Client()
    r = _received(client, invisible_s=5, asked_at=time.monotonic() - 6.0)
    r._hold = held._Hold(r)                           # held, its timer never ran (a starved machine)
    r._hold.extensions = 2
    client.refuse = held.RECEIPT_EXPIRED
    with pytest.raises(held.InvisibleTimeRanOut) as exc:
        r.ack()
    assert "extended 2 time(s); the next extension, due 2.5 s after the receive (or last extension) was asked " \
           "for, was not made in time" in str(exc.value)


def test_another_refusal_of_an_ack_is_the_brokers_answer():
    r = _received(_Client(refuse="INTERNAL_SERVER_ERROR"))
    with pytest.raises(Refused):
        r.ack()


def test_the_clients_expired_handle_answer_is_read_as_that_condition():
    client_exceptions = pytest.importorskip("rocketmq.v5.exception")
    from fixtures.adapters.workers import Workers
    adapter = R.RocketMQAdapter.__new__(R.RocketMQAdapter)
    adapter.endpoint, adapter.wait_s, adapter._workers = "127.0.0.1:1", 1.0, Workers("test-receipt")

    def ack():
        raise client_exceptions.BadRequestException("receipt handle is expired", 40013)
    try:
        with pytest.raises(Refused) as exc:
            adapter.call("ack of m-1", ack)
    finally:
        adapter._workers.close()
    assert exc.value.error.condition == held.RECEIPT_EXPIRED
