"""A build killed halfway (SIGKILL at a named step, as a crash would) leaves the previous results
readable and the report untouched, and the next build is correct: equal to a build that never crashed.
Files a dead build wrote without committing them are never read."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from reportdata import record, write_results

ROOT = Path(__file__).resolve().parents[2]
# The module's tests share `history` (two report builds): one worker runs them both.
pytestmark = pytest.mark.xdist_group("reports-crash")


def new_run(folder: Path) -> Path:
    """A third run of delta, a day after its first, with a new failure."""
    rows = [record("delta", "broker", "d2", "2026-11-05T08:00:00Z", "3.0", "sha256:d1", v, o)
            for v, o in (("ce-amqp.v1", "fail"), ("ce-amqp.v2", "pass"), ("ce-amqp.v3", "pass"))]
    f = folder / "d2.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return f


def report(out: Path) -> dict:
    rep = json.loads((out / "compliance.json").read_text(encoding="utf-8"))
    rep.pop("generated")
    return rep


@pytest.fixture(scope="module")
def history(spark, tmp_path_factory):
    """A store and report built from the fixture files, and the report of all of it plus the new run."""
    from reports.engine import build

    d = tmp_path_factory.mktemp("crash")
    inputs = [str(p) for p in write_results(d / "results").values()]
    run = new_run(d)
    base = d / "base"
    assert build.run(inputs, str(base), spark=spark) == 0
    whole = d / "whole"
    assert build.run([*inputs, str(run)], str(whole), spark=spark) == 0
    return base, run, report(whole), whole


@pytest.mark.parametrize("step", ["after-records", "after-runs", "before-swap"])
def test_killed_build_leaves_previous_results_and_next_build_is_correct(spark, history, tmp_path, step):
    from reports.engine import build
    from reports.gate import read_plain

    base, run, expected, _ = history
    out = tmp_path / "site"
    shutil.copytree(base, out)
    before = report(out)
    env = {k: v for k, v in os.environ.items() if k != "SPARK_LOCAL_IP"} | {"MQCONFORM_BUILD_FAILPOINT": step}
    r = subprocess.run([sys.executable, "-m", "reports", "build", "--results", str(run), "--out", str(out),
                        "--accumulate"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == -9, r.stdout + r.stderr
    assert f"killed at {step}" in r.stderr
    # The previous report is whole, and the store reads (at its last committed version).
    assert report(out) == before
    latest = read_plain.read_latest([str(out / "store")])
    assert not latest.problems.errors and latest.rows
    # The next build catches up: the same report as a build that never crashed.
    assert build.run([str(run)], str(out), spark=spark, accumulate=True) == 0
    assert report(out) == expected
    assert not list(out.glob(".report-tmp-*"))


def test_uncommitted_files_are_never_read(spark, history, tmp_path):
    """A data file in the table's folder that no commit names (a build that died mid-write) counts for nothing."""
    from reports.engine import build
    from reports.gate import read_plain

    base, run, expected, whole = history
    out = tmp_path / "site"
    shutil.copytree(base, out)
    part = next((out / "store" / "records").glob("date=*/*.parquet"))
    shutil.copy(part, part.parent / "part-99999-left-by-a-dead-build.snappy.parquet")
    assert build.run([str(run)], str(out), spark=spark, accumulate=True) == 0
    assert report(out) == expected
    # the rows' content; where each was read (read_plain.AT, a file of its store) differs by store
    gate_rows = lambda where: sorted(str({k: v for k, v in r.items() if k != read_plain.AT})  # noqa: E731
                                     for r in read_plain.read_latest([str(where / "store")]).rows)
    assert gate_rows(out) == gate_rows(whole)
