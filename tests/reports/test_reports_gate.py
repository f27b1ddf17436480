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
    reason: known prefix bug, and the adapter breaks on v2
    expires: 2027-01-01
  - implementation: "gamma*"
    vector: ce-amqp.v2
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
    assert "UNCOVERED xfail: beta ce-amqp.v1" in r.stdout and "UNCOVERED error: beta ce-amqp.v2" in r.stdout
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
