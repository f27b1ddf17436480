"""Rows of one key (run, vector, implementation, protocol) with different outcomes: the gate and the
build refuse them (exit 2, naming every such row by file:line) in either order; identical copies merge.
(reports/rows/conflicts.py)"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from reportdata import record

ROOT = Path(__file__).resolve().parents[2]


def rows():
    fail = record("alpha", "codec", "c9", "2026-11-20T00:00:00Z", "1.0", "sha256:d1", "ce-amqp.v1", "fail")
    other = record("alpha", "codec", "c9", "2026-11-20T00:00:00Z", "1.0", "sha256:d1", "ce-amqp.v2", "pass")
    return fail, dict(fail, outcome="pass", message=""), other


def write(path: Path, recs) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return str(path)


def gate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reports", "gate", "--today", "2026-11-21", "--registry", "none",
                           *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("order", ["passing copy first", "failing row first"])
def test_the_gate_refuses_rows_of_one_key_that_disagree_in_either_order(tmp_path, order):
    fail, passing, other = rows()
    recs = [passing, other, fail] if order == "passing copy first" else [fail, other, passing]
    path = write(tmp_path / "r.jsonl", recs)
    r = gate("--results", path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "0 uncovered" not in r.stdout
    first, last = recs[0]["outcome"], recs[2]["outcome"]
    assert f"{path}:1: outcome {first}, but the same key (" in r.stderr, r.stderr
    assert f"{path}:3: outcome {last}, but the same key (" in r.stderr, r.stderr
    test = recs[0]["test_id"]   # a row without a protocol (schema 1) is told apart by its test
    assert f"vector ce-amqp.v1, implementation alpha, test {test}) has {last} at {path}:3" in r.stderr, r.stderr


def test_the_gate_refuses_a_disagreeing_copy_in_another_file(tmp_path):
    fail, passing, other = rows()
    a, b = write(tmp_path / "a.jsonl", [passing, other]), write(tmp_path / "b.jsonl", [fail])
    r = gate("--results", a, b)
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{a}:1: outcome pass" in r.stderr and f"{b}:1: outcome fail" in r.stderr, r.stderr


def test_identical_copies_merge_and_other_protocols_are_other_keys(tmp_path):
    fail, _, other = rows()
    r = gate("--results", write(tmp_path / "same.jsonl", [fail, other, fail]))
    assert r.returncode == 1, r.stdout + r.stderr          # the failure is judged, once
    assert "2 result(s)" in r.stdout and r.stdout.count("UNCOVERED") == 1, r.stdout
    over = [dict(fail, protocol="amqp10"), dict(fail, protocol="amqp091", outcome="pass", message="")]
    r = gate("--results", write(tmp_path / "protocols.jsonl", over))
    assert r.returncode == 1 and "UNCOVERED fail" in r.stdout, r.stdout + r.stderr


def test_the_build_refuses_them_too_and_writes_nothing(spark, tmp_path):
    from reports.engine import build

    fail, passing, other = rows()
    for name, recs in {"passing-first": [passing, other, fail], "failing-first": [fail, other, passing]}.items():
        path = write(tmp_path / f"{name}.jsonl", recs)
        out = tmp_path / f"site-{name}"
        assert build.run([path], str(out), spark=spark, registry="none") == 2
        assert not (out / "store").exists() and not (out / "index.html").exists()
    # identical copies are one row: the build goes on
    same = write(tmp_path / "same.jsonl", [fail, other, fail])
    assert build.run([same], str(tmp_path / "site-same"), spark=spark, registry="none") == 0


def test_the_build_names_the_rows(spark, tmp_path, capsys):
    from reports.engine import build

    fail, passing, other = rows()
    path = write(tmp_path / "r.jsonl", [passing, other, fail])
    assert build.run([path], str(tmp_path / "site"), spark=spark, registry="none") == 2
    err = capsys.readouterr().err
    assert f"{path}:1: outcome pass, but the same key (" in err and f"{path}:3: outcome fail" in err, err
