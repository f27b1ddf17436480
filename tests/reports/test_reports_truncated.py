"""A results file cut off in its last line (a writer killed mid-line, a copy cut short): both readers
skip that line and say which file it was in; every complete record is still read."""
from __future__ import annotations

import json
import sys

from reportdata import record

CUT = '{"schema_version":1,"run_id":"r1","outcome":"pa'


def cut_file(tmp_path, complete=3):
    rows = [record("alpha", "codec", "r1", "2026-11-01T12:00:00Z", "1.0", "sha256:a", f"ce-amqp.v{i + 1}", "pass")
            for i in range(complete)]
    path = tmp_path / "crashed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + CUT, encoding="utf-8")
    return path


def test_gate_reader_names_the_cut_line_and_keeps_the_rest(tmp_path, capsys):
    from reports.gate import read_plain

    path = cut_file(tmp_path)
    reading = read_plain.read_latest([str(path)])
    assert len(reading.rows) == 3 and reading.problems.torn == [(str(path), 4)] and not reading.problems.errors


def test_spark_reader_names_the_cut_file_and_keeps_the_rest(spark, tmp_path, capsys):
    from reports.engine import read

    path = cut_file(tmp_path)
    whole = tmp_path / "whole"
    whole.mkdir()
    (whole / "ok.jsonl").write_text(path.read_text(encoding="utf-8")[:-len(CUT)], encoding="utf-8")
    inputs = read.classify(spark, [str(path), str(whole)])
    assert [p.endswith("crashed.jsonl") for p in inputs.incomplete] == [True]
    problems, n_valid = read.check(spark, read.read_raw(spark, inputs), inputs)[:2]
    assert not problems.errors and n_valid == 6
    assert [(w.endswith("crashed.jsonl"), n) for w, n in problems.torn] == [(True, 4)]
    problems.say("reports build", sys.stderr)
    assert "crashed.jsonl:4: the last line is not a complete record" in capsys.readouterr().err
    assert read.normalize(read.read_raw(spark, inputs)).count() == 6
