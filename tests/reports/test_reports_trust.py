"""The gate and the report refuse rows they cannot trust (reports/rows/trust.py), each named by FILE:LINE, exit 2:
a row dated in the future or before its run, a spec / clause / vector the registry does not know, and a
run whose rows disagree on run metadata. Pure checks first, then one gate run and one build."""
from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest

from reports.gate import read_plain
from reports.rows import trust, validate

ROOT = Path(__file__).resolve().parents[2]
NOW = dt.datetime(2026, 11, 26, 12, 0, tzinfo=dt.UTC)
VECTOR, CLAUSE, SPEC = ("rabbitmq-address@4.0.target-v1.exchange-routing-key",
                        "rabbitmq-address@4.0/target-v1/exchange-routing-key", "rabbitmq-address@4.0")


def row(**over) -> dict:
    r = {"schema_version": 2, "run_id": "a" * 32, "run_started": "2026-11-26T10:00:00Z", "suite_version": "0.1.0+gabc",
         "vectors_digest": "sha256:d", "spec": SPEC, "spec_revision": "4.0", "clause_ids": [CLAUSE], "level": "MUST",
         "clause_outcomes": {CLAUSE: "fail"}, "test_id": "t", "vector_id": VECTOR, "vector_status": "stable",
         "implementation": {"name": "acme", "kind": "broker", "version": "1", "provenance": {}},
         "outcome": "fail", "expected_outcome": "pass", "message": "m", "started": "2026-11-26T10:00:05Z",
         "duration_s": 0.1}
    r.update(over)
    return r


@pytest.fixture(scope="module")
def registry():
    return trust.load_registry(ROOT / "vectors")


def check(registry, *rows) -> list[tuple]:
    problems = validate.Problems()
    lines = [json.dumps(r) + "\n" for r in rows]
    validate.scan_lines("r.jsonl", lines, problems, trust=trust.Trust(registry, NOW))
    return problems.errors


def test_a_genuine_row_is_trusted(registry):
    assert check(registry, row(), row(test_id="t2")) == []


@pytest.mark.parametrize("over, said", [
    ({"run_started": "2099-01-01T00:00:00Z", "started": "2099-01-01T00:00:01Z"}, "run_started 2099-01-01T00:00:00Z is after now"),
    ({"started": "2099-01-01T00:00:00Z"}, "started 2099-01-01T00:00:00Z is after now"),
    ({"started": "2026-11-25T00:00:00Z"}, "is before its run's run_started"),
    ({"spec": "no-such-spec"}, "spec 'no-such-spec' is not in the registry"),
    ({"clause_ids": [CLAUSE, "rabbitmq-address@4.0/made-up"]}, "clause(s) 'rabbitmq-address@4.0/made-up' not in the registry"),
    ({"vector_id": "rabbitmq-address@4.0.made-up"}, "vector 'rabbitmq-address@4.0.made-up' is not in the registry"),
])
def test_each_untrusted_row_is_named_by_file_and_line(registry, over, said):
    errors = check(registry, row(), row(test_id="t2", **over))
    assert len(errors) == 1 and errors[0][:2] == ("r.jsonl", 2) and said in errors[0][2], errors


@pytest.mark.parametrize("key, value", [("run_started", "2026-11-26T09:00:00Z"), ("suite_version", "0.1.0+gother"),
                                        ("vectors_digest", "sha256:other")])
def test_a_run_whose_rows_disagree_on_run_metadata(registry, key, value):
    errors = check(registry, row(), row(test_id="t2"), row(test_id="t3", **{key: value}))
    assert [(w, n) for w, n, _ in errors] == [("r.jsonl", 3)], errors
    assert f"disagrees with its row at r.jsonl:1 on {key}" in errors[0][2]


def test_no_registry_checks_no_ids_but_still_the_times():
    assert check(None, row(spec="anything")) == []
    assert check(None, row(started="2099-01-01T00:00:00Z"))


