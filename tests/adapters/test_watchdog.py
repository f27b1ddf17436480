"""fixtures/adapters/watchdog.py: the one-thread deadline keeper behind the AMQP 0-9-1 adapter's
bounded calls."""
from __future__ import annotations

import threading
import time

from fixtures.adapters.watchdog import Watchdog


def test_fires_once_past_the_bound():
    fired = []
    first = threading.Event()
    w = Watchdog("t")
    try:
        w.arm(0.05, lambda: (fired.append(time.monotonic()), first.set()))
        assert first.wait(5.0)
        time.sleep(0.3)                                    # six bounds more: no second call
        assert len(fired) == 1
    finally:
        w.close()


def test_disarmed_in_time_never_fires_and_can_be_armed_again():
    fired = threading.Event()
    w = Watchdog("t")
    try:
        for _ in range(100):
            prev = w.arm(5.0, fired.set)
            w.disarm(prev)
        time.sleep(0.3)
        assert not fired.is_set()
        w.arm(0.05, fired.set)             # earlier than a 5 s wait the thread may be in: it is woken
        assert fired.wait(5.0)
    finally:
        w.close()


def test_an_inner_bound_restores_the_outer_one():
    fired = threading.Event()
    w = Watchdog("t")
    try:
        outer = w.arm(0.15, fired.set)
        inner = w.arm(5.0, lambda: None)      # later deadline: the outer one still holds
        w.disarm(inner)
        assert fired.wait(5.0)
        w.disarm(outer)
    finally:
        w.close()


def test_a_raising_expiry_does_not_end_the_watchdog():
    raised, fired = threading.Event(), threading.Event()

    def boom():
        raised.set()
        raise ZeroDivisionError

    w = Watchdog("t")
    try:
        w.arm(0.01, boom)
        assert raised.wait(5.0)        # the first expiry has run (an unfired earlier deadline would win)
        w.arm(0.01, fired.set)
        assert fired.wait(5.0)
    finally:
        w.close()


def test_close_ends_the_thread():
    w = Watchdog("t")
    w.close()
    w._thread.join(2.0)
    assert not w._thread.is_alive()
