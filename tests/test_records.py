"""The result record writer: one complete JSON line per record, a torn line never breaks a reader."""
import json
import os

import pytest

from fixtures.records import RecordWriter, read_records

RUN = {"run_id": "r" * 32, "run_started": "2026-11-21T00:00:00.000Z", "suite_version": "0.1.0", "vectors_digest": "sha256:x"}


def rec(**kw):
    base = {"spec": "ce-amqp", "spec_revision": "1.0.3-wip", "clause_ids": ["ce-amqp/1/a"], "level": "MUST",
            "test_id": "t", "vector_id": "v", "vector_status": "stable",
            "implementation": {"name": "i", "kind": "codec", "version": "1", "provenance": {}},
            "adapter": None, "outcome": "pass", "expected_outcome": "pass", "message": "", "started": "x", "duration_s": 0.1}
    base.update(kw)
    return base


def test_lines_carry_run_metadata(tmp_path):
    w = RecordWriter(tmp_path / "r.jsonl", RUN)
    w.write(rec())
    w.write(rec(outcome="fail", message="ünïcode\nand newline"))
    w.close()
    lines = (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    rows = [json.loads(x) for x in lines]
    assert rows[0]["schema_version"] == 3 and rows[0]["run_id"] == RUN["run_id"]
    assert rows[1]["message"] == "ünïcode\nand newline"


def test_unknown_outcome_is_refused(tmp_path):
    w = RecordWriter(tmp_path / "r.jsonl", RUN)
    with pytest.raises(ValueError):
        w.write(rec(outcome="passed"))


def test_reader_skips_torn_last_line(tmp_path):
    path = tmp_path / "r.jsonl"
    w = RecordWriter(path, RUN)
    w.write(rec())
    w.close()
    with open(path, "ab") as fh:  # what a kill -9 in the middle of a write could leave
        fh.write(b'{"schema_version":1,"run_id":"abc","outc')
    assert len(read_records(path)) == 1


def test_appends_from_two_writers_do_not_interleave(tmp_path):
    path = tmp_path / "r.jsonl"
    a, b = RecordWriter(path, RUN), RecordWriter(path, RUN)
    for i in range(200):
        (a if i % 2 else b).write(rec(message="x" * (i * 37 % 3000)))
    a.close(), b.close()
    assert len(read_records(path)) == 200
    assert os.path.getsize(path) == sum(len(x) for x in open(path, "rb"))
