"""Integration: whole conformance sessions against real brokers, as a user runs them.

- a short session leaves no container behind, and every row carries the broker's provenance;
- a broker that dies mid-run turns that target's remaining vectors into `error` rows with a
  clear message, while the other target finishes normally.
Each session is a separate pytest process with its own run id, so the containers it started
can be listed afterwards by their `mqconform.run` label.
"""
from __future__ import annotations

import textwrap
import uuid

import pytest

from ..sessions import run_pytest
from .test_containers import containers_of_run

pytestmark = [pytest.mark.containers]

# Loaded into the inner session with -p: kills a target's container after its Nth vector.
KILLER = textwrap.dedent('''
    import os
    _seen = {}

    def pytest_runtest_teardown(item):
        name, _, n = os.environ["MQC_KILL_AFTER"].partition(":")
        target = getattr(getattr(item, "callspec", None), "params", {}).get("target")
        if target is None or target.name != name:
            return
        _seen[name] = _seen.get(name, 0) + 1
        if _seen[name] == int(n):
            from fixtures.plugin.targets import brokers
            brokers(item.config).current(target).container._container.get_wrapped_container().kill()
''')


def run_session(engine, tmp_path, *args, extra_env=None, timeout=600):
    run = uuid.uuid4().hex
    proc, rows, _ = run_pytest(args, tmp_path, env={**engine.env, "MQCONFORM_RUN_ID": run, **(extra_env or {})},
                               timeout=timeout)
    return run, proc, rows


def test_short_session_leaves_no_container_and_records_provenance(engine, tmp_path):
    run, proc, rows = run_session(engine, tmp_path, "suites/rabbitmq_address/test_address_4_0.py",
                                  "-k", "queue", "--target", "rabbitmq-4.0.5", "--target", "rabbitmq-4.0.5+address-v1-denied")
    assert rows, proc.stdout[-3000:] + proc.stderr[-3000:]
    names = {r["implementation"]["name"] for r in rows}
    assert names == {"rabbitmq-4.0.5", "rabbitmq-4.0.5+address-v1-denied"}
    for r in rows:
        assert r["implementation"]["kind"] == "broker"
        assert r["implementation"]["provenance"]["image.id"], r
        assert r["adapter"].startswith(("python-qpid-proton", "pika")), r
        assert r["outcome"] != "error", r["message"]
    assert containers_of_run(engine, run) == [], "the session left containers behind"


def test_broker_killed_mid_run_gives_error_rows_and_the_other_target_finishes(engine, tmp_path):
    # Two containers of RabbitMQ 4.0.5 (the variant with amqp_address_v1 denied is killed after its first vector).
    (tmp_path / "kill_target.py").write_text(KILLER)
    run, proc, rows = run_session(engine, tmp_path, "-p", "kill_target", "suites/rabbitmq_address/test_address_4_0.py",
                                  "-k", "target-v2", "--target", "rabbitmq-4.0.5+address-v1-denied",
                                  "--target", "rabbitmq-4.0.5",
                                  extra_env={"MQC_KILL_AFTER": "rabbitmq-4.0.5+address-v1-denied:1"})
    by_target = {}
    for r in rows:
        by_target.setdefault(r["implementation"]["name"], []).append(r)
    killed, other = by_target.get("rabbitmq-4.0.5+address-v1-denied", []), by_target.get("rabbitmq-4.0.5", [])
    assert len(killed) == len(other) > 3, proc.stdout[-3000:]
    assert killed[0]["outcome"] != "error", killed[0]["message"]
    for r in killed[1:]:
        assert (r["outcome"], r["error_kind"]) == ("error", "target"), r
        assert "address-v1-denied" in r["message"] and ("died" in r["message"] or "unavailable" in r["message"]), r["message"]
    assert all(r["outcome"] != "error" for r in other), [r["message"] for r in other if r["outcome"] == "error"]
    assert containers_of_run(engine, run) == []
