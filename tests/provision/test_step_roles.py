"""Step roles against a real broker (RabbitMQ 4.0.5 and 3.10.8): what a row blames when a setup
step fails, when the observation channel breaks, and when a check fails; and a document that
does not describe a version (the 4.0 address format on 3.10.8) makes every row not applicable.

The vectors are written here, into a vector tree of the test's own (docs/verdicts.md)."""
from __future__ import annotations

import uuid

import pytest
import yaml

from ..sessions import run_pytest

pytestmark = [pytest.mark.containers]

SPEC = "rabbitmq-address@4.0"
ACCEPTED, NEVER_MODIFIED = f"{SPEC}/outcomes/sender-accepted", f"{SPEC}/outcomes/sender-never-modified"
CLAUSES = {
    "spec": SPEC, "revision": "4.0", "title": "t", "source": "rabbitmq-4.0-amqp-addresses.md",
    "applies_to": [{"product": "rabbitmq", "versions": ">=4.0",
                    "because": "RabbitMQ 4.0 introduces a new RabbitMQ specific AMQP address format, v2."}],
    "clauses": [{"id": ACCEPTED, "section": "outcomes", "level": "MUST", "quote": "All queues ... accepted the message."},
                {"id": NEVER_MODIFIED, "section": "outcomes", "level": "MUST NOT",
                 "quote": "Currently, RabbitMQ does not settle a message with the modified outcome."}],
}
ATTACH = {"attach_sender": "/queues/{q|pct}", "expect": "attached"}
SEND = {"send": {"body": "m1"}, "checks": [{"judges": [ACCEPTED], "expect": {"outcome": "accepted"}},
                                          {"judges": [NEVER_MODIFIED], "expect": {"not": {"outcome": "modified"}}}]}


def vector(name, steps, setup=True, names=None):
    return {"id": f"{SPEC}.outcomes-sender.{name}", "clauses": [ACCEPTED, NEVER_MODIFIED], "kind": "behaviour",
            "status": "tentative", "description": name,
            "input": {"protocol": "amqp10", "names": names or {"q": "one"},
                      **({"setup": [{"declare_queue": "q"}]} if setup else {})},
            "expect": {"steps": steps}}


VECTORS = [
    vector("passes", [ATTACH, SEND, {"queue_get": {"queue": "q"}, "judges": [ACCEPTED], "expect": {"body": "m1"}}]),
    # the queue is never declared: the attach only gets the vector going, so its refusal blames nothing
    vector("setup-fails", [ATTACH, SEND], setup=False),
    # basic.get on a queue that does not exist: the broker closes the 0-9-1 channel (404)
    vector("observation-breaks", [ATTACH, SEND, {"queue_get": {"queue": "gone"}, "judges": [ACCEPTED],
                                                 "expect": {"body": "m1"}}], names={"q": "one", "gone": "gone"}),
    # a deliberately wrong expectation on the accepted check only
    vector("check-fails", [ATTACH, {**SEND, "checks": [{"judges": [ACCEPTED], "expect": {"outcome": "released"}},
                                                       SEND["checks"][1]]}]),
]


def test_rows_blame_only_the_clauses_of_the_failing_check(engine, tmp_path):
    tree = tmp_path / "v"
    (tree / "clauses").mkdir(parents=True)
    (tree / "clauses" / f"{SPEC}.yaml").write_text(yaml.safe_dump(CLAUSES))
    (tree / SPEC).mkdir()
    (tree / SPEC / "outcomes-sender.yaml").write_text(
        yaml.safe_dump({"spec": SPEC, "topic": "outcomes-sender", "vectors": VECTORS}, sort_keys=False))
    (tmp_path / "none.yaml").write_text("expectations: []\n")
    proc, rows, _ = run_pytest(["suites/rabbitmq_address/test_address_4_0.py", "-k", "outcomes-sender",
                                "--vectors-dir", str(tree), "--expectations", str(tmp_path / "none.yaml"),
                                "--target", "rabbitmq-4.0.5", "--target", "rabbitmq-3.10.8"],
                               tmp_path, env={**engine.env, "MQCONFORM_RUN_ID": uuid.uuid4().hex})
    by = {(r["implementation"]["name"], r["vector_id"].rsplit(".", 1)[1]): r for r in rows}
    assert len(rows) == 8, proc.stdout[-3000:] + proc.stderr[-3000:]

    ok = by["rabbitmq-4.0.5", "passes"]
    assert ok["outcome"] == "pass" and ok["clause_outcomes"] == {ACCEPTED: "pass", NEVER_MODIFIED: "pass"}

    setup = by["rabbitmq-4.0.5", "setup-fails"]
    assert (setup["outcome"], setup["error_kind"]) == ("error", "precondition")
    assert setup["failed_step"] == {"index": 1, "action": "attach_sender", "role": "setup", "clause_ids": []}
    assert "fail" not in setup["clause_outcomes"].values()

    seen = by["rabbitmq-4.0.5", "observation-breaks"]
    assert (seen["outcome"], seen["error_kind"]) == ("error", "observation")
    assert seen["failed_step"]["role"] == "observation" and "404" in seen["message"]
    # never-modified was judged in full (at the send) and passed; accepted was still being observed
    assert seen["clause_outcomes"] == {ACCEPTED: "error", NEVER_MODIFIED: "pass"}

    bad = by["rabbitmq-4.0.5", "check-fails"]
    assert bad["outcome"] == "fail" and bad["clause_outcomes"] == {ACCEPTED: "fail", NEVER_MODIFIED: "pass"}
    assert bad["failed_step"] == {"index": 2, "action": "send", "role": "check", "clause_ids": [ACCEPTED]}
    assert NEVER_MODIFIED not in bad["message"]

    old = [r for (impl, _), r in by.items() if impl == "rabbitmq-3.10.8"]
    assert len(old) == 4 and {r["outcome"] for r in old} == {"not_applicable"}
    assert all("RabbitMQ 4.0 introduces" in r["message"] and "3.10.8" in r["message"] for r in old)
