"""Expectations files are checked as pytest and `reports gate` load them, the same way in both:
an impossible date is an error naming file, line and entry (it used to crash pytest with
INTERNALERROR); an implementation, vector or clause glob that matches nothing is a warning
naming file, line and entry."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fixtures.plugin.implementations import known_implementations
from fixtures.verdict import expectations as exp

from .paths import ROOT

BAD_DATE = """\
expectations:
  - implementation: garagemq
    vector: ce-rabbitmq.binary.decode-headers
    reason: fine
  - implementation: garagemq
    vector: ce-rabbitmq.binary.headers
    reason: deviation
    expires: 2027-02-30
"""

MATCH_NOTHING = """\
expectations:
  - implementation: garagmq
    vector: ce-rabbitmq.binary.decode-headers
    reason: typo in the implementation
  - implementation: garagemq
    vector: ce-rabbitmq.binary.no-such-vector
    reason: typo in the vector
  - implementation: "rabbitmq-*"
    clause: "ce-nosuch/*"
    reason: a clause glob that matches nothing
  - implementation: garagemq
    vector: ce-rabbitmq.binary.decode-headers
    reason: all good
"""


def write(tmp_path, text, name="e.yaml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_impossible_date_is_an_error_naming_file_line_and_entry(tmp_path):
    p = write(tmp_path, BAD_DATE)
    with pytest.raises(exp.ExpectationsError) as info:
        exp.load(p)
    msg = str(info.value)
    assert f"{p}:5: expectations[1] (implementation 'garagemq', vector 'ce-rabbitmq.binary.headers')" in msg
    assert "'2027-02-30' is not a date" in msg and "day is out of range" in msg


def test_valid_dates_still_load_and_expire(tmp_path):
    p = write(tmp_path, BAD_DATE.replace("2027-02-30", "2027-02-28"))
    loaded = exp.load(p)
    assert str(loaded[1].expires) == "2027-02-28" and loaded[0].expires is None
    assert loaded[1].where.startswith(f"{p}:5: expectations[1]")


def test_globs_that_match_nothing_are_named(tmp_path):
    loaded = exp.load(write(tmp_path, MATCH_NOTHING))
    found = exp.problems(loaded, {"garagemq", "rabbitmq-4.0.5"}, {"ce-rabbitmq.binary.decode-headers"},
                         {"ce-rabbitmq/3.1.3/x"})
    assert len(found) == 3, found
    assert found[0].startswith(f"{tmp_path}/e.yaml:2: expectations[0] (implementation 'garagmq'") \
        and "matches no known implementation" in found[0]
    assert "e.yaml:5: expectations[1]" in found[1] and "vector 'ce-rabbitmq.binary.no-such-vector' matches no vector id" in found[1]
    assert "e.yaml:8: expectations[2]" in found[2] and "clause 'ce-nosuch/*' matches no clause id" in found[2]


def test_the_projects_expectations_have_no_problems():
    from fixtures.vectordata.vectors import load_vectors

    loaded = exp.load_all([ROOT / "expectations"])
    vs = load_vectors(ROOT / "vectors")
    vector_ids, clause_ids = exp.known_ids(ROOT / "vectors")
    assert vector_ids == {v.id for v in vs.vectors} and clause_ids == set(vs.registry.clauses)
    assert exp.problems(loaded, known_implementations(), vector_ids, clause_ids) == []


def test_a_registered_process_codec_is_a_known_implementation():
    from fixtures.codecs.registry import load_process_codecs

    names = {spec.name for spec in load_process_codecs()}
    assert names and names <= known_implementations()


# ---- the same in pytest and in the gate -------------------------------------------------

def gate(tmp_path, expectations_file):
    rows = tmp_path / "r.jsonl"
    row = {"schema_version": 1, "run_id": "r1", "run_started": "2026-01-01T00:00:00.000Z", "suite_version": "0.1.0",
           "vectors_digest": "sha256:0", "spec": "ce-rabbitmq", "spec_revision": "1.0.2-wip",
           # ids the registry knows: the gate refuses rows naming others (reports/rows/trust.py)
           "clause_ids": ["ce-rabbitmq/3.1.3/attributes-to-headers"], "level": "MUST", "test_id": "t",
           "vector_id": "ce-rabbitmq.binary.decode-headers",
           "vector_status": "stable", "implementation": {"name": "garagemq", "kind": "broker", "version": "1", "provenance": {}},
           "adapter": None, "outcome": "pass", "expected_outcome": "pass", "message": "", "started": "2026-01-01T00:00:00.000Z",
           "duration_s": 0.1}
    rows.write_text(json.dumps(row) + "\n")
    return subprocess.run([sys.executable, "-m", "reports", "gate", "--results", str(rows), "--expectations",
                           str(expectations_file)], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_gate_refuses_an_impossible_date_naming_file_and_entry(tmp_path):
    r = gate(tmp_path, write(tmp_path, BAD_DATE))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "e.yaml:5: expectations[1] (implementation 'garagemq'" in r.stderr and "is not a date" in r.stderr


def test_gate_warns_about_globs_that_match_nothing(tmp_path):
    r = gate(tmp_path, write(tmp_path, MATCH_NOTHING))
    assert r.returncode == 0, r.stdout + r.stderr
    warnings = [ln for ln in r.stderr.splitlines() if ln.startswith("reports gate: warning: expectations: ")]
    assert len(warnings) == 3, r.stderr
    assert "e.yaml:2: expectations[0] (implementation 'garagmq'" in warnings[0]


SUITE = """
from fixtures.kinds import codec_checks as verify
import pytest

@pytest.mark.vectors("ce-rabbitmq", kind="decode")
def test_decode(vector, codec, registry):
    verify.run_decode(vector, codec, registry)
"""


@pytest.fixture
def project(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_suite=SUITE)
    return pytester


def run(pytester, expectations_file):
    return pytester.runpytest_subprocess("-p", "fixtures.plugin", "--vectors-dir", str(ROOT / "vectors"),
                                         "--expectations", str(expectations_file), "--impl", "mqconform-reference",
                                         "--results", "r.jsonl", "-q")


def test_pytest_refuses_an_impossible_date_without_internal_error(project):
    result = run(project, write(project.path, BAD_DATE))
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == 4, out
    assert "INTERNALERROR" not in out
    assert "e.yaml:5: expectations[1] (implementation 'garagemq', vector 'ce-rabbitmq.binary.headers')" in out


def test_pytest_warns_about_globs_that_match_nothing(project):
    result = run(project, write(project.path, MATCH_NOTHING))
    lines = [ln for ln in result.stdout.lines if ln.startswith("mqconform: warning: expectations: ")]
    assert len(lines) == 3, result.stdout.str()
    assert "e.yaml:2: expectations[0] (implementation 'garagmq', vector 'ce-rabbitmq.binary.decode-headers')" in lines[0]
