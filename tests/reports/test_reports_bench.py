"""`reports bench`'s parts at a tiny size: the generators, the measurement, and both engines agreeing."""
from __future__ import annotations

import pyarrow.parquet as pq

from reports import bench
from reports.schema import arrow_schema


def test_generate_writes_the_record_schema(tmp_path):
    folder = bench.generate(tmp_path / "g", 2500, chunk_rows=1000)
    table = pq.read_table(folder)
    assert table.num_rows == 2500
    assert table.schema.equals(arrow_schema())
    assert len(list(folder.glob("*.parquet"))) > 1          # written in chunks


def test_both_engines_build_the_same_report(spark, tmp_path):
    """What the bench compares: a full Spark build and DuckDB's one-process build of the same records."""
    import json

    from reports import baseline_duckdb, build

    folder = bench.generate(tmp_path / "g", 3000, chunk_rows=1000)
    empty = tmp_path / "no-clauses"
    empty.mkdir()
    assert build.run([str(folder)], str(tmp_path / "spark"), spark=spark, clause_dir=str(empty)) == 0
    duck = baseline_duckdb.build(str(folder / "*.parquet"), str(tmp_path / "duckdb"))
    spark_rep = json.loads((tmp_path / "spark" / "compliance.json").read_text())
    for rep in (spark_rep, duck):
        rep.pop("generated")
    assert spark_rep == duck and duck["totals"]["records"] == 3000


def test_append_run_is_one_new_run_after_the_history(tmp_path):
    table = pq.read_table(bench.append_run(tmp_path / "a", 20_000, rows=2000))
    assert table.num_rows == 2000 and table.schema.equals(arrow_schema())
    assert len(set(table.column("run_id").to_pylist())) == 1
    assert table.column("run_started")[0].as_py() > "2026-01-01T20"   # after the 20 runs of the history


def test_measure_reports_peak_memory_and_stops_at_the_cap():
    import sys

    grow = [sys.executable, "-c", "import time; b = bytearray(300 << 20); time.sleep(2)"]
    r = bench.measure(grow, cap_bytes=8 << 30, timeout_s=60)
    assert r["rc"] == 0 and r["stopped"] is None and r["peak_bytes"] > 250 << 20
    r = bench.measure(grow, cap_bytes=100 << 20, timeout_s=60)
    assert r["stopped"] == "memory" and r["rc"] != 0
    r = bench.measure([sys.executable, "-c", "import time; time.sleep(30)"], cap_bytes=8 << 30, timeout_s=1)
    assert r["stopped"] == "time" and r["wall_s"] < 20
