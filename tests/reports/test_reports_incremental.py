"""Adding runs one build at a time (--accumulate), in any order, gives the report of one build over
all of them: run counts and flakiness folded build by build, the state of an implementation that
gets a run older than its latest rebuilt, the latest runs' aggregates taken from the folded counts."""
from __future__ import annotations

import json

from reportdata import all_records


def report(out) -> dict:
    rep = json.loads((out / "compliance.json").read_text(encoding="utf-8"))
    rep.pop("generated")
    return rep


def test_runs_added_one_by_one_and_late_equal_one_build(spark, clause_dir, tmp_path):
    from reports.engine import build

    by_run: dict[str, list[dict]] = {}
    for r in all_records():
        by_run.setdefault(r["run_id"][:2], []).append(r)
    files = {}
    for run, recs in by_run.items():
        files[run] = tmp_path / f"{run}.jsonl"
        files[run].write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    whole = tmp_path / "whole"
    assert build.run([str(f) for f in files.values()], str(whole), spark=spark, clause_dir=str(clause_dir)) == 0
    # b2 and a1 come after newer runs of their implementations; d1 is given twice.
    order = ["a2", "b1", "b3", "g1", "a3", "b2", "d1", "a1", "b4", "d1"]
    assert sorted(set(order)) == sorted(files)
    inc = tmp_path / "inc"
    for run in order:
        assert build.run([str(files[run])], str(inc), spark=spark, clause_dir=str(clause_dir), accumulate=True) == 0
    assert report(inc) == report(whole)
