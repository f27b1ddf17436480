"""What the driver's JVM is started with, from the size of what a build reads: pure code, no Spark."""
from __future__ import annotations

from reports.engine import read
from reports.spark import session, sparkconf


def test_the_size_of_local_inputs_counts_parquet_as_json_lines(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "a.jsonl").write_bytes(b"x" * 100)
    (tmp_path / "run" / "b.parquet").write_bytes(b"x" * 10)
    (tmp_path / "run" / "_SUCCESS").write_bytes(b"x" * 1000)        # skipped, as Spark skips it
    (tmp_path / "run" / ".hidden").mkdir()
    (tmp_path / "run" / ".hidden" / "c.jsonl").write_bytes(b"x" * 1000)
    assert read.local_text_bytes([str(tmp_path / "run")]) == 100 + read.COLUMNAR_RATIO * 10
    assert read.local_text_bytes([str(tmp_path / "run" / "*.jsonl")]) == 100
    assert read.local_text_bytes([(tmp_path / "run" / "a.jsonl").as_uri()]) == 100


def test_a_size_not_known_before_spark_starts_is_none(tmp_path):
    assert read.local_text_bytes(["hdfs://namenode:8020/results"]) is None
    assert read.local_text_bytes([str(tmp_path / "nothing-here")]) is None


def test_only_a_large_input_gets_the_second_jit_tier():
    assert not session.large_input(None)
    assert not session.large_input(session.SMALL_INPUT_BYTES - 1)
    assert session.large_input(session.SMALL_INPUT_BYTES)
    assert sparkconf.FIRST_TIER_ONLY in sparkconf.java_options(large_input=False)
    assert sparkconf.FIRST_TIER_ONLY not in sparkconf.java_options(large_input=True)
    assert sparkconf.java_options(True).split() == [o for o in sparkconf.java_options(False).split()
                                                    if o != sparkconf.FIRST_TIER_ONLY]


def _store(root, *tables, parquet_bytes=10):
    for t in ("records", *tables):
        (root / t / "_delta_log").mkdir(parents=True)
    (root / "records" / "date=2026-01-01").mkdir()
    with open(root / "records" / "date=2026-01-01" / "part-0.parquet", "wb") as fh:
        fh.truncate(parquet_bytes)                         # sparse: sized, not written
    return str(root)


def test_a_read_of_every_stored_record_is_sized_by_the_records_table(tmp_path):
    from reports.engine.build import STORE_READ_BYTES, second_tier

    big = -(-STORE_READ_BYTES // read.COLUMNAR_RATIO)      # Parquet bytes that count as STORE_READ_BYTES
    cold = _store(tmp_path / "cold", parquet_bytes=big)     # no state tables: made from every record
    assert second_tier([], cold, from_store=True, as_of=False)
    half = _store(tmp_path / "half", "runs", parquet_bytes=big)   # one missing is enough
    assert second_tier([], half, from_store=True, as_of=False)
    small = _store(tmp_path / "small", parquet_bytes=big - 1)
    assert not second_tier([], small, from_store=True, as_of=False)
    warm = _store(tmp_path / "warm", "runs", "flaky", parquet_bytes=big)   # only the latest runs' records
    assert not second_tier([], warm, from_store=True, as_of=False)
    assert second_tier([], warm, from_store=False, as_of=True)              # a version's every record
    assert not second_tier([], "hdfs://namenode:8020/store", from_store=True, as_of=False)


def test_a_build_from_results_is_sized_by_them(tmp_path):
    from reports.engine.build import second_tier

    with open(tmp_path / "r.jsonl", "wb") as fh:
        fh.truncate(session.SMALL_INPUT_BYTES)
    assert second_tier([str(tmp_path / "r.jsonl")], str(tmp_path / "store"), from_store=False, as_of=False)
    assert not second_tier([str(tmp_path / "nothing")], str(tmp_path / "store"), from_store=False, as_of=False)
