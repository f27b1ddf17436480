"""Integration: both halves of the 4.0 address format's amq.default permission clause, on a real
RabbitMQ 4.0.5 (catalog target, default configuration).

"Internally, this queue target still uses the default exchange. Hence, the user needs write
permissions to exchange `amq.default`." The granted half sends as a user whose only permission is
write on `amq.default`; the refusal half as a user holding every permission but that one. Both are
users the vectors make through the management API and remove again: none is left on the broker."""
from __future__ import annotations

import uuid

import pytest

from ..sessions import run_pytest
from .test_containers import containers_of_run

pytestmark = [pytest.mark.containers]

TARGET = "rabbitmq-4.0.5"
CLAUSE = "rabbitmq-address@4.0/target-v2/queue-needs-amq-default-write-permission"
HALVES = {"rabbitmq-address@4.0.target-v2.queue-with-amq-default-write-permission": "granted",
          "rabbitmq-address@4.0.target-v2.queue-without-amq-default-write-permission": "refused"}


def test_both_halves_of_the_amq_default_permission_are_judged_and_hold(engine, tmp_path):
    run = uuid.uuid4().hex
    proc, rows, _ = run_pytest(["suites/rabbitmq_address/test_address_4_0.py", "-k", "amq-default",
                                "--target", TARGET], tmp_path, env={**engine.env, "MQCONFORM_RUN_ID": run},
                               timeout=900)
    by_vector = {r["vector_id"]: r for r in rows if r["vector_id"] in HALVES}
    assert set(by_vector) == set(HALVES), proc.stdout[-3000:] + proc.stderr[-3000:]
    for vid, row in by_vector.items():
        # Each half is judged on the clause itself, by a check (making the user is setup).
        assert row["outcome"] == "pass", f"{HALVES[vid]} half: {row['outcome']}: {row['message']}"
        assert row["clause_outcomes"].get(CLAUSE) == "pass", row
    assert containers_of_run(engine, run) == [], "the session left containers behind"

