"""Small runs with known changes for the spread views (reports/views/spread.py) and `reports diff`
(reports/engine/run_diff.py). What the tests check follows by hand from RUNS below; change both together.

One spec revision, clauses C1..C4; three codec products (alpha, beta, gamma), mqconform's reference
codec (role reference), and a broker's rows on OpenMessaging (no verdict of its own there).
"""
from __future__ import annotations

import json
from pathlib import Path

SPEC = ("ce-amqp", "1.0.3-wip")
C1, C2, C3, C4 = "ce-amqp/3.1/prefix", "ce-amqp/3.2/type", "ce-amqp/3.3/ttl", "ce-amqp/3.4/opt"
OM = "openmessaging/delivery"
REF = "mqconform-reference"

# run id -> run_started
RUN_IDS = {"r1": "2026-11-20T09:00:00Z", "r2": "2026-11-21T09:00:00Z", "r3": "2026-11-21T21:00:00Z"}


def run_id(short: str) -> str:
    return f"{short}{'0' * 30}"


def row(run, impl, vector, clause_outcomes, *, outcome=None, role="product", kind="codec", level="MUST",
        failed_step=None, error_kind=None, message=None, spec=SPEC):
    """One row of run `run` (r1, r2, r3): `clause_outcomes` the clause's own outcomes, the row's outcome the
    worst of them unless given."""
    order = ("fail", "error", "xfail", "xpass", "unsupported", "not_applicable", "pass")
    outcome = outcome or min(clause_outcomes.values(), key=order.index)
    started = RUN_IDS[run]
    return {"schema_version": 4, "run_id": run_id(run), "run_started": started, "suite_version": "0.1.0",
            "vectors_digest": "sha256:d1", "spec": spec[0], "spec_revision": spec[1],
            "clause_ids": list(clause_outcomes), "level": level, "clause_outcomes": clause_outcomes,
            "failed_step": failed_step, "error_kind": error_kind, "notes": [], "set_by": None, "profile": {},
            "tally": None, "test_id": f"suites/codecs/test_ce_amqp.py::test_vector[{impl}-{vector}]",
            "vector_id": vector, "vector_status": "stable",
            "implementation": {"name": impl, "kind": kind, "version": "1.0", "provenance": {}, "role": role},
            "adapter": None, "protocol": None, "outcome": outcome,
            "expected_outcome": "fail" if outcome in ("xfail", "xpass") else "pass",
            "message": message if message is not None else ("" if outcome == "pass" else f"{vector}: {outcome}"),
            "started": started, "duration_s": 0.01}


STEP = {"index": 2, "action": "send", "role": "check", "clause_ids": [C1]}


def latest_rows() -> list[dict]:
    """Run r2, the latest of alpha, beta, gamma, the reference and the broker.

      C1  alpha fails (step 2 send); beta and gamma hold; the reference fails (not counted) -> fails in one
      C2  beta fails (its vector also judges C1, which held); alpha holds; gamma error     -> fails in one
      C3  beta xfail, gamma fail; alpha not_applicable; the reference holds              -> fails in all
      C4  alpha fails, nobody else judges it                                             -> neither
      OM  zeta's provider fails, yota's holds; the broker's row fails (no verdict there: judges
          mqconform's mapping over it, not counted)                                      -> fails in one
    """
    return [
        row("r2", "alpha", "v1", {C1: "fail"}, failed_step=STEP, message="v1: prefix missing"),
        row("r2", "alpha", "v2", {C2: "pass"}),
        row("r2", "alpha", "v3", {C3: "not_applicable"}, level="SHOULD"),
        row("r2", "alpha", "v4", {C4: "fail"}, level="MAY"),
        row("r2", "beta", "v1", {C1: "pass"}),
        row("r2", "beta", "v2", {C1: "pass", C2: "fail"}, message="v2: type wrong"),
        row("r2", "beta", "v3", {C3: "xfail"}, level="SHOULD", message="v3: known"),
        row("r2", "gamma", "v1", {C1: "pass"}),
        row("r2", "gamma", "v2", {C2: "error"}, error_kind="adapter", message="v2: cannot express"),
        row("r2", "gamma", "v3", {C3: "fail"}, level="SHOULD", message="v3: ttl dropped"),
        row("r2", REF, "v1", {C1: "fail"}, role="reference", message="v1: reference broke"),
        row("r2", REF, "v3", {C3: "pass"}, role="reference", level="SHOULD"),
        row("r2", "acme-2.0", "om1", {OM: "fail"}, kind="broker", spec=("openmessaging", "0.3.0")),
        row("r2", "zeta-om-1.0@acme-2.0", "om1", {OM: "fail"}, kind="provider", spec=("openmessaging", "0.3.0")),
        row("r2", "yota-om-1.0@acme-2.0", "om1", {OM: "pass"}, kind="provider", spec=("openmessaging", "0.3.0")),
    ]


def older_rows() -> list[dict]:
    """Run r1, the day before: alpha held C1 and C4 and failed C2, which r2 fixed; beta's v3 passed; gamma
    did not run."""
    return [
        row("r1", "alpha", "v1", {C1: "pass"}),
        row("r1", "alpha", "v2", {C2: "fail"}, failed_step={**STEP, "clause_ids": [C2]}, message="v2: type wrong"),
        row("r1", "alpha", "v3", {C3: "not_applicable"}, level="SHOULD"),
        row("r1", "alpha", "v4", {C4: "pass"}, level="MAY"),
        row("r1", "beta", "v1", {C1: "pass"}),
        row("r1", "beta", "v2", {C1: "pass", C2: "fail"}, message="v2: type wrong"),
        row("r1", "beta", "v3", {C3: "pass"}, level="SHOULD"),
    ]


def later_rows() -> list[dict]:
    """Run r3, the evening of r2's day: beta alone, v3 dropped."""
    return [
        row("r3", "beta", "v1", {C1: "pass"}),
        row("r3", "beta", "v2", {C1: "pass", C2: "fail"}, message="v2: type wrong"),
    ]


def write(folder: Path, rows: list[dict], name: str = "results.jsonl") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path
