"""Inputs that must not fool the gate or the build: each is refused with exit 2, naming file and line,
and a refused build leaves the store and the report as they were. Only a torn last line is tolerated."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from reportdata import record

from reports.rows.schema import arrow_schema

ROOT = Path(__file__).resolve().parents[2]


def good(n: int, outcome: str = "pass") -> dict:
    return record("alpha", "codec", "r1", "2026-11-01T12:00:00Z", "1.0", "sha256:a", f"ce-amqp.v{n}", outcome)


def lines(*items) -> str:
    return "".join((it if isinstance(it, str) else json.dumps(it)) + "\n" for it in items)


def without(rec: dict, *path: str) -> dict:
    rec = json.loads(json.dumps(rec))
    inner = rec
    for key in path[:-1]:
        inner = inner[key]
    del inner[path[-1]]
    return rec


# name -> (file text, the line named, words the message has)
HOSTILE = {
    "unknown outcome": (lines(good(1), good(2, "fail") | {"outcome": "failed"}, good(3)), 2, "unknown outcome 'failed'"),
    "every fail renamed": (lines(good(1, "fail") | {"outcome": "FAIL"}, good(2)), 1, "unknown outcome 'FAIL'"),
    "broken middle line": (lines(good(1), '{"run_id": "r1", "outcome": "fa', good(3)), 2, "not JSON"),
    "missing vector_id": (lines(good(1), without(good(2), "vector_id")), 2, "missing required field(s) vector_id"),
    "missing implementation name": (lines(good(1), without(good(2), "implementation", "name"), good(3)), 2,
                                    "implementation.name"),
    "unreadable run_started": (lines(good(1) | {"run_started": "yesterday"}, good(2)), 1, "not an RFC 3339 time"),
    "not an object": (lines(good(1), "42", good(3)), 2, "not a JSON object"),
    "cut line with a line end": (lines(good(1), '{"run_id": "r1", "outc'), 2, "not JSON"),
}


def gate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reports", "gate", "--today", "2026-11-21", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_gate_refuses_invalid_records_naming_file_and_line(tmp_path, name):
    text, line, words = HOSTILE[name]
    f = tmp_path / "results.jsonl"
    f.write_text(text, encoding="utf-8")
    r = gate("--results", str(f))
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"{f}:{line}: " in r.stderr and words in r.stderr, r.stderr
    assert "refusing inputs with 1 invalid record(s)" in r.stderr
    assert "gate:" not in r.stdout  # nothing judged


def test_gate_tolerates_a_torn_last_line_and_says_so(tmp_path):
    f = tmp_path / "results.jsonl"
    f.write_text(lines(good(1), good(2, "fail")) + '{"run_id": "r1", "outc', encoding="utf-8")
    r = gate("--results", str(f))
    assert r.returncode == 1, r.stdout + r.stderr          # the fail on line 2 is judged: uncovered
    assert f"{f}:3: the last line is not a complete record" in r.stderr
    assert "UNCOVERED fail: alpha ce-amqp.v2" in r.stdout


def test_gate_refuses_a_parquet_record_missing_a_field(tmp_path):
    rows = [good(1), good(2) | {"vector_id": None}]
    f = tmp_path / "results.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=arrow_schema()), f)
    r = gate("--results", str(f))
    assert r.returncode == 2 and f"{f}: a record with missing required field(s) vector_id" in r.stderr, r.stderr


@pytest.mark.parametrize("name", ["unknown outcome", "broken middle line", "missing vector_id", "not an object"])
def test_build_refuses_invalid_records_and_keeps_the_store(spark, tmp_path, capsys, name):
    from reports.engine import build

    out = tmp_path / "site"
    first = tmp_path / "first.jsonl"
    first.write_text(lines(good(1), good(2), good(3)), encoding="utf-8")
    assert build.run([str(first)], str(out), spark=spark) == 0
    before = (out / "compliance.json").read_text(encoding="utf-8")
    capsys.readouterr()

    text, line, words = HOSTILE[name]
    f = tmp_path / "hostile.jsonl"
    f.write_text(text.replace('"r1"', '"r2"'), encoding="utf-8")
    assert build.run([str(f)], str(out), spark=spark, accumulate=True) == 2
    err = capsys.readouterr().err
    assert f"{f}:{line}: " in err and words in err, err
    assert (out / "compliance.json").read_text(encoding="utf-8") == before
    from reports.engine import store
    assert store.version(spark, str(out / "store" / "records")) == 0     # nothing committed


def test_build_tolerates_a_torn_last_line_and_says_so(spark, tmp_path, capsys):
    from reports.engine import build

    f = tmp_path / "results.jsonl"
    f.write_text(lines(good(1), good(2)) + '{"run_id": "r1", "outc', encoding="utf-8")
    assert build.run([str(f)], str(tmp_path / "site"), spark=spark) == 0
    assert f"{f}:3: the last line is not a complete record" in capsys.readouterr().err
    report = json.loads((tmp_path / "site" / "compliance.json").read_text())
    assert report["totals"]["records"] == 2


def test_failed_build_leaves_store_and_report_as_they_were(spark, tmp_path, capsys):
    """Atomic outputs: an empty input exits 2 and changes nothing in OUT."""
    from reports.engine import build

    out = tmp_path / "site"
    first = tmp_path / "first.jsonl"
    first.write_text(lines(good(1), good(2)), encoding="utf-8")
    assert build.run([str(first)], str(out), spark=spark) == 0
    snapshot = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    for accumulate in (False, True):
        assert build.run([str(empty)], str(out), spark=spark, accumulate=accumulate) == 2
        assert "no valid result records" in capsys.readouterr().err
        assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == snapshot
