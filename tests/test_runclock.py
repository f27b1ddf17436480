"""The main job's timing breakdown (fixtures/runclock.py), on files made here."""
import json

from fixtures import runclock


def test_summary_splits_phases_and_keeps_only_this_runs_starts(tmp_path):
    phases = tmp_path / "phases.txt"
    phases.write_text("100.0 build\n103.0 vectors\n163.0 report\n173.0 end\n")
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps({"run_id": "old"}) + "\n" + json.dumps({"run_id": "now"}) + "\n")
    runclock.record_starts(results, "old", [{"target": "stale", "start_s": 99.0, "ok": True}])
    runclock.record_starts(results, "now", [{"target": "rabbitmq", "start_s": 4.5, "ok": True, "ready_s": 3.9}])
    runclock.record_starts(results, "now", [{"target": "artemis", "start_s": 7.0, "ok": False}])
    memory = tmp_path / "memory.json"
    memory.write_text(json.dumps({"baseline_bytes": 2 * 2**30, "peak_bytes": 5 * 2**30}))

    line = runclock.summary(tmp_path, phases, memory, results)

    assert "build 3s, vectors 60s, report 10s" in line and "total 73s" in line
    assert "broker starts 12s" in line and "+3.00 GiB" in line
    md = (tmp_path / "timing.md").read_text()
    assert "| vectors | 60.0 | 82% |" in md
    assert "| rabbitmq | 4.5 | 3.9 |" in md and "| artemis (failed) | 7.0 |  |" in md
    assert "stale" not in md


def test_summary_without_memory_or_starts(tmp_path):
    phases = tmp_path / "phases.txt"
    phases.write_text("10.0 vectors\n12.5 end\n")
    line = runclock.summary(tmp_path, phases, tmp_path / "none.json", tmp_path / "missing.jsonl")
    assert "vectors 2s" in line and "peak memory" not in line
    assert "0 targets" in (tmp_path / "timing.md").read_text()
