"""`reports bench`'s parts at a tiny size: the generators, the measurement, and both engines agreeing."""
from __future__ import annotations

import pyarrow.parquet as pq

from reports.bench import bench, measure, synthetic
from reports.rows.schema import arrow_schema


def test_generate_writes_the_record_schema(tmp_path):
    folder = synthetic.generate(tmp_path / "g", 2500, chunk_rows=1000)
    table = pq.read_table(folder)
    assert table.num_rows == 2500
    assert table.schema.equals(arrow_schema())
    assert len(list(folder.glob("*.parquet"))) > 1          # written in chunks


def test_both_engines_build_the_same_report(spark, tmp_path):
    """What the bench compares: a full Spark build and DuckDB's one-process build of the same records."""
    import json

    from reports.baseline import baseline_duckdb
    from reports.engine import build

    folder = synthetic.generate(tmp_path / "g", 3000, chunk_rows=1000)
    empty = tmp_path / "no-clauses"
    empty.mkdir()
    assert build.run([str(folder)], str(tmp_path / "spark"), spark=spark, clause_dir=str(empty)) == 0
    duck = baseline_duckdb.build(str(folder / "*.parquet"), str(tmp_path / "duckdb"))
    spark_rep = json.loads((tmp_path / "spark" / "compliance.json").read_text())
    for rep in (spark_rep, duck):
        rep.pop("generated")
    assert spark_rep == duck and duck["totals"]["records"] == 3000


def test_append_run_is_one_new_run_after_the_history(tmp_path):
    table = pq.read_table(synthetic.append_run(tmp_path / "a", 20_000, rows=2000))
    assert table.num_rows == 2000 and table.schema.equals(arrow_schema())
    assert len(set(table.column("run_id").to_pylist())) == 1
    assert table.column("run_started")[0].as_py() > "2000-01-01T20"   # after the 20 runs of the history


def test_measure_reports_peak_memory_and_stops_at_the_cap():
    import sys

    grow = [sys.executable, "-c", "import time; b = bytearray(300 << 20); time.sleep(2)"]
    r = measure.measure(grow, cap_bytes=8 << 30, timeout_s=60)
    assert r["rc"] == 0 and r["stopped"] is None and r["peak_bytes"] > 250 << 20
    r = measure.measure(grow, cap_bytes=100 << 20, timeout_s=60)
    assert r["stopped"] == "memory" and r["rc"] != 0
    r = measure.measure([sys.executable, "-c", "import time; time.sleep(30)"], cap_bytes=8 << 30, timeout_s=1)
    assert r["stopped"] == "time" and r["wall_s"] < 20


def test_generate_by_date_writes_the_records_layout_and_the_same_records(tmp_path):
    """The history workload's records: one folder per UTC date of their runs, the same rows as the plain
    files of the same size and seed, whatever the number of processes."""
    import pyarrow.dataset as ds

    plain = pq.read_table(synthetic.generate(tmp_path / "plain", 30_000, chunk_rows=7000))
    by_date = synthetic.generate(tmp_path / "by-date", 30_000, chunk_rows=7000, by_date=True, workers=2)
    assert sorted(p.name for p in by_date.iterdir()) == ["date=2000-01-01", "date=2000-01-02"]
    table = ds.dataset(by_date, format="parquet", partitioning="hive").to_table()
    assert table.schema.remove(table.schema.get_field_index("date")).equals(arrow_schema())
    for row in table.select(["run_started", "date"]).to_pylist()[::997]:
        assert row["run_started"][:10] == str(row["date"])
    key = ["run_id", "vector_id", "outcome", "duration_s"]
    assert sorted(table.select(key).to_pylist(), key=str) == sorted(plain.select(key).to_pylist(), key=str)


def test_diff_runs_are_the_oldest_and_newest_run_of_one_implementation(tmp_path):
    table = pq.read_table(synthetic.generate(tmp_path / "g", 30_000))
    first, last = synthetic.diff_runs(30_000)
    impl_of = {r["run_id"]: (r["implementation"]["name"], r["run_started"])
               for r in table.select(["run_id", "implementation", "run_started"]).to_pylist()}
    runs = sorted(s for i, s in impl_of.values() if i == "impl-00")
    assert impl_of[first] == ("impl-00", runs[0]) and impl_of[last] == ("impl-00", runs[-1])


def test_same_report_names_the_reports_that_differ():
    assert bench._same({"a": {"x": 1}, "b": {"x": 1}}) == "yes"
    assert bench._same({"a": {"x": 1}, "b": None, "c": {"x": 1}}) == "yes (2 of 3)"
    assert bench._same({"a": {"x": 1}, "b": {"x": 2}}) == "NO: b differ from a"
    assert bench._same({"a": {"x": 1}, "b": None}) == "-"
