"""The main job's timing breakdown (fixtures/run/clock.py), on files made here."""
import json

from fixtures.run import clock as runclock


def test_summary_splits_phases_and_keeps_only_this_runs_starts(tmp_path):
    phases = tmp_path / "phases.txt"
    phases.write_text("100.0 build\n103.0 vectors\n163.0 report\n173.0 end\n")
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps({"run_id": "old"}) + "\n" + json.dumps({"run_id": "now"}) + "\n")
    runclock.record_starts(results, "old", [{"target": "stale", "start_s": 99.0, "ok": True}])
    runclock.record_starts(results, "now", [{"target": "rabbitmq", "start_s": 4.5, "ok": True, "ready_s": 3.9,
                                             "image_s": 41.2}])
    runclock.record_starts(results, "now", [{"target": "artemis", "start_s": 7.0, "ok": False}])
    memory = tmp_path / "memory.json"
    memory.write_text(json.dumps({"baseline_bytes": 2 * 2**30, "peak_bytes": 5 * 2**30}))

    line = runclock.summary(tmp_path, phases, memory, results)

    assert "build 3s, vectors 60s, report 10s" in line and "total 73s" in line
    assert "broker starts 12s" in line and "+3.00 GiB" in line
    md = (tmp_path / "timing.md").read_text()
    assert "| vectors | 60.0 | 82% |" in md
    assert "| rabbitmq | 41.2 | 4.5 | 3.9 |" in md and "| artemis (failed) |  | 7.0 |  |" in md
    assert "stale" not in md


def test_a_target_started_again_after_an_exit_is_said_in_the_table_and_the_line(tmp_path):
    phases = tmp_path / "phases.txt"
    phases.write_text("10.0 vectors\n40.0 end\n")
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps({"run_id": "now"}) + "\n")
    runclock.record_starts(results, "now", [
        {"target": "rocketmq-5.5.0", "start_s": 50.0, "ok": True, "ready_s": 20.0, "image_s": 0.1,
         "attempts": "2; start 1 exited (status exited, exit code 1, its first log line of note: RemotingTimeoutException)"},
        {"target": "rabbitmq-4.0.5", "start_s": 4.0, "ok": True, "ready_s": 3.9, "image_s": 0.1, "attempts": "1"}])
    line = runclock.summary(tmp_path, phases, tmp_path / "none.json", results)
    assert "1 target(s) started again after their container exited" in line
    md = (tmp_path / "timing.md").read_text()
    assert ("Started again: rocketmq-5.5.0 was started 2 times in all: start 1 exited (status exited, exit code 1, "
            "its first log line of note: RemotingTimeoutException).") in md
    assert "rabbitmq-4.0.5 was started" not in md


def test_summary_without_memory_or_starts(tmp_path):
    phases = tmp_path / "phases.txt"
    phases.write_text("10.0 vectors\n12.5 end\n")
    line = runclock.summary(tmp_path, phases, tmp_path / "none.json", tmp_path / "missing.jsonl")
    assert "vectors 2s" in line and "peak memory" not in line
    assert "0 targets" in (tmp_path / "timing.md").read_text()


def test_a_phase_started_early_counts_after_the_phase_before_and_says_its_head_start(tmp_path):
    phases = tmp_path / "phases.txt"
    phases.write_text("100.0 vectors\n100.5 ~report (Spark)\n160.0 report (Spark)\n164.0 gate\n165.0 end\n")
    line = runclock.summary(tmp_path, phases, tmp_path / "none.json", tmp_path / "missing.jsonl")
    assert "vectors 60s, report (Spark) 4s (started 60s early), gate 1s" in line
    md = (tmp_path / "timing.md").read_text()
    assert "| vectors | 60.0 |" in md and "| report (Spark) | 4.0 |" in md and "~" not in md
    assert ("Started early: report (Spark): started during vectors (59.5 s beside it), "
            "done 4.0 s after vectors ended.") in md


def test_early_writes_a_line_that_is_no_phase_boundary(tmp_path):
    phases = tmp_path / "phases.txt"
    runclock.mark(phases, "vectors")
    runclock.early(phases, "report")
    runclock.mark(phases, "report")
    runclock.mark(phases, "end")
    assert [name for name, _ in runclock._phases(phases)] == ["vectors", "report"]


def test_work_beside_the_phases_has_its_own_table_from_start_to_end(tmp_path):
    phases = tmp_path / "phases.txt"
    phases.write_text("100.0 Python environment\n100.2 ~engine and image build\n130.0 vectors\n"
                      "290.0 !engine and image build\n400.0 end\n")
    line = runclock.summary(tmp_path, phases, tmp_path / "none.json", tmp_path / "missing.jsonl")
    assert [name for name, _ in runclock._phases(phases)] == ["Python environment", "vectors"]
    assert "engine and image build 190s beside them (done at 190s)" in line
    md = (tmp_path / "timing.md").read_text()
    assert "| engine and image build | 0.2 | 190.0 | 189.8 |" in md and "!" not in md


def test_a_done_line_for_work_that_became_a_phase_adds_no_row(tmp_path):
    phases = tmp_path / "phases.txt"
    phases.write_text("100.0 vectors\n100.5 ~report\n160.0 report\n161.0 !report\n164.0 end\n")
    runclock.summary(tmp_path, phases, tmp_path / "none.json", tmp_path / "missing.jsonl")
    assert "Beside the phases" not in (tmp_path / "timing.md").read_text()


def test_each_phase_says_how_busy_the_machines_cpu_was(tmp_path):
    phases = tmp_path / "phases.txt"
    phases.write_text("100.0 environment\n100.5 ~images\n130.0 vectors\n190.0 !images\n200.0 end\n")
    # busy and total ticks at each line's stamp (the second line has none: no figure for it)
    runclock.cpu_path(phases).write_text("100.000 1000 5000\n130.000 1600 5600\n190.000 2000 6600\n200.000 2050 6800\n")
    runclock.summary(tmp_path, phases, tmp_path / "none.json", tmp_path / "missing.jsonl")
    md = (tmp_path / "timing.md").read_text()
    assert "| environment | 30.0 | 30% | 100% |" in md          # 600 of 600 ticks busy
    assert "| vectors | 70.0 | 70% | 38% |" in md               # 450 of 1200
    assert "| **total** | **100.0** | | 58% |" in md           # 1050 of 1800
    assert "| images | 0.5 | 90.0 | 89.5 |  |" in md          # its start has no sample


def test_mark_samples_the_machines_cpu_at_the_same_stamp(tmp_path):
    phases = tmp_path / "phases.txt"
    runclock.mark(phases, "vectors")
    runclock.mark(phases, "end")
    stamps = [line.split()[0] for line in phases.read_text().splitlines()]
    cpu = [line.split() for line in runclock.cpu_path(phases).read_text().splitlines()]
    assert [c[0] for c in cpu] == stamps and all(int(c[1]) <= int(c[2]) for c in cpu)


def test_an_early_line_after_its_phase_began_gives_no_head_start(tmp_path):
    # the report's build started only after the vectors had ended (its packages came late)
    phases = tmp_path / "phases.txt"
    phases.write_text("100.0 vectors\n160.0 report (Spark)\n170.0 ~report (Spark)\n190.0 end\n")
    line = runclock.summary(tmp_path, phases, tmp_path / "none.json", tmp_path / "missing.jsonl")
    assert "report (Spark) 30s;" in line and "started" not in line, line
    assert "Started early" not in (tmp_path / "timing.md").read_text()
