"""A run split across machines, end to end: two shards of a throwaway project's run (the CloudEvents
AMQP codec vectors against two codecs, fixtures/run/shards.py) give, merged, the unsharded run's rows
and report key by key; each shard is a run of its own that says which share it is; the gate refuses
the split run with a shard missing, judges one shard alone when told so, and the merged run as the
unsharded one."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from tests.paths import ROOT, VECTORS
from tests.test_plugin import SUITE  # the plugin tests' throwaway project: the ce-amqp codec vectors


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """(project folder, {name: rows}, {name: pytest's stdout}) of one unsharded run and its two shards."""
    d = tmp_path_factory.mktemp("sharded")
    (d / "v" / "clauses").mkdir(parents=True)
    shutil.copy(VECTORS / "clauses" / "ce-amqp.yaml", d / "v" / "clauses")
    shutil.copytree(VECTORS / "ce-amqp", d / "v" / "ce-amqp")
    (d / "test_suite.py").write_text(SUITE)
    (d / "pytest.ini").write_text("[pytest]\naddopts = --strict-markers\n")
    (d / "none.yaml").write_text("expectations: []\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    common = [sys.executable, "-m", "pytest", "-p", "fixtures.plugin", "-p", "no:cacheprovider", "-q",
              "--vectors-dir", "v", "--expectations", "none.yaml",
              "--impl", "mqconform-reference", "--impl", "cloudevents-sdk-python"]
    shard = ["--sharded-run", "ci-7", "--shard"]
    out = {}
    for name, extra in (("whole", []), ("s1", ["-n", "2", *shard, "1/2"]), ("s2", [*shard, "2/2"])):
        proc = subprocess.run([*common, *extra, "--results", f"{name}.jsonl"], cwd=d, env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
        out[name] = proc.stdout
    rows = {n: [json.loads(x) for x in (d / f"{n}.jsonl").read_text().splitlines()] for n in out}
    return d, rows, out


def _key(row):
    return (row["implementation"]["name"], row["vector_id"], row["protocol"])


def test_the_shards_rows_are_the_unsharded_runs_and_each_says_its_share(runs):
    _, rows, out = runs
    s1, s2, whole = rows["s1"], rows["s2"], rows["whole"]
    assert s1 and s2 and len(s1) + len(s2) == len(whole)
    assert {_key(r): r["outcome"] for r in s1 + s2} == {_key(r): r["outcome"] for r in whole}
    names1, names2 = ({r["implementation"]["name"] for r in rs} for rs in (s1, s2))
    assert names1.isdisjoint(names2) and names1 | names2 == {"mqconform-reference", "cloudevents-sdk-python"}
    assert len({r["run_id"] for r in s1} | {r["run_id"] for r in s2}) == 2         # a shard is a run of its own
    assert {(r["shard"]["run"], r["shard"]["index"], r["shard"]["count"]) for r in s1} == {("ci-7", 1, 2)}
    assert {r["shard"]["index"] for r in s2} == {2} and all(r["shard"] is None for r in whole)
    (split,) = {r["shard"]["split"] for r in s1 + s2}               # one split, made alike on both
    assert split
    assert f"shard 1/2 of sharded run ci-7 ran {''.join(sorted(names1))};" in out["s1"]   # said under xdist too


def test_the_gate_wants_every_shard_and_judges_the_merged_run_as_the_unsharded_one(runs):
    d, _, _ = runs

    def gate(*args):
        return subprocess.run([sys.executable, "-m", "reports", "gate", "--expectations", "none.yaml", *args],
                              cwd=d, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                              timeout=300)
    alone = gate("--results", "s1.jsonl")
    assert alone.returncode == 2 and "sharded run ci-7: shard 2/2 missing" in alone.stderr
    judged = gate("--results", "s1.jsonl", "--one-shard")
    assert judged.returncode in (0, 1) and "shard 1/2 of sharded run ci-7 judged alone" in judged.stderr
    merged, whole = gate("--results", "s1.jsonl", "s2.jsonl"), gate("--results", "whole.jsonl")
    assert merged.returncode == whole.returncode and "missing" not in merged.stderr
    assert merged.stdout.splitlines()[-1] == whole.stdout.splitlines()[-1]      # the same counts


def _comparable(report: dict) -> dict:
    """What a report says of the implementations, keyed: verdicts, counts, and each clause cell's rows."""
    return {
        "verdicts": {(v["implementation"], v["spec"]): (v["verdict"], v["counts"], v["coverage"])
                     for v in report["verdicts"]},
        "implementations": {i["name"]: (i["counts"], i["pass_rate"]) for i in report["implementations"]},
        "cells": {(m["clause_id"], impl): sorted((x["vector_id"], x["outcome"], x["clause_outcome"])
                                                 for x in cell["vectors"])
                  for m in report["matrix"] for impl, cell in m["cells"].items()},
        "records": report["totals"]["records"],
    }


def test_the_merged_report_equals_the_unsharded_one_key_by_key(runs, spark, tmp_path):
    from reports.engine import build

    d, _, _ = runs
    reports = {}
    for name, results in (("whole", ["whole.jsonl"]), ("merged", ["s1.jsonl", "s2.jsonl"])):
        out = tmp_path / name
        assert build.run([str(d / r) for r in results], str(out), spark=spark, quiet=True,
                         clause_dir=str(VECTORS / "clauses")) == 0
        reports[name] = _comparable(json.loads((out / "compliance.json").read_text(encoding="utf-8")))
    whole, merged = reports["whole"], reports["merged"]
    assert whole["cells"] and whole["verdicts"]
    for part in ("verdicts", "implementations", "cells", "records"):
        assert merged[part] == whole[part], part
