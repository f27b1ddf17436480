"""The worker threads that bound an adapter's blocking client calls (fixtures/adapters/workers.py)."""
from __future__ import annotations

import threading
import time

import pytest

from fixtures.adapters.workers import Overdue, Workers


def test_calls_return_their_value_or_raise_their_exception_and_reuse_a_worker():
    w = Workers("t")
    try:
        assert [w.run(lambda i=i: i * 2, 5.0) for i in range(20)] == [2 * i for i in range(20)]
        with pytest.raises(KeyError, match="gone"):
            w.run(lambda: {}["gone"], 5.0)
        assert w.run(lambda: threading.current_thread().daemon, 5.0) is True
        assert w.started == 1
    finally:
        w.close()


def test_a_call_past_its_bound_is_overdue_and_does_not_hold_up_the_next():
    w, release = Workers("t"), threading.Event()
    try:
        t0 = time.monotonic()
        with pytest.raises(Overdue):
            w.run(lambda: release.wait(10), 0.1)
        assert time.monotonic() - t0 < 2
        assert w.run(lambda: "next", 5.0) == "next"     # on another worker
        assert w.started == 2
        release.set()
    finally:
        w.close()


def test_a_timeout_raised_by_the_call_itself_is_the_calls_not_an_overrun():
    w = Workers("t")
    try:
        def times_out():
            raise TimeoutError("the client's own")
        with pytest.raises(TimeoutError, match="the client's own"):
            w.run(times_out, 5.0)
    finally:
        w.close()


def test_close_ends_idle_workers_and_later_calls_still_run():
    w = Workers("t")
    w.run(lambda: None, 5.0)
    before = {t for t in threading.enumerate() if t.name.startswith("t-")}
    w.close()
    deadline = time.monotonic() + 5
    while any(t.is_alive() for t in before) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not any(t.is_alive() for t in before)
    assert w.run(lambda: "after", 5.0) == "after"
