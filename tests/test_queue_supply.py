"""The queue supply's own logic (fixtures/run/queue_supply.py), on a recording stand-in for the
topology part: what is declared ahead, handed out once, deleted behind, and the fallbacks."""
from __future__ import annotations

import threading
import time

import pytest

from fixtures.run.queue_supply import QueueSupply


class Recorder:
    """Records declare / delete calls; `fail_on` makes one of them raise."""

    def __init__(self, fail_on: str | None = None):
        self.declared: list[str] = []
        self.deleted: list[str] = []
        self.fail_on = fail_on
        self.closed = threading.Event()

    def declare_queue(self, name):
        if self.fail_on == "declare":
            raise ConnectionError("broker gone")
        self.declared.append(name)

    def delete_queue(self, name):
        self.deleted.append(name)


class Hanging(Recorder):
    """A broker whose declares hang until `release` is set (at most 5 s)."""

    def __init__(self, release):
        super().__init__()
        self.release = release

    def declare_queue(self, name):
        self.release.wait(5)
        super().declare_queue(name)


def supply_on(rec, **kw):
    return QueueSupply(lambda: (rec, rec.closed.set), **kw)


def eventually(cond, bound=5.0):
    deadline = time.monotonic() + bound
    while not cond():
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.005)


def test_hands_out_each_declared_queue_once_and_keeps_some_ahead():
    rec = Recorder()
    s = supply_on(rec, delete_behind=True, ahead=2)
    try:
        names = [s.take() for _ in range(5)]
        assert len(set(names)) == 5 and all(n in rec.declared for n in names)
        eventually(lambda: len(rec.declared) == 7)      # two more declared ahead
        time.sleep(0.05)
        assert len(rec.declared) == 7                     # and no more
    finally:
        s.close()


def test_retired_queues_are_deleted_behind_and_unused_ones_at_close():
    rec = Recorder()
    s = supply_on(rec, delete_behind=True, ahead=2)
    used = s.take()
    s.retire(used)
    eventually(lambda: used in rec.deleted)
    assert s.close() == 0
    assert sorted(rec.deleted) == sorted(rec.declared)   # nothing left on the broker
    assert rec.closed.is_set()


def test_without_delete_behind_used_queues_stay_and_unused_ones_still_go():
    rec = Recorder()
    s = supply_on(rec, delete_behind=False, ahead=2)
    used = s.take()
    s.retire(used)
    s.close()
    assert used not in rec.deleted
    assert sorted(rec.deleted) == sorted(set(rec.declared) - {used})


def test_a_failed_supply_sends_callers_back_to_declaring_inline():
    rec = Recorder(fail_on="declare")
    s = supply_on(rec, delete_behind=True)
    t0 = time.monotonic()
    assert s.take() is None
    assert time.monotonic() - t0 < 8.0                 # told by the failure, not by take's 10 s wait running out
    assert "broker gone" in s.failed
    s.close()


def test_a_supply_that_cannot_connect_fails_the_same_way():
    def refuse():
        raise ConnectionRefusedError("nobody listens")
    s = QueueSupply(refuse, delete_behind=True)
    assert s.take() is None and "nobody listens" in s.failed
    s.close()


def test_take_is_bounded_when_declares_hang():
    release = threading.Event()
    s = supply_on(Hanging(release), delete_behind=True, take_wait_s=0.2)
    t0 = time.monotonic()
    assert s.take() is None
    assert 0.15 < time.monotonic() - t0 < 4.0          # its own wait, not the declare that hangs 5 s
    release.set()
    s.close()


@pytest.mark.parametrize("ahead", [1, 3])
def test_concurrent_takers_never_share_a_queue(ahead):
    rec = Recorder()
    s = supply_on(rec, delete_behind=True, ahead=ahead)
    got, lock = [], threading.Lock()

    def taker():
        for _ in range(20):
            n = s.take()
            with lock:
                got.append(n)
    threads = [threading.Thread(target=taker) for _ in range(3)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    s.close()
    assert None not in got and len(set(got)) == 60


def test_a_dropped_connection_is_reopened_once():
    """An idle connection the broker dropped (heartbeats unanswered) fails the next call once."""
    opened = []

    class DropsOnce(Recorder):
        def declare_queue(self, name):
            if len(opened) == 1 and len(self.declared) == 2:
                raise ConnectionResetError("connection dropped while idle")
            super().declare_queue(name)
    rec = DropsOnce()

    def open_topology():
        opened.append(1)
        return rec, lambda: None
    s = QueueSupply(open_topology, delete_behind=True, ahead=1)
    names = [s.take() for _ in range(4)]
    s.close()
    assert None not in names and s.failed is None
    assert len(opened) == 2


def test_wait_full_returns_once_the_supply_has_caught_up():
    rec = Recorder()
    s = supply_on(rec, delete_behind=True, ahead=2)
    try:
        used = [s.take() for _ in range(3)]
        for name in used:
            s.retire(name)
        assert s.wait_full(5.0)
        # caught up: as many ready as it keeps ahead, and every retired queue deleted
        assert len(rec.declared) == 5 and sorted(rec.deleted) == sorted(used)
    finally:
        s.close()


def test_wait_full_is_bounded_when_declares_hang():
    release = threading.Event()
    s = supply_on(Hanging(release), delete_behind=True, take_wait_s=0.1)
    t0 = time.monotonic()
    assert s.wait_full(0.2) is False
    assert 0.15 < time.monotonic() - t0 < 4.0          # its own wait, not the declare that hangs 5 s
    release.set()
    s.close()


class Restarted(Recorder):
    """A broker that lost the supply's queues (a restart: they are not durable): its deletes refuse 404,
    as garagemq's and Broker-J's do (RabbitMQ deletes a missing queue without a word)."""

    def delete_queue(self, name):
        from fixtures.adapters.base import PeerError, Refused
        raise Refused("queue.delete", PeerError("channel", "404", f"NOT_FOUND - queue '{name}' not found"))


def test_a_queue_the_broker_no_longer_has_is_deleted_as_wanted_not_a_failure():
    rec = Restarted()
    opened = []
    s = QueueSupply(lambda: (opened.append(1), (rec, rec.closed.set))[1], delete_behind=True, ahead=2)
    s.retire(s.take())
    assert s.close() == 0
    assert s.failed is None and s.deleted == len(rec.declared) >= 2
    assert len(opened) <= 4        # no second connection per "not found"


def test_another_refused_delete_still_stops_the_supply():
    from fixtures.adapters.base import PeerError, Refused

    class Forbidden(Recorder):
        def delete_queue(self, name):
            raise Refused("queue.delete", PeerError("channel", "403", "ACCESS_REFUSED"))
    s = supply_on(Forbidden(), delete_behind=True, ahead=1)
    s.retire(s.take())
    s.close()
    assert s.failed and "403" in s.failed
