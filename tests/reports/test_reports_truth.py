"""The state tables a bulk-loaded store gets from the generator's draws (reports/bench/bench_truth.py) are the
ones Spark's cold read makes from the records, row for row; DuckDB's cold folds agree; and a warm read
on them gives the cold read's report."""
from __future__ import annotations

import json
import shutil

import duckdb
import pytest

from reports.baseline import baseline_duckdb, delta_files
from reports.bench import bench_truth, bulk_store, synthetic
from reports.engine import build
from reports.engine import store as S

# (records, chunk_rows): 12,345 records are 13 runs of 1,000 vectors in 5 chunks, the last run cut to 345
# records; 20,000 are 20 whole runs in one chunk.
SIZES = ((12_345, 3_000), (20_000, 1_000_000))


def _report(out) -> dict:
    rep = json.loads((out / "compliance.json").read_text(encoding="utf-8"))
    rep.pop("generated")
    return rep


def test_the_sizes_cover_a_cut_run_and_several_chunks():
    size, chunk_rows = SIZES[0]
    g = synthetic._plan(size, 7)
    assert g["n_runs"] * g["n_vec"] > size and len(synthetic.chunks(size, 7, chunk_rows)) > 1
    runs, flaky = bench_truth.state(size, chunk_rows=chunk_rows)
    assert sum(sum(r[9:]) for r in runs) == size
    assert any(f[3] > 0 for f in flaky)   # flaky vectors to compare, not only zeros


@pytest.fixture(scope="module", params=SIZES, ids=lambda p: f"{p[0]}-by-{p[1]}")
def stores(request, spark, tmp_path_factory):
    """(a bulk-loaded store without state tables, after one cold Spark read; the same records with the
    generator's state tables; the cold read's output; size)."""
    size, chunk_rows = request.param
    root = tmp_path_factory.mktemp(f"truth-{size}")
    cold = root / "cold"
    bulk_store.make(cold, size, spark=spark, chunk_rows=chunk_rows, out=lambda *_: None)
    truth = root / "truth"
    shutil.copytree(cold, truth)
    at = S.version(spark, S.path(str(truth), S.RECORDS))
    assert bulk_store.write_state(spark, str(truth), size, chunk_rows=chunk_rows) == at
    empty = root / "no-clauses"
    empty.mkdir()
    assert S.state_version(spark, str(cold), S.RUNS) is None
    assert build.run([], str(root / "cold-out"), spark=spark, store=str(cold), clause_dir=str(empty),
                     from_store=True) == 0
    return cold, truth, root / "cold-out", empty, size, chunk_rows


def test_the_generator_state_is_the_state_spark_makes(spark, stores):
    cold, truth, *_ = stores
    for table in (S.RUNS, S.FLAKY):
        made, ours = S.read_state(spark, str(cold), table), S.read_state(spark, str(truth), table)
        assert ours.schema == made.schema
        assert S.state_version(spark, str(truth), table) == S.state_version(spark, str(cold), table) == S.version(
            spark, S.path(str(cold), S.RECORDS))
        rows = sorted(tuple(r) for r in ours.collect())
        assert rows == sorted(tuple(r) for r in made.collect())
        assert rows


def test_duckdb_cold_folds_agree(stores):
    cold, _, _, _, size, chunk_rows = stores
    runs, flaky = bench_truth.state(size, chunk_rows=chunk_rows, workers=2)
    con = duckdb.connect()
    baseline_duckdb.records_view(con, delta_files.snapshot(S.path(str(cold), S.RECORDS)).paths)
    names = bench_truth.RUNS_COLUMNS

    def key(r):
        return r["impl"], r["run_id"]
    expected = [baseline_duckdb._run_row(dict(zip(names, r, strict=True))) for r in runs]
    assert sorted(baseline_duckdb.cold_runs(con), key=key) == sorted(expected, key=key)
    assert sorted(baseline_duckdb.cold_flaky(con), key=lambda r: (r["impl"], r["vector_id"])) == sorted(
        ({"impl": f[0], "vector_id": f[1], "pairs": f[2], "changes": f[3]} for f in flaky if f[3] > 0),
        key=lambda r: (r["impl"], r["vector_id"]))


def test_a_warm_read_on_the_generator_state_gives_the_cold_report(spark, stores, tmp_path):
    _, truth, cold_out, empty, *_ = stores
    tables = {t: S.version(spark, S.path(str(truth), t)) for t in (S.RUNS, S.FLAKY)}
    assert build.run([], str(tmp_path / "warm"), spark=spark, store=str(truth), clause_dir=str(empty),
                     from_store=True) == 0
    assert {t: S.version(spark, S.path(str(truth), t)) for t in tables} == tables   # read, not rebuilt
    assert _report(tmp_path / "warm") == _report(cold_out)
    duck = baseline_duckdb.build_from_store(str(truth), str(tmp_path / "duck-warm"), warm=True)
    duck.pop("generated")
    assert duck == _report(cold_out)


def test_state_only_without_records_is_refused(spark, tmp_path):
    with pytest.raises(ValueError, match="no records table"):
        bulk_store.write_state(spark, str(tmp_path / "none"), 1000)
