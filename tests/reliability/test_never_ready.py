"""A broker that never becomes ready: every vector of that target is an `error` row naming the
target and the readiness check that did not pass, within the catalog's start bound (plus a little),
and no container is left.

The target is injected through MQCONFORM_TARGETS (catalog.load's documented override): a copy of
the real catalog's garagemq entry (same image, so nothing is built) whose only readiness check is a
command that always fails.
"""
from __future__ import annotations

import uuid

import pytest
import yaml

from fixtures.provision.catalog import DEFAULT_CATALOG

from ..provision.test_containers import containers_of_run
from ..sessions import run_pytest
from .vectors import QUICK_COUNT, QUICK_GARAGEMQ

pytestmark = [pytest.mark.containers]

START_BOUND_S = 6


def never_ready_catalog(path):
    data = yaml.safe_load(DEFAULT_CATALOG.read_text())
    garage = next(t for t in data["targets"] if t["name"] == "garagemq")
    garage["readiness"] = {"start_timeout_s": START_BOUND_S, "checks": [
        {"command": ["sh", "-c", "echo still warming up; exit 1"]}]}
    data["targets"] = [garage]
    path.write_text(yaml.safe_dump(data))
    return path


def test_never_ready_target_gives_error_rows_within_the_bound(engine, tmp_path):
    catalog = never_ready_catalog(tmp_path / "never-ready.yaml")
    run = uuid.uuid4().hex
    proc, rows, took = run_pytest(QUICK_GARAGEMQ, tmp_path, timeout=180,
                                  env={**engine.env, "MQCONFORM_RUN_ID": run, "MQCONFORM_TARGETS": str(catalog)})
    assert len(rows) == QUICK_COUNT, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert all(r["outcome"] == "error" for r in rows), [r["outcome"] for r in rows]
    first = rows[0]["message"]
    assert "target garagemq is unavailable" in first, first
    assert f"not ready within {START_BOUND_S}s" in first and "exited 1: still warming up" in first, first
    # the first vector waits one start bound; the others are refused at once with the same reason
    assert all(r["message"] == first for r in rows[1:])
    assert sum(r["duration_s"] for r in rows[1:]) < 2, [r["duration_s"] for r in rows]
    assert took < START_BOUND_S + 45, f"{took:.0f}s"
    assert containers_of_run(engine, run) == [], "the never-ready broker's container was left behind"
