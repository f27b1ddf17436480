"""The result record (docs/results.md) as a Spark schema, and the orders the reports use.

The schema is given to every reader explicitly: inferring it from JSON would
turn a run whose `adapter` is always null into a string-less column, and a
crashed run's truncated line into a `_corrupt_record` column. Keep this file
in step with the table in docs/results.md; tests/reports/test_schema.py checks
the field names against that table.
"""
from __future__ import annotations

from pyspark.sql import types as T

SCHEMA_VERSION = 2

IMPLEMENTATION = T.StructType([
    T.StructField("name", T.StringType()),
    T.StructField("kind", T.StringType()),
    T.StructField("version", T.StringType()),
    T.StructField("provenance", T.MapType(T.StringType(), T.StringType())),
])

FAILED_STEP = T.StructType([
    T.StructField("index", T.IntegerType()),
    T.StructField("action", T.StringType()),
    T.StructField("role", T.StringType()),
    T.StructField("clause_ids", T.ArrayType(T.StringType())),
])

RESULT_SCHEMA = T.StructType([
    T.StructField("schema_version", T.IntegerType()),
    T.StructField("run_id", T.StringType()),
    T.StructField("run_started", T.StringType()),
    T.StructField("suite_version", T.StringType()),
    T.StructField("vectors_digest", T.StringType()),
    T.StructField("spec", T.StringType()),
    T.StructField("spec_revision", T.StringType()),
    T.StructField("clause_ids", T.ArrayType(T.StringType())),
    T.StructField("level", T.StringType()),
    T.StructField("clause_outcomes", T.MapType(T.StringType(), T.StringType())),
    T.StructField("failed_step", FAILED_STEP),
    T.StructField("error_kind", T.StringType()),
    T.StructField("notes", T.ArrayType(T.StringType())),
    T.StructField("set_by", T.MapType(T.StringType(), T.StringType())),
    T.StructField("test_id", T.StringType()),
    T.StructField("vector_id", T.StringType()),
    T.StructField("vector_status", T.StringType()),
    T.StructField("implementation", IMPLEMENTATION),
    T.StructField("adapter", T.StringType()),
    T.StructField("protocol", T.StringType()),
    T.StructField("outcome", T.StringType()),
    T.StructField("expected_outcome", T.StringType()),
    T.StructField("message", T.StringType()),
    T.StructField("started", T.StringType()),
    T.StructField("duration_s", T.DoubleType()),
])

FIELD_NAMES = [f.name for f in RESULT_SCHEMA.fields]


def arrow_schema():
    """The same record as a pyarrow schema, for the bench's synthetic Parquet.

    Imported lazily so that `reports.schema` does not need pyarrow to load.
    """
    import pyarrow as pa

    return pa.schema([
        ("schema_version", pa.int32()),
        ("run_id", pa.string()),
        ("run_started", pa.string()),
        ("suite_version", pa.string()),
        ("vectors_digest", pa.string()),
        ("spec", pa.string()),
        ("spec_revision", pa.string()),
        ("clause_ids", pa.list_(pa.string())),
        ("level", pa.string()),
        ("clause_outcomes", pa.map_(pa.string(), pa.string())),
        ("failed_step", pa.struct([("index", pa.int32()), ("action", pa.string()), ("role", pa.string()),
                                   ("clause_ids", pa.list_(pa.string()))])),
        ("error_kind", pa.string()),
        ("notes", pa.list_(pa.string())),
        ("set_by", pa.map_(pa.string(), pa.string())),
        ("test_id", pa.string()),
        ("vector_id", pa.string()),
        ("vector_status", pa.string()),
        ("implementation", pa.struct([
            ("name", pa.string()),
            ("kind", pa.string()),
            ("version", pa.string()),
            ("provenance", pa.map_(pa.string(), pa.string())),
        ])),
        ("adapter", pa.string()),
        ("protocol", pa.string()),
        ("outcome", pa.string()),
        ("expected_outcome", pa.string()),
        ("message", pa.string()),
        ("started", pa.string()),
        ("duration_s", pa.float64()),
    ])

# The orders and classes of outcomes live in reports/outcomes.py, the levels in fixtures/levels.py:
# no pyspark import in either, so the gate and the renderers load without Spark.
