"""`reports build --from-store`, the DuckDB baseline's reads of the same Delta store, and the bulk-loaded
store of `reports bench`'s history workload: each gives the report of the build that made the store."""
from __future__ import annotations

import json
import shutil

import pytest

from reports.baseline import baseline_duckdb
from reports.bench import bulk_store, synthetic
from reports.engine import build


def _report(out) -> dict:
    rep = json.loads((out / "compliance.json").read_text(encoding="utf-8"))
    rep.pop("generated")
    return rep


def test_from_store_equals_the_build_that_made_the_store(spark, built, clause_dir, tmp_path):
    out, made = built
    again = tmp_path / "again"
    assert build.run([], str(again), spark=spark, store=str(out / "store"), clause_dir=str(clause_dir),
                     from_store=True) == 0
    assert _report(again) == {k: v for k, v in made.items() if k != "generated"}


def test_from_store_without_a_store_exits_2(spark, tmp_path, capsys):
    assert build.run([], str(tmp_path / "out"), spark=spark, store=str(tmp_path / "none"), from_store=True) == 2
    assert "no store at" in capsys.readouterr().err
    assert not (tmp_path / "out" / "compliance.json").exists()


def test_duckdb_reads_the_store_spark_wrote(spark, built, tmp_path):
    """The baseline's cold and warm reads of a store Spark wrote (state tables at the records' version)
    give Spark's report (clause quotes aside: the baseline has no clause registry)."""
    out, _ = built
    spark_out = tmp_path / "spark"
    empty = tmp_path / "no-clauses"
    empty.mkdir()
    assert build.run([], str(spark_out), spark=spark, store=str(out / "store"), clause_dir=str(empty),
                     from_store=True) == 0
    for warm in (False, True):
        duck = baseline_duckdb.build_from_store(str(out / "store"), str(tmp_path / f"duck-{warm}"), warm)
        duck.pop("generated")
        assert duck == _report(spark_out)


@pytest.fixture(scope="module")
def bulk(spark, tmp_path_factory):
    """A bulk-loaded store of 30,000 records (30 runs an hour apart: two dates), and the same records as
    plain result files."""
    root = tmp_path_factory.mktemp("bulk")
    bulk_store.make(root / "store", 30_000, spark=spark, workers=2, out=lambda *_: None)
    files = synthetic.generate(root / "results", 30_000)
    empty = root / "no-clauses"
    empty.mkdir()
    return root, files, empty


def test_bulk_store_is_a_store_like_any_other(spark, bulk, tmp_path):
    root, files, empty = bulk
    store = tmp_path / "store"
    shutil.copytree(root / "store", store)
    assert sorted(p.name for p in (store / "records").iterdir() if p.name.startswith("date=")) == [
        "date=2000-01-01", "date=2000-01-02"]
    with pytest.raises(baseline_duckdb.StoreError, match="reflects records version None"):
        baseline_duckdb.build_from_store(str(store), str(tmp_path / "refused"), warm=True)
    cold_duck = baseline_duckdb.build_from_store(str(store), str(tmp_path / "duck-cold"), warm=False)

    made = tmp_path / "made"
    assert build.run([str(files)], str(made), spark=spark, clause_dir=str(empty)) == 0
    for n in (1, 2):   # state tables absent: made from all records; then at the current version
        assert build.run([], str(tmp_path / f"read{n}"), spark=spark, store=str(store), clause_dir=str(empty),
                         from_store=True) == 0
        assert _report(tmp_path / f"read{n}") == _report(made)
    assert (store / "runs" / "_delta_log").is_dir() and (store / "flaky" / "_delta_log").is_dir()
    warm_duck = baseline_duckdb.build_from_store(str(store), str(tmp_path / "duck-warm"), warm=True)
    for rep in (cold_duck, warm_duck):
        rep.pop("generated")
        assert rep == _report(made)
    assert cold_duck["totals"]["records"] == 30_000

    run = synthetic.append_run(tmp_path / "run", 30_000, rows=2000)
    grown = tmp_path / "grown"
    assert build.run([str(run)], str(grown), spark=spark, store=str(store), clause_dir=str(empty),
                     accumulate=True) == 0
    assert _report(grown)["totals"]["records"] == 32_000
    assert build.run([str(root / "results"), str(run)], str(tmp_path / "whole"), spark=spark,
                     clause_dir=str(empty)) == 0
    assert _report(grown) == _report(tmp_path / "whole")
    warm_duck = baseline_duckdb.build_from_store(str(store), str(tmp_path / "duck-grown"), warm=True)
    warm_duck.pop("generated")
    assert warm_duck == _report(grown)