def test_the_latest_run_is_never_one_a_row_only_claims(registry, tmp_path):
    """A passing run dated 2099 after a real failing run: refused, never ranked above it."""
    f = tmp_path / "r.jsonl"
    forged = row(run_id="b" * 32, run_started="2099-01-01T00:00:00Z", started="2099-01-01T00:00:01Z", outcome="pass")
    f.write_text(json.dumps(row()) + "\n" + json.dumps(forged) + "\n")
    reading = read_plain.read_latest([str(f)], trust=trust.Trust(registry, NOW))
    assert [(Path(w).name, n) for w, n, _ in reading.problems.errors] == [("r.jsonl", 2)]
    assert [r["run_id"] for r in reading.rows] == ["a" * 32]   # the forged run is not among the rows


def test_the_gate_refuses_an_untrusted_row_with_file_and_line(tmp_path):
    f = tmp_path / "r.jsonl"
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    good = row(run_started=now, started=now)
    f.write_text("".join(json.dumps(r) + "\n" for r in (
        good, row(run_started=now, started="2099-01-01T00:00:00Z", test_id="t2", outcome="pass"),
        row(run_started=now, started=now, test_id="t3", spec="no-such-spec"))))
    gate = subprocess.run([sys.executable, "-m", "reports", "gate", "--results", str(f), "--registry", str(ROOT / "vectors")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert gate.returncode == 2, gate.stdout + gate.stderr
    assert f"{f}:2: started 2099-01-01T00:00:00Z is after now" in gate.stderr, gate.stderr
    assert f"{f}:3: spec 'no-such-spec' is not in the registry" in gate.stderr, gate.stderr


def test_the_report_build_refuses_them_too(spark, tmp_path):
    from reports.engine import build

    f = tmp_path / "r.jsonl"
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    f.write_text("".join(json.dumps(r) + "\n" for r in (
        row(run_started=now, started=now), row(run_started=now, started=now, test_id="t2", spec="no-such-spec"),
        row(run_started=now, started=now, test_id="t3", vectors_digest="sha256:other"))))
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = build.run([str(f)], str(tmp_path / "site"), spark=spark, registry=str(ROOT / "vectors"))
    assert code == 2, err.getvalue()
    assert f"{f}:2: spec 'no-such-spec' is not in the registry" in err.getvalue(), err.getvalue()
    assert f"{f}:3: run {'a' * 32} disagrees with its row at" in err.getvalue(), err.getvalue()
    assert not (tmp_path / "site" / "badges").exists()   # no badge for an unknown spec: nothing is written


def test_the_build_finds_a_run_split_across_files_in_its_one_pass(spark, tmp_path):
    from reports.engine import read

    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    same, other, alone = tmp_path / "same", tmp_path / "other", tmp_path / "alone"
    for d in (same, other, alone):
        d.mkdir()
    # one run over two files that agree; one over two files that do not (a value against none); a third run
    (same / "1.jsonl").write_text(json.dumps(row(run_started=now, started=now, run_id="b" * 32)) + "\n")
    (same / "2.jsonl").write_text(json.dumps(row(run_started=now, started=now, run_id="b" * 32, test_id="t2")) + "\n")
    (other / "1.jsonl").write_text(json.dumps(row(run_started=now, started=now)) + "\n")
    (other / "2.jsonl").write_text(json.dumps(row(run_started=now, started=now, test_id="t2", suite_version=None)) + "\n")
    (alone / "1.jsonl").write_text(json.dumps(row(run_started=now, started=now, run_id="c" * 32)) + "\n")
    t = trust.Trust(None)
    inputs = read.classify(spark, [str(same), str(other), str(alone)])
    checked = read.check(spark, read.read_raw(spark, inputs), inputs, t)
    assert not checked.problems.errors and checked.n_valid == 5 and not checked.untrusted_files
    assert [Path(f.removeprefix("file:")).relative_to(tmp_path).as_posix() for f in checked.split_files] == \
        ["other/1.jsonl", "other/2.jsonl"]
    errors = read.trust_check(spark, checked, t).errors
    assert [(Path(w).name, line) for w, line, _ in errors] == [("2.jsonl", 1)]
    assert "disagrees with its row at" in errors[0][2] and "suite_version" in errors[0][2]
    # what a check without trust found cannot be taken for a trusted one
    with pytest.raises(ValueError):
        read.trust_check(spark, read.check(spark, read.read_raw(spark, inputs), inputs), t)
