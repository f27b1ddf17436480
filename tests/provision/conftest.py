"""Provisioning tests. `containers`-marked tests start real brokers (select with -m containers,
leave out with -m "not containers"); the rest are fast and need no engine."""
from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "containers: starts broker containers (needs podman or Docker; slow, ~1 min)")


@pytest.fixture(scope="session")
def engine():
    """The container engine; fails under CI=true when none can be had, skips elsewhere."""
    from fixtures.provision import engine as engine_mod

    try:
        return engine_mod.ensure()
    except engine_mod.EngineUnavailable as e:
        if os.environ.get("CI"):
            pytest.fail(f"no container engine in CI: {e}")
        pytest.skip(f"no container engine: {e}")


# The run id of the shared containers: one per process, so that modules importing shared_target
# (each import is a fixture of its own) still get the same container.
SHARED_RUN = uuid.uuid4().hex


@pytest.fixture(scope="session")
def shared_target(engine):
    """shared_target(name, variant=None, **start_kwargs) -> a catalog target's container that the
    tests of this process asking for it share: started on first use, removed when the session ends.

    Only for tests that make their own uniquely named entities and neither stop, kill nor
    reconfigure the broker (a fresh broker would not change what they check). A test that removes
    every container of its process (stop_targets) makes the next use start a new one. Mark the
    users with one `xdist_group` so that they run on one worker and the broker starts once."""
    from fixtures.provision import start

    started = []

    def get(name, variant=None, **kwargs):
        rt = start(name, variant, run_id=SHARED_RUN, **kwargs)
        if rt not in started:
            started.append(rt)
        return rt
    yield get
    for rt in started:
        rt.stop()


@pytest.fixture
def stop_targets():
    """Remove whatever the test started, whatever happens."""
    from fixtures.provision import stop_all

    yield
    stop_all()
