"""The store's table: schema evolution, idempotent appends, time travel."""
from __future__ import annotations

import json

from pyspark.sql import functions as F
from pyspark.sql import types as T
from reportdata import record

from reports.engine import keys, read, store
from reports.rows.schema import RESULT_SCHEMA


def records(spark, tmp_path, name, rows):
    f = tmp_path / f"{name}.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return read.normalize(read.read_raw(spark, [str(f)]))


def test_a_new_nullable_column_is_added_to_an_existing_table(spark, tmp_path):
    """A table written with today's schema takes a run whose records have more columns (a map, a struct,
    a string): old rows read them as null, and reading with either schema works."""
    where = str(tmp_path / "store")
    old = records(spark, tmp_path, "old", [record("alpha", "codec", "a1", "2026-11-01T00:00:00Z", "1.0", "sha256:d",
                                                  "ce-amqp.v1", "pass")])
    assert store.write_records(old, where, replace=False, partitions=2) == 0
    new = (records(spark, tmp_path, "new", [record("alpha", "codec", "a2", "2026-11-02T00:00:00Z", "1.0",
                                                   "sha256:d", "ce-amqp.v1", "fail")])
           .withColumn("x_outcomes", F.create_map(F.lit("ce-amqp/3.1/prefix"), F.lit("fail")))
           .withColumn("x_step", F.struct(F.lit("decode").alias("step"), F.lit(2).alias("index")))
           .withColumn("x_note", F.lit(None).cast("string")))
    assert store.write_records(new, where, replace=False, partitions=2) == 1
    got = {r["run_id"][:2]: r for r in store.read_records(spark, where).collect()}
    assert got["a1"]["x_outcomes"] is None and got["a1"]["x_step"] is None
    assert got["a2"]["x_outcomes"] == {"ce-amqp/3.1/prefix": "fail"} and got["a2"]["x_step"]["step"] == "decode"
    # The schema the code knows (today's) and an extended one both read the table.
    assert store.read_records(spark, where).columns[:len(RESULT_SCHEMA.fields)] == [f.name for f in RESULT_SCHEMA.fields]
    wider = T.StructType([*RESULT_SCHEMA.fields, T.StructField("x_kind", T.StringType())])
    row = store.conform(spark.read.format("delta").load(f"{where}/records"), wider).where("run_id LIKE 'a1%'").first()
    assert row["x_kind"] is None and row["x_outcomes"] is None
    # The version before the new columns reads as it was (time travel).
    assert "x_outcomes" not in spark.read.format("delta").option("versionAsOf", 0).load(f"{where}/records").columns


def test_the_same_run_twice_changes_nothing(spark, tmp_path):
    where = str(tmp_path / "store")
    df = records(spark, tmp_path, "r", [record("alpha", "codec", "a1", "2026-11-01T00:00:00Z", "1.0", "sha256:d",
                                              f"ce-amqp.v{i}", "pass") for i in (1, 2, 3)])
    assert store.write_records(df, where, replace=False, partitions=2) == 0
    v = store.write_records(df, where, replace=False, partitions=2)
    assert store.read_records(spark, where).count() == 3
    assert store.inserted_since(spark, where, 0, v).count() == 0


def test_the_key_check_finds_a_repeated_record_key(spark, tmp_path):
    rows = [record("alpha", "codec", "a1", "2026-11-01T00:00:00Z", "1.0", "sha256:d", f"ce-amqp.v{i}", "pass")
            for i in (1, 2, 3)]
    distinct, repeated = tmp_path / "distinct.jsonl", tmp_path / "repeated.jsonl"
    distinct.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    # the same key (run, implementation, vector, test) with another outcome is still a repeat
    repeated.write_text("".join(json.dumps(r) + "\n" for r in [*rows, {**rows[0], "outcome": "fail"}]),
                        encoding="utf-8")
    assert not keys.has_duplicates(read.read_raw(spark, [str(distinct)]))
    assert keys.has_duplicates(read.read_raw(spark, [str(repeated)]))
    # an invalid record is not stored, so it repeats nothing
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**rows[0], "outcome": "nonsense"}) + "\n", encoding="utf-8")
    assert not keys.has_duplicates(read.read_raw(spark, [str(distinct), str(bad)]))
    # the rows kept without de-duplication are the normalized ones, without run_ts
    kept = store.stored_rows(read.normalize(read.read_raw(spark, [str(distinct)])), 2, dedupe=False)
    assert "run_ts" not in kept.columns and kept.count() == 3
    assert store.stored_rows(read.normalize(read.read_raw(spark, [str(repeated)])), 2).count() == 3


def test_the_records_table_keeps_file_statistics_of_its_first_columns_only(spark, tmp_path):
    where = str(tmp_path / "store")
    df = records(spark, tmp_path, "r", [record("alpha", "codec", "a1", "2026-11-01T00:00:00Z", "1.0", "sha256:d",
                                              "ce-amqp.v1", "pass")])
    store.write_records(df, where, replace=True, partitions=2)
    log = sorted((tmp_path / "store" / "records" / "_delta_log").glob("*.json"))[-1].read_text(encoding="utf-8")
    adds = [json.loads(line)["add"] for line in log.splitlines() if '"add"' in line]
    stats = json.loads(adds[0]["stats"])
    assert set(stats["minValues"]) <= {f.name for f in RESULT_SCHEMA.fields[:store.STATS_COLUMNS]}
    assert "run_id" in stats["minValues"]
