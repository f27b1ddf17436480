"""The result record writer: one complete JSON line per record, a torn line never breaks a reader."""
import json
import os
import re

import pytest

from fixtures.verdict import row
from fixtures.verdict.records import RecordWriter, read_records

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
    assert rows[0]["schema_version"] == row.SCHEMA_VERSION and rows[0]["run_id"] == RUN["run_id"]
    assert rows[0]["tally"] is None                      # only a fault vector's row has one
    assert rows[1]["message"] == "ünïcode\nand newline"


def test_a_field_the_row_does_not_define_is_refused_naming_it(tmp_path):
    w = RecordWriter(tmp_path / "r.jsonl", RUN)
    with pytest.raises(ValueError, match="clause_outcome,"):
        w.write(rec(clause_outcome="pass", outcomes="x"))   # misspelt clause_outcomes; unknown outcomes
    w.close()
    assert (tmp_path / "r.jsonl").read_text() == ""


def test_the_rows_schema_version_and_outcomes_are_defined_once():
    from fixtures.verdict import row
    from reports.rows import outcomes, schema

    assert schema.SCHEMA_VERSION is row.SCHEMA_VERSION
    assert outcomes.OUTCOMES == frozenset(row.OUTCOMES) == frozenset(outcomes.OUTCOME_ORDER)
    assert [f.name for f in schema.RESULT_SCHEMA.fields] == row.FIELD_NAMES


def test_unknown_outcome_is_refused(tmp_path):
    w = RecordWriter(tmp_path / "r.jsonl", RUN)
    with pytest.raises(ValueError):
        w.write(rec(outcome="passed"))


TALLY = {"fault": "kill", "sent": 5, "confirmed": 4, "delivered": 4, "lost": 1, "duplicated": 1,
         "lost_ids": ["m3"], "duplicated_ids": ["m1"]}


def test_a_fault_rows_tally_is_written_and_a_malformed_one_refused(tmp_path):
    w = RecordWriter(tmp_path / "r.jsonl", RUN)
    w.write(rec(tally=TALLY))
    for bad, why in (({**TALLY, "lost": 2}, "names 1 lost id(s) for 2 lost"),
                     ({**TALLY, "confirmed": 6}, "a confirmed one was sent"),
                     ({**TALLY, "sent": -1}, "tally.sent -1 is not a count"),
                     ({**TALLY, "sent": True}, "tally.sent True is not a count"),
                     ({**TALLY, "fault": ""}, "not a fault's name"),
                     ({**TALLY, "lost_ids": [3]}, "tally.lost_ids is not a list of message ids"),
                     ({k: v for k, v in TALLY.items() if k != "delivered"}, "tally lacks delivered"),
                     ("kill", "tally is str, not an object")):
        with pytest.raises(ValueError, match=re.escape(why)):
            w.write(rec(tally=bad))
    w.close()
    [row] = read_records(tmp_path / "r.jsonl")
    assert row["tally"] == TALLY


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
