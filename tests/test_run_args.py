"""`./mqconform run`'s arguments (cli/run_args.py, scripts/expectations-of.sh): a --target matching no
target is refused before anything starts, and the run's --expectations files are the gate's and the
report's as well as pytest's. scripts/conformance.sh itself is not run here (it is the main job)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from cli import run_args

from .paths import ROOT

XFAIL = {
    "schema_version": 4, "run_id": "e" * 32, "run_started": "2026-11-20T00:00:00Z", "suite_version": "0.1.0",
    "vectors_digest": "sha256:d1", "spec": "ce-amqp", "spec_revision": "1.0.3-wip", "clause_ids": ["ce-amqp/x"],
    "level": "MUST", "clause_outcomes": {"ce-amqp/x": "xfail"}, "test_id": "t::v[mine]", "vector_id": "ce-amqp.mine",
    "vector_status": "stable", "implementation": {"name": "mine-1.0", "kind": "broker", "version": "1.0",
                                                    "provenance": {}, "role": "product"},
    "adapter": "pika 1.3.2", "protocol": "amqp091", "outcome": "xfail", "expected_outcome": "fail",
    "message": "known", "started": "2026-11-20T00:00:01Z", "duration_s": 0.1,
}
MINE = """\
expectations:
  - implementation: mine-1.0
    vector: ce-amqp.mine
    reason: a deviation this run's own file lists
"""


def test_a_target_matching_nothing_is_a_usage_error_before_anything_starts(tmp_path):
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MQCONFORM_OUT": str(out)}
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "cli", "run", "--target", "nosuch*"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - t0
    print(f"run --target 'nosuch*': exit {r.returncode} in {elapsed:.2f}s")
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "--target 'nosuch*' matches no target (known: " in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not out.exists()      # scripts/conformance.sh never started: it makes $MQCONFORM_OUT first
    assert elapsed < 10, elapsed  # generous: measured well under 2 s


def test_run_args_refuse_a_bad_expectations_file_and_keep_good_arguments(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("expectations:\n  - implementation: x\n    reason: no vector\n", encoding="utf-8")
    assert "bad.yaml:2" in run_args.problem(["--expectations", str(bad)])
    assert "no such file" in run_args.problem(["--expectations=" + str(tmp_path / "nope.yaml")])
    assert run_args.problem(["--target", "rabbitmq-4.0.5*", "--spec", "ce-*"]) is None
    argv = run_args.absolute_paths(["--expectations", "e.yaml", "--netrc-file=n", "--spec", "x", "--", "--vectors-dir", "v"],
                                   cwd="/somewhere")
    assert argv == ["--expectations", "/somewhere/e.yaml", "--netrc-file=/somewhere/n", "--spec", "x",
                    "--", "--vectors-dir", "v"]


def expectations_of(*argv: str) -> list[str]:
    script = 'source scripts/expectations-of.sh; expectations_of "$@"; printf "%s\\n" "${expectations[@]}"'
    r = subprocess.run(["bash", "-c", script, "bash", *argv], cwd=ROOT, capture_output=True, text=True, check=True)
    return r.stdout.splitlines()


def test_run_args_refuse_a_shard_that_cannot_be_merged(monkeypatch):
    monkeypatch.delenv("MQCONFORM_SHARDED_RUN", raising=False)
    assert "--sharded-run ID" in run_args.problem(["--shard", "1/2"])
    assert "expected I/N" in run_args.problem(["--shard=0/2", "--sharded-run", "x"])
    assert "without --shard" in run_args.problem(["--sharded-run", "x"])
    assert run_args.problem(["--shard", "2/2", "--sharded-run=ci-1"]) is None
    monkeypatch.setenv("MQCONFORM_SHARDED_RUN", "ci-2")
    assert run_args.problem(["--shard", "1/3"]) is None


def test_the_runs_expectations_files_are_the_gates(tmp_path):
    mine = tmp_path / "mine.yaml"
    mine.write_text(MINE, encoding="utf-8")
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps(XFAIL) + "\n", encoding="utf-8")
    assert expectations_of("--spec", "ce-*") == ["expectations"]    # the plugin's default too
    handed = expectations_of("--spec", "ce-*", "--expectations", str(mine), f"--expectations={mine}")
    assert handed == [str(mine), str(mine)]

    def gate(paths):
        return subprocess.run([sys.executable, "-m", "reports", "gate", "--registry", "none", "--results", str(results),
                               "--expectations", *paths], cwd=ROOT, capture_output=True, text=True, timeout=120)

    # the row the plugin marked xfail against mine.yaml: the gate given what the run was given passes it,
    # the gate of before (expectations/ only) failed it
    assert gate(handed).returncode == 0, gate(handed).stdout
    assert gate(["expectations"]).returncode == 1
    script = (ROOT / "scripts" / "conformance.sh").read_text(encoding="utf-8")
    assert 'expectations_of "$@"' in script and "--expectations expectations" not in script
    commands = [ln for ln in script.splitlines() if not ln.lstrip().startswith("#")]
    gate_line = next(ln for ln in commands if "\"$python\" -m reports gate" in ln)
    at = next(i for i, ln in enumerate(commands) if "\"$python\" -m reports build" in ln)
    build_lines = commands[at:at + 2]
    assert '--expectations "${expectations[@]}"' in gate_line, gate_line
    assert any('--expectations "${expectations[@]}"' in ln for ln in build_lines), build_lines
