"""Integration: an expectation scoped to one protocol, on a real broker that speaks two (Qpid Broker-J
9.2.1: AMQP 0-9-1 and AMQP 1.0 on one port), covers that protocol's row only; the other protocol's
row of the same vector is judged on its own, an honest pass or fail, never xpass or xfail.

The vector is OpenMessaging's delivery count (openmessaging.system-header.delivery-count-counts),
whose Broker-J expectation was written for AMQP 0-9-1 (expectations/brokers.yaml). The entry here
names the implementation by a glob ending in the target's name, so it holds whether the rows name
the broker or a provider over it (`mqconform-om/amqp091@qpid-broker-j-9.2.1`)."""
from __future__ import annotations

import uuid

import pytest

from ..sessions import run_pytest
from .test_containers import containers_of_run

pytestmark = [pytest.mark.containers]

VECTOR = "openmessaging.system-header.delivery-count-counts"
TARGET = "qpid-broker-j-9.2.1"


def test_a_protocol_scoped_expectation_leaves_the_other_protocols_row_honest(engine, tmp_path):
    listed = tmp_path / "expectations.yaml"
    listed.write_text("expectations:\n"
                      f'  - {{implementation: "*{TARGET}", vector: {VECTOR}, protocol: amqp091, '
                      'reason: "over AMQP 0-9-1 only the redelivered flag, no count"}\n')
    run = uuid.uuid4().hex
    proc, rows, _ = run_pytest(["suites/openmessaging/test_openmessaging.py", "-k", VECTOR, "--target", TARGET,
                                "--expectations", str(listed)], tmp_path,
                               env={**engine.env, "MQCONFORM_RUN_ID": run}, timeout=900)
    by_protocol = {r["protocol"]: r for r in rows if r["vector_id"] == VECTOR}
    assert set(by_protocol) == {"amqp091", "amqp10"}, proc.stdout[-3000:] + proc.stderr[-3000:]
    old, new = by_protocol["amqp091"], by_protocol["amqp10"]
    # The row the entry was written for: its failure is the known one (xfail), or it passes now (xpass).
    assert old["expected_outcome"] == "fail" and old["outcome"] in ("xfail", "xpass"), old["message"]
    # The other protocol's row: nothing expected of it, so its outcome is its own.
    assert new["expected_outcome"] == "pass", new
    assert new["outcome"] in ("pass", "fail"), f"{new['outcome']}: {new['message']}"
    assert containers_of_run(engine, run) == [], "the session left containers behind"
