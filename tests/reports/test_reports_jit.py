"""What the driver's JVM is started with, from the size of what a build reads: pure code, no Spark."""
from __future__ import annotations

from reports import read, session, sparkconf


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


def _store(root, *tables):
    for t in ("records", *tables):
        (root / t / "_delta_log").mkdir(parents=True)
    (root / "records" / "date=2026-01-01").mkdir()
    (root / "records" / "date=2026-01-01" / "part-0.parquet").write_bytes(b"x" * 10)
    return str(root)


def test_a_read_of_every_stored_record_is_sized_by_the_records_table(tmp_path):
    from reports.build import jit_size

    whole = read.COLUMNAR_RATIO * 10
    cold = _store(tmp_path / "cold")                       # no state tables: made from every record
    assert jit_size([], cold, from_store=True, as_of=False) == whole
    half = _store(tmp_path / "half", "runs")               # one missing is enough
    assert jit_size([], half, from_store=True, as_of=False) == whole
    warm = _store(tmp_path / "warm", "runs", "flaky")      # only the latest runs' records: small
    assert jit_size([], warm, from_store=True, as_of=False) is None
    assert jit_size([], warm, from_store=False, as_of=True) == whole   # a version's every record
    assert jit_size([], "hdfs://namenode:8020/store", from_store=True, as_of=False) is None


def test_a_build_from_results_is_sized_by_them(tmp_path):
    from reports.build import jit_size

    (tmp_path / "r.jsonl").write_bytes(b"x" * 7)
    assert jit_size([str(tmp_path / "r.jsonl")], str(tmp_path / "store"), from_store=False, as_of=False) == 7
