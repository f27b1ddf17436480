"""Provisioning tests. `containers`-marked tests start real brokers (select with -m containers,
leave out with -m "not containers"); the rest are fast and need no engine."""
from __future__ import annotations

import os
import sys
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


@pytest.fixture
def stop_targets():
    """Remove whatever the test started, whatever happens."""
    from fixtures.provision import stop_all

    yield
    stop_all()
