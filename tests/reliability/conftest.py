"""Reliability of the suite itself: inner sessions that are interrupted, killed, run side by side,
or pointed at a broker that never gets ready. `containers`-marked tests start real brokers."""
from __future__ import annotations

import pytest

from ..provision.conftest import engine  # noqa: F401 - the container engine fixture, shared
from .inner import Inner


@pytest.fixture
def inner(engine, tmp_path):  # noqa: F811
    """inner(name, *pytest_args, env=...) -> a background inner session; all are killed and their
    containers removed at the end, whatever the test did."""
    started: list[Inner] = []

    def make(name, *args, env=None, pace_s=0.0, mark_after=1, ignore_sigint=False):
        s = Inner(engine, tmp_path / name, args, env=env, pace_s=pace_s, mark_after=mark_after,
                  ignore_sigint=ignore_sigint)
        started.append(s)
        return s
    yield make
    for s in started:
        s.discard()
