"""fixtures/run/environ.py: pytest never deletes PYTEST_CURRENT_TEST under a run's threads."""
from __future__ import annotations

import os
import threading

import _pytest.runner as runner

from fixtures.run import environ


def test_between_tests_the_variable_is_set_never_deleted():
    environ.keep_current_test_var()          # the plugin did it already; idempotent
    assert environ.VAR in os.environ         # this test runs: pytest set it
    runner._update_current_test_var(None, None)
    assert os.environ[environ.VAR] == environ.BETWEEN_TESTS


def test_a_thread_reading_the_environment_never_sees_a_name_vanish():
    errors: list = []
    stop = threading.Event()

    def reader():
        while not stop.is_set():
            try:
                dict(os.environ.items())
            except (KeyError, RuntimeError) as exc:  # what a deleted name did to the iteration
                errors.append(exc)
                return
    t = threading.Thread(target=reader)
    t.start()

    class Item:
        nodeid = "tests/x.py::y"
    for _ in range(20000):                   # what pytest does around every test
        runner._update_current_test_var(Item, "call")
        runner._update_current_test_var(Item, None)
    stop.set()
    t.join(10)
    assert errors == []
