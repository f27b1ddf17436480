"""Small result files with known contents for tests/reports: several runs,
implementations and outcomes, a Parquet part, a crashed run's truncated last
line and a duplicate record. Hostile inputs (an unknown outcome, a broken middle line, a record
missing a field) are in test_reports_hostile.py: any one of them makes build and gate refuse
the whole input.

The numbers the tests check follow by hand from RUNS below; change both together.
"""
from __future__ import annotations

import json
from pathlib import Path

SPEC_A = ("ce-amqp", "1.0.3-wip")
SPEC_R = ("rabbitmq-address@4.0", "4.0")
C1, C2, C3, C4 = "ce-amqp/3.1/prefix", "ce-amqp/3.2/type", "ce-amqp/3.3/ttl", "ce-amqp/3.4/opt"
C5 = "rabbitmq-address@4.0/1/v2"
# vector id -> (spec, clause ids, level)
VECTORS = {
    "ce-amqp.v1": (SPEC_A, [C1], "MUST"),
    "ce-amqp.v2": (SPEC_A, [C1, C2], "MUST"),
    "ce-amqp.v3": (SPEC_A, [C3], "SHOULD"),
    "ce-amqp.v4": (SPEC_A, [C4], "MAY"),
    "rmq.v5": (SPEC_R, [C5], "MUST"),
}
EVIL = 'gamma <i>&co "x"'  # an implementation name that must be escaped everywhere

# (implementation, kind, run id, run_started, version, digest, {vector: outcome})
RUNS = [
    # alpha: same version and digest throughout, so every consecutive pair counts for flakiness.
    ("alpha", "codec", "a1", "2026-11-01T00:00:00Z", "1.0", "sha256:d1",
     {"ce-amqp.v1": "pass", "ce-amqp.v2": "pass", "ce-amqp.v3": "pass", "ce-amqp.v4": "pass", "rmq.v5": "pass"}),
    ("alpha", "codec", "a2", "2026-11-02T00:00:00.5Z", "1.0", "sha256:d1",
     {"ce-amqp.v1": "fail", "ce-amqp.v2": "pass", "ce-amqp.v3": "pass", "ce-amqp.v4": "unsupported", "rmq.v5": "pass"}),
    ("alpha", "codec", "a3", "2026-11-03T00:00:00Z", "1.0", "sha256:d1",
     {"ce-amqp.v1": "pass", "ce-amqp.v2": "pass", "ce-amqp.v3": "fail", "ce-amqp.v4": "unsupported", "rmq.v5": "pass"}),
    # beta: version changes after b1, digest after b2, so only b3 -> b4 counts for flakiness.
    ("beta", "broker", "b1", "2026-11-01T12:00:00Z", "2.0", "sha256:d1",
     {"ce-amqp.v1": "pass", "ce-amqp.v2": "error", "ce-amqp.v3": "pass"}),
    ("beta", "broker", "b2", "2026-11-02T12:00:00Z", "2.1", "sha256:d1",
     {"ce-amqp.v1": "fail", "ce-amqp.v2": "pass"}),
    ("beta", "broker", "b3", "2026-11-03T12:00:00Z", "2.1", "sha256:d2",
     {"ce-amqp.v1": "pass", "ce-amqp.v2": "pass", "ce-amqp.v3": "pass"}),
    ("beta", "broker", "b4", "2026-11-04T12:00:00Z", "2.1", "sha256:d2",
     {"ce-amqp.v1": "xfail", "ce-amqp.v2": "error", "ce-amqp.v3": "pass"}),
    (EVIL, "codec", "g1", "2026-11-02T06:00:00Z", "0.9", "sha256:d1",
     {"ce-amqp.v1": "pass", "ce-amqp.v2": "error", "ce-amqp.v3": "pass", "ce-amqp.v4": "pass",
      "rmq.v5": "not_applicable"}),
    ("delta", "broker", "d1", "2026-11-02T08:00:00Z", "3.0", "sha256:d1",
     {"ce-amqp.v1": "pass", "ce-amqp.v2": "pass", "ce-amqp.v3": "pass", "ce-amqp.v4": "fail"}),
]


