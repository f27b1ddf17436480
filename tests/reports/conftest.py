"""Fixtures for tests/reports: one SparkSession for the whole test session (a JVM
start costs seconds), and the fixture result files of reportdata.py.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

# Test modules import reportdata; make that work whatever --import-mode is set.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from reportdata import CLAUSE_FILE, write_results  # noqa: E402

# reportdata's records name specs, clauses and vectors of no registry (ce-amqp.v1, rmq.v5): the
# registry check (reports/rows/trust.py) is off for them; test_reports_trust.py turns it on.
os.environ.setdefault("MQCONFORM_REGISTRY", "none")


@pytest.fixture(scope="session")
def spark():
    from reports.spark import session

    s = session.start("local[2]", {"spark.sql.shuffle.partitions": "2"})
    yield s
    s.stop()


@pytest.fixture(scope="session")
def results(tmp_path_factory):
    return write_results(tmp_path_factory.mktemp("results"))


@pytest.fixture(scope="session")
def clause_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("clauses")
    (d / "ce-amqp.yaml").write_text(CLAUSE_FILE, encoding="utf-8")
    (d / "broken.yaml").write_text("clauses: [unclosed", encoding="utf-8")
    return d


@pytest.fixture(scope="session")
def built(spark, results, clause_dir, tmp_path_factory):
    """One `reports build` over all fixture files; returns (out dir, report dict)."""
    from reports.engine import build

    out = tmp_path_factory.mktemp("site")
    rc = build.run([str(p) for p in results.values()], str(out), clause_dir=str(clause_dir), spark=spark)
    assert rc == 0
    return out, json.loads((out / "compliance.json").read_text(encoding="utf-8"))
