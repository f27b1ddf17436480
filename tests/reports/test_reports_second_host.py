"""`reports build` on a Spark cluster whose executors run on a second host (secondhost.py): a real run's
results give the same report as the local build; a local --out is refused up front; a cluster with
no executor for the build fails within the bound, saying why. No Python runs on the second host."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from secondhost import SecondHost, available

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = Path(os.environ.get("MQCONFORM_SAMPLE_RESULTS", ROOT / "tests" / "reports" / "data" / "results.jsonl.gz"))

why = available()
# The module's tests share `cluster`: one worker runs them all.
pytestmark = [pytest.mark.skipif(why is not None and os.environ.get("CI") != "true", reason=f"second host: {why}"),
              pytest.mark.xdist_group("second-host")]


def build(*args: str, timeout: float = 600, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("SPARK_LOCAL_IP", "PYSPARK_PYTHON")}
    return subprocess.run([sys.executable, "-m", "reports", "build", *args], cwd=ROOT, env=clean | env,
                          capture_output=True, text=True, timeout=timeout)


def report(out: Path) -> dict:
    rep = json.loads((out / "compliance.json").read_text(encoding="utf-8"))
    rep.pop("generated")
    return rep


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    if why:
        pytest.fail(f"second host: {why}")
    d = tmp_path_factory.mktemp("second-host")
    shared = d / "shared"
    shared.mkdir()
    results = shared / "results.jsonl"
    if SAMPLE.suffix == ".gz":
        import gzip

        results.write_bytes(gzip.decompress(SAMPLE.read_bytes()))
    else:
        shutil.copy(SAMPLE, results)
    with SecondHost(shared, d / "logs") as host:
        yield host, d, results


def test_remote_build_equals_local_build(cluster):
    host, d, results = cluster
    local = d / "local"
    r = build("--results", str(results), "--out", str(local), "--clauses", str(ROOT / "vectors" / "clauses"))
    assert r.returncode == 0, r.stdout + r.stderr
    remote = host.shared / "out"
    r = build("--master", host.master, "--results", str(results), "--out", str(remote),
              "--clauses", str(ROOT / "vectors" / "clauses"))
    assert r.returncode == 0, r.stdout + r.stderr + host.log()[-3000:]
    assert report(remote) == report(local)
    assert report(local)["totals"]["records"] > 0
    # The executors were on the second host and did the work there (a 127.0.0.1 driver would not be reached).
    assert f"{host.ip}" in host.log() and "Launching executor" in host.log()
    assert "Python worker" not in host.log()


def test_local_out_is_refused_up_front(cluster):
    host, d, results = cluster
    out = d / "not-shared"
    r = build("--master", host.master, "--results", str(results), "--out", str(out))
    assert r.returncode == 2, r.stdout + r.stderr
    assert f"cannot see {out}" in r.stderr
    assert not (out / "store").exists() and not (out / "index.html").exists()


def test_no_executor_in_time_says_why(cluster):
    host, d, results = cluster
    r = build("--master", host.master, "--results", str(results), "--out", str(host.shared / "never"),
              "--conf", "spark.executor.cores=8", timeout=300, MQCONFORM_EXECUTOR_WAIT_S="15")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "no executor registered within 15s" in r.stderr and "spark.driver.host" in r.stderr


def test_loopback_driver_for_a_remote_master_is_refused(cluster):
    host, d, results = cluster
    r = build("--master", host.master, "--results", str(results), "--out", str(host.shared / "never"),
              "--conf", "spark.driver.host=127.0.0.1", timeout=120)
    assert r.returncode == 1 and "loopback" in r.stderr, r.stdout + r.stderr