def record(impl, kind, run_id, started, version, digest, vector, outcome, adapter="pika 1.3.2", test_suffix=""):
    (spec, revision), clauses, level = VECTORS[vector]
    return {
        "schema_version": 1, "run_id": run_id.ljust(32, "0"), "run_started": started,
        "suite_version": "0.1.0", "vectors_digest": digest, "spec": spec, "spec_revision": revision,
        "clause_ids": clauses, "level": level,
        "test_id": f"tests/test_vectors.py::test_vector[{impl}-{vector}{test_suffix}]",
        "vector_id": vector, "vector_status": "stable",
        "implementation": {"name": impl, "kind": kind, "version": version,
                           "provenance": {"package": f"{impl}=={version}"}},
        "adapter": adapter if kind == "broker" else None,
        "outcome": outcome, "expected_outcome": "fail" if outcome in ("xfail", "xpass") else "pass",
        "message": "" if outcome == "pass" else f"{vector}: expected <ok> & observed {outcome}",
        "started": started, "duration_s": 0.01,
    }


def all_records():
    out = []
    for impl, kind, run_id, started, version, digest, outcomes in RUNS:
        for vector, outcome in outcomes.items():
            out.append(record(impl, kind, run_id, started, version, digest, vector, outcome))
    # delta ran v3 through a second adapter, which passed against an expectation: xpass.
    out.append(record("delta", "broker", "d1", "2026-11-02T08:00:00Z", "3.0", "sha256:d1", "ce-amqp.v3",
                      "xpass", adapter="qpid-proton 0.39", test_suffix="-proton"))
    return out


def write_results(folder: Path) -> dict[str, Path]:
    """The fixture files; returns the paths a test passes as --results."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from reports.rows.schema import arrow_schema

    folder.mkdir(parents=True, exist_ok=True)
    recs = all_records()
    by_run = {}
    for r in recs:
        by_run.setdefault(r["run_id"][:2], []).append(r)
    # alpha's first run as Parquet, the other alpha runs as JSON Lines.
    pq.write_table(pa.Table.from_pylist(by_run["a1"], schema=arrow_schema()), folder / "alpha-a1.parquet")
    lines = lambda rs: "".join(json.dumps(r) + "\n" for r in rs)  # noqa: E731
    (folder / "alpha.jsonl").write_text(lines(by_run["a2"] + by_run["a3"]), encoding="utf-8")
    # beta in a folder of its own; its last run crashed mid-write.
    beta = folder / "beta"
    beta.mkdir(exist_ok=True)
    truncated = json.dumps(record("beta", "broker", "b4", "2026-11-04T12:00:00Z", "2.1", "sha256:d2",
                                  "rmq.v5", "fail"))[:57]
    (beta / "results.jsonl").write_text(
        lines(by_run["b1"] + by_run["b2"] + by_run["b3"] + by_run["b4"]) + truncated, encoding="utf-8")
    # gamma and delta together, delta's v1 record twice (the same run given twice counts once).
    (folder / "gamma-delta.jsonl").write_text(lines(by_run["g1"] + by_run["d1"] + [by_run["d1"][0]]),
                                              encoding="utf-8")
    return {"parquet": folder / "alpha-a1.parquet", "alpha": folder / "alpha.jsonl", "beta": beta,
            "gd": folder / "gamma-delta.jsonl"}


CLAUSE_FILE = """\
spec: ce-amqp
revision: 1.0.3-wip
title: CloudEvents AMQP Protocol Binding
clauses:
  - id: ce-amqp/3.1/prefix
    section: "3.1"
    level: MUST
    quote: CloudEvent attributes MUST be prefixed with "cloudEvents_" <in> the application-properties & co.
  - id: ce-amqp/3.3/ttl
    section: "3.3"
    level: SHOULD
    quote: A TTL SHOULD be set.
"""
