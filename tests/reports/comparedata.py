"""Result rows (schema version 2) of three implementations for the comparison view's tests:
two brokers that differ on some clauses and agree on others, and a codec that runs only the
CloudEvents spec; an OpenMessaging spec whose header values were set by the broker, by
mqconform's mapping or by nobody; an expectation with a link to a bug report.

What the tests check follows from ROWS by hand; change both together.
"""
from __future__ import annotations

import json
from pathlib import Path

CE = ("ce-amqp", "1.0.3-wip")
OM = ("openmessaging", "0.3.0")
RUN_STARTED = {"broker-a": "2026-11-20T10:00:00.000Z", "broker-b": "2026-11-20T11:00:00.000Z",
               "codec-c": "2026-11-20T12:00:00.000Z"}
KIND = {"broker-a": "broker", "broker-b": "broker", "codec-c": "codec"}

# (impl, vector, spec, level, {clause: outcome}, row outcome, failed_step, error_kind, message, notes, set_by)
STEP_FAIL = {"index": 2, "action": "send", "role": "check", "clause_ids": ["ce-amqp/3.1/prefix"]}
STEP_SETUP = {"index": 1, "action": "attach_sender", "role": "setup", "clause_ids": []}
ROWS = [
    ("broker-a", "ce.prefix", CE, "MUST", {"ce-amqp/3.1/prefix": "pass"}, "pass", None, None, "", [], {}),
    ("broker-b", "ce.prefix", CE, "MUST", {"ce-amqp/3.1/prefix": "fail"}, "fail", STEP_FAIL, None,
     "ce.prefix: attributes are prefixed\nexpected cloudEvents_id, observed id <unprefixed> & bare", [], {}),
    ("codec-c", "ce.prefix", CE, "MUST", {"ce-amqp/3.1/prefix": "pass"}, "pass", None, None, "", [], {}),
    ("broker-a", "ce.type", CE, "MUST", {"ce-amqp/3.2/type": "pass"}, "pass", None, None, "", [], {}),
    ("broker-b", "ce.type", CE, "MUST", {"ce-amqp/3.2/type": "pass"}, "pass", None, None, "",
     ["the message changed in transit: header order"], {}),
    ("codec-c", "ce.type", CE, "MUST", {"ce-amqp/3.2/type": "pass"}, "pass", None, None, "", [], {}),
    ("broker-a", "ce.ttl", CE, "SHOULD", {}, "error", STEP_SETUP, "precondition",
     "setup failed: attach refused (amqp:not-found)", [], {}),
    ("broker-b", "ce.ttl", CE, "SHOULD", {"ce-amqp/3.3/ttl": "pass"}, "pass", None, None, "", [], {}),
    ("broker-a", "om.message-id", OM, "MUST", {"openmessaging/header/message-id": "pass"}, "pass", None, None,
     "", ["messageId was set by mqconform's mapping; the broker carried it"], {"messageId": "mapping"}),
    ("broker-b", "om.message-id", OM, "MUST", {"openmessaging/header/message-id": "pass"}, "pass", None, None,
     "", [], {"messageId": "broker"}),
    ("broker-a", "om.store-host", OM, "MUST", {"openmessaging/header/store-host": "fail"}, "fail",
     {"index": None, "action": "receive", "role": "check", "clause_ids": ["openmessaging/header/store-host"]}, None,
     "no native field: AMQP brokers record no store host\nexpected a STORE_HOST, observed none", [],
     {"storeHost": "nobody"}),
    ("broker-b", "om.store-host", OM, "MUST", {"openmessaging/header/store-host": "fail"}, "fail",
     {"index": None, "action": "receive", "role": "check", "clause_ids": ["openmessaging/header/store-host"]}, None,
     "no native field: AMQP brokers record no store host\nexpected a STORE_HOST, observed none", [],
     {"storeHost": "nobody"}),
]

CLAUSES = {
    "ce-amqp.yaml": """\
spec: ce-amqp
revision: 1.0.3-wip
title: CloudEvents AMQP Protocol Binding
clauses:
  - {id: ce-amqp/3.1/prefix, section: "3.1", level: MUST, quote: "CloudEvent attributes MUST be prefixed with cloudEvents_."}
  - {id: ce-amqp/3.2/type, section: "3.2", level: MUST, quote: "The type MUST be mapped."}
  - {id: ce-amqp/3.3/ttl, section: "3.3", level: SHOULD, quote: "A TTL SHOULD be set."}
""",
    "openmessaging.yaml": """\
spec: openmessaging
revision: 0.3.0
title: OpenMessaging
clauses:
  - {id: openmessaging/header/message-id, section: "h", level: MUST, quote: "MESSAGE_ID is REQUIRED."}
  - {id: openmessaging/header/store-host, section: "h", level: MUST, quote: "STORE_HOST is REQUIRED."}
""",
}

BUG = "https://bugs.example/broker-b/42"
EXPECTATIONS = f"""\
expectations:
  - implementation: broker-b
    vector: ce.prefix
    reason: "broker-b drops the cloudEvents_ prefix"
    link: {BUG}
"""


def record(impl, vector, spec, level, clause_outcomes, outcome, step, kind, message, notes, set_by) -> dict:
    return {
        "schema_version": 2, "run_id": impl.replace("-", "").ljust(32, "0"), "run_started": RUN_STARTED[impl],
        "suite_version": "0.1.0", "vectors_digest": "sha256:c0", "spec": spec[0], "spec_revision": spec[1],
        "clause_ids": sorted(clause_outcomes) or [{"ce.ttl": "ce-amqp/3.3/ttl"}[vector]], "level": level,
        "clause_outcomes": clause_outcomes, "failed_step": step, "error_kind": kind, "notes": notes,
        "set_by": set_by, "test_id": f"suites/t.py::test[{vector}::{impl}]", "vector_id": vector,
        "vector_status": "stable",
        "implementation": {"name": impl, "kind": KIND[impl], "version": "1", "provenance": {}},
        "adapter": "pika 1.3.2" if KIND[impl] == "broker" else None, "outcome": outcome,
        "expected_outcome": "pass", "message": message, "started": RUN_STARTED[impl], "duration_s": 0.01,
    }


def write(folder: Path) -> tuple[Path, Path, Path]:
    """(results file, clause folder, expectations file)."""
    folder.mkdir(parents=True, exist_ok=True)
    results = folder / "results.jsonl"
    results.write_text("".join(json.dumps(record(*r)) + "\n" for r in ROWS), encoding="utf-8")
    clauses = folder / "clauses"
    clauses.mkdir(exist_ok=True)
    for name, text in CLAUSES.items():
        (clauses / name).write_text(text, encoding="utf-8")
    exp = folder / "expectations.yaml"
    exp.write_text(EXPECTATIONS, encoding="utf-8")
    return results, clauses, exp
