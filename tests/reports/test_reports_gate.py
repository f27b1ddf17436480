"""`reports gate`: exit codes against expectations, on JSON Lines and on a build's Parquet store."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from reportdata import EVIL, write_results

ROOT = Path(__file__).resolve().parents[2]
TODAY = "2026-11-21"

# The latest runs hold these failing rows:
#   alpha ce-amqp.v3 fail (SHOULD); beta ce-amqp.v1 xfail, ce-amqp.v2 error;
#   gamma ce-amqp.v2 error; delta ce-amqp.v4 fail (MAY).
COVER_ALL = """\
expectations:
  - implementation: alpha
    vector: ce-amqp.v3
    reason: TTL not set
  - implementation: beta
    clause: "ce-amqp/3.1/*"
    reason: known prefix bug
    expires: 2027-01-01
  - implementation: beta
    vector: ce-amqp.v2
    outcome: error
    reason: the adapter breaks on v2 (known not to be judged)
  - implementation: "gamma*"
    vector: ce-amqp.v2
    outcome: error
    reason: harness error
  - implementation: delta
    vector: "ce-amqp.v*"
    reason: optional feature done wrong
"""


def gate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reports", "gate", "--today", TODAY, *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("gate")
    paths = write_results(d / "results")
    return d, [str(p) for p in paths.values()]


def exp(d: Path, name: str, text: str) -> str:
    p = d / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_all_covered_exits_0(files):
    d, res = files
    r = gate("--results", *res, "--expectations", exp(d, "all.yaml", COVER_ALL))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 uncovered failure(s), 5 covered" in r.stdout
    # beta's truncated last line is tolerated, and said with its file and line
    assert "beta/results.jsonl:12: the last line is not a complete record" in r.stderr


def test_a_folder_mixing_parquet_and_json_lines(files):
    d, _ = files
    r = gate("--results", str(d / "results"), "--expectations", exp(d, "all3.yaml", COVER_ALL))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "18 result(s) from the latest run of 4 implementation(s)" in r.stdout


def test_uncovered_failure_exits_1(files):
    d, res = files
    text = COVER_ALL.replace("vector: ce-amqp.v3", "vector: ce-amqp.v9")
    r = gate("--results", *res, "--expectations", exp(d, "missing.yaml", text))
    assert r.returncode == 1
    assert "UNCOVERED fail: alpha ce-amqp.v3 [ce-amqp/3.3/ttl] ce-amqp.v3: expected <ok> & observed fail" in r.stdout
    assert r.stdout.count("UNCOVERED") == 1


def test_no_expectations_at_all(files):
    _, res = files
    r = gate("--results", *res)
    assert r.returncode == 1
    # xfail counts: without the file that made it an xfail, it is a failure again.
    assert "UNCOVERED xfail: beta ce-amqp.v1" in r.stdout
    assert r.stdout.count("UNCOVERED") == 5


def test_expired_expectation(files):
    d, res = files
    text = COVER_ALL.replace("expires: 2027-01-01", "expires: 2026-11-20")
    r = gate("--results", *res, "--expectations", exp(d, "expired.yaml", text))
    assert r.returncode == 1
    assert "EXPIRED" in r.stdout and "expired on 2026-11-20; 2 failing result(s) it matched now count" in r.stdout
    # the xfail counts again; the error stays covered by its own entry (known not to be judged)
    assert "UNCOVERED xfail: beta ce-amqp.v1" in r.stdout and "UNCOVERED error: beta ce-amqp.v2" not in r.stdout
    # The day of expiry itself still counts (Expectation.active: today <= expires).
    r = gate("--results", *res, "--expectations", exp(d, "today.yaml", text.replace("2026-11-20", TODAY)))
    assert r.returncode == 0


def test_stale_expectation(files):
    d, res = files
    text = COVER_ALL + "  - implementation: alpha\n    vector: ce-amqp.v1\n    reason: fixed in a3\n"
    path = exp(d, "stale.yaml", text)
    r = gate("--results", *res, "--expectations", path)
    assert r.returncode == 0
    assert "STALE" in r.stdout and "alpha" in r.stdout and "all 1 matching result(s) pass" in r.stdout
    r = gate("--strict", "--results", *res, "--expectations", path)
    assert r.returncode == 3


def test_expired_but_unneeded_is_strict_only(files):
    d, res = files
    text = COVER_ALL + "  - implementation: nobody\n    vector: x\n    reason: old\n    expires: 2020-01-01\n"
    path = exp(d, "old.yaml", text)
    assert gate("--results", *res, "--expectations", path).returncode == 0
    assert gate("--strict", "--results", *res, "--expectations", path).returncode == 3


def test_expectations_folder(files):
    d, res = files
    folder = d / "expdir"
    folder.mkdir()
    exp(folder, "a.yaml", COVER_ALL)
    assert gate("--results", *res, "--expectations", str(folder)).returncode == 0


def test_usage_and_input_errors_exit_2(files, tmp_path):
    d, res = files
    assert gate("--results", str(tmp_path / "nope.jsonl")).returncode == 2
    bad = exp(d, "bad.yaml", "expectations:\n  - implementation: alpha\n    reason: no target\n")
    r = gate("--results", *res, "--expectations", bad)
    assert r.returncode == 2 and "needs `vector` or `clause`" in r.stderr
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert gate("--results", str(empty)).returncode == 2
    assert gate("--results", *res, "--today", "yesterday").returncode == 2
    assert subprocess.run([sys.executable, "-m", "reports", "gate"], cwd=ROOT,
                          capture_output=True).returncode == 2


def test_gate_reads_the_build_store(built, files):
    """The store that build writes (a Delta table) gives the same verdict as the JSON Lines."""
    out, _ = built
    d, res = files
    store = str(out / "store")
    r = gate("--results", store, "--expectations", exp(d, "all2.yaml", COVER_ALL))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 uncovered failure(s), 5 covered" in r.stdout
    r = gate("--results", store)
    assert r.returncode == 1 and r.stdout.count("UNCOVERED") == 5
    assert f"UNCOVERED error: {EVIL} ce-amqp.v2" in r.stdout


def test_help_documents_exit_codes():
    r = subprocess.run([sys.executable, "-m", "reports", "gate", "--help"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0
    for code in ("0  every fail", "1  uncovered", "2  usage", "3  with --strict"):
        assert code in r.stdout


def test_errors_need_an_entry_saying_they_are_not_judged(files):
    d, res = files
    # A deviation entry (outcome fail, the default) never covers an error row, and says so.
    text = COVER_ALL.replace("    outcome: error\n    reason: harness error", "    reason: harness error")
    r = gate("--results", *res, "--expectations", exp(d, "deviation-on-error.yaml", text))
    assert r.returncode == 1
    assert "UNCOVERED error: gamma" in r.stdout
    assert "NOT JUDGED" in r.stdout and "which confirm nothing" in r.stdout
    # An error entry of another kind does not cover it either.
    kinded = COVER_ALL.replace("    reason: harness error", "    error_kind: adapter\n    reason: harness error")
    r = gate("--results", *res, "--expectations", exp(d, "kind.yaml", kinded))
    assert r.returncode == 1 and "UNCOVERED error: gamma" in r.stdout


def test_a_clause_glob_covers_a_failure_only_through_a_clause_it_fails(tmp_path):
    import json
    row = {"schema_version": 2, "run_id": "r" * 32, "run_started": "2026-11-21T10:00:00.000Z", "suite_version": "0",
           "vectors_digest": "sha256:x", "spec": "ce-amqp", "spec_revision": "1", "level": "MUST",
           "clause_ids": ["ce-amqp/3.1/prefix", "ce-amqp/3.2/type"],
           "clause_outcomes": {"ce-amqp/3.1/prefix": "pass", "ce-amqp/3.2/type": "fail"},
           "failed_step": {"index": None, "action": "encode", "role": "check", "clause_ids": ["ce-amqp/3.2/type"]},
           "error_kind": None, "notes": [], "set_by": {}, "test_id": "t", "vector_id": "ce-amqp.v9",
           "vector_status": "stable", "implementation": {"name": "alpha", "kind": "codec", "version": "1", "provenance": {}},
           "adapter": None, "outcome": "fail", "expected_outcome": "pass", "message": "m", "started": "x", "duration_s": 0.1}
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps(row) + "\n")
    on_cited = exp(tmp_path, "cited.yaml", 'expectations:\n  - {implementation: alpha, clause: "ce-amqp/3.1/*", reason: r}\n')
    assert gate("--results", str(results), "--expectations", on_cited).returncode == 1
    on_failed = exp(tmp_path, "failed.yaml", 'expectations:\n  - {implementation: alpha, clause: "ce-amqp/3.2/*", reason: r}\n')
    assert gate("--results", str(results), "--expectations", on_failed).returncode == 0


def test_a_flaky_vector_is_quarantined_by_name_with_its_reason(files):
    d, res = files
    # alpha's ce-amqp.v3 passed twice, then failed with nothing changed: the report lists it as flaky.
    text = COVER_ALL.replace("    vector: ce-amqp.v3\n    reason: TTL not set",
                             "    vector: ce-amqp.v3\n    outcome: flaky\n    reason: passes or fails by timing\n"
                             "    link: https://bugs.example/alpha/17")
    r = gate("--strict", "--results", *res, "--expectations", exp(d, "flaky.yaml", text))
    assert r.returncode == 0, r.stdout + r.stderr
    assert ("QUARANTINED fail: alpha ce-amqp.v3: flaky, set aside by " in r.stdout
            and ": passes or fails by timing (https://bugs.example/alpha/17)" in r.stdout), r.stdout
    assert "0 uncovered failure(s), 4 covered, 1 quarantined" in r.stdout
    # A quarantine names its vector: a clause glob, or no vector, is refused with file, line and field.
    for bad in ("    clause: \"ce-amqp/3.3/*\"\n    outcome: flaky\n", "    vector: ce-amqp.v3\n    clause: x\n    outcome: flaky\n"):
        r = gate("--results", *res, "--expectations",
                 exp(d, "bad-flaky.yaml", f"expectations:\n  - implementation: alpha\n{bad}    reason: r\n"))
        assert r.returncode == 2 and "bad-flaky.yaml:2: expectations[0] (implementation 'alpha'" in r.stderr, r.stderr
        assert "field vector: a quarantine (outcome: flaky) names the vector by its id" in r.stderr


def test_a_link_is_the_http_address_of_a_bug_report(files):
    d, res = files
    text = "expectations:\n  - {implementation: alpha, vector: ce-amqp.v3, reason: r, link: 'javascript:alert(1)'}\n"
    r = gate("--results", *res, "--expectations", exp(d, "badlink.yaml", text))
    assert r.returncode == 2 and "badlink.yaml:2: expectations[0]" in r.stderr and "field link" in r.stderr, r.stderr
