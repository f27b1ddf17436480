"""A shim's build lock (fixtures/process/shims.py): its wait is bounded, and running out of it is
that shim's build failure (ShimBuildError, which every caller handles), not another error."""
from __future__ import annotations

import fcntl
import time

import pytest

from fixtures.process import shims
from fixtures.provision import images


def test_a_shim_whose_lock_stays_held_is_a_shim_build_error(tmp_path, monkeypatch):
    monkeypatch.setenv("MQCONFORM_STATE", str(tmp_path))
    monkeypatch.setattr(shims, "BUILD_TIMEOUT_S", 0.2)
    monkeypatch.setattr(shims, "LOCKED_EXTRA_S", 0.3)
    lock = tmp_path / "build" / "shim-cloudevents-java.lock"
    lock.parent.mkdir(parents=True)
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(shims.ShimBuildError, match="shim cloudevents-java: another build held .* more than 0s"):
            shims.build("shims/cloudevents-java")


def test_an_image_waiter_waits_as_long_as_a_build_may_hold_the_lock(tmp_path, monkeypatch):
    """Not the bound of one step: a build holds its lock through a prebuild and an image build."""
    monkeypatch.setenv("MQCONFORM_STATE", str(tmp_path))
    monkeypatch.setenv("MQCONFORM_BUILD_TIMEOUT", "0.2")
    monkeypatch.setattr(images, "LOCKED_EXTRA_S", 0.4)
    lock = tmp_path / "build" / "x.lock"
    lock.parent.mkdir(parents=True)
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        t0 = time.monotonic()
        with pytest.raises(images.ImageError, match="image x: another build held"):
            with images.build_lock("x"):
                pass
        assert time.monotonic() - t0 >= 0.8     # 2 x 0.2 + 0.4, not 0.2
