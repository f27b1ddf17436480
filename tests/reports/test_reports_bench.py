"""A smoke test of `reports bench` at a tiny size: it runs, and both engines agree."""
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


def test_bench_smoke(spark, tmp_path):
    lines = []
    # No warm-up: the session fixture's Spark is warm already, and this is about running, not timing.
    rows = bench.run([1000, 3000], spark=spark, workdir=str(tmp_path), out=lines.append, warmup=False)
    assert [r["size"] for r in rows] == [1000, 3000]
    assert all(r["same_report"] for r in rows), lines
    assert all(r["records_seen"] == r["size"] for r in rows)
    assert all(r["spark_rows_per_s"] > 0 and r["duckdb_rows_per_s"] > 0 for r in rows)
    assert any("spark/duckdb" in line for line in lines)
