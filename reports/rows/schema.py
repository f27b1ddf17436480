"""The result record (docs/results.md) as a Spark schema and as an Arrow schema, both made from the one
typed row in fixtures/verdict/row.py.

The schema is given to every reader explicitly: inferring it from JSON would
turn a run whose `adapter` is always null into a string-less column, and a
crashed run's truncated line into a `_corrupt_record` column. Keep
fixtures/verdict/row.py in step with the table in docs/results.md;
tests/reports/test_reports_model.py checks the field names against that table.
"""
from __future__ import annotations

from pyspark.sql import types as T

from fixtures.verdict import row
from fixtures.verdict.row import FIELD_NAMES, SCHEMA_VERSION  # noqa: F401

_SPARK_ATOMS = {"string": T.StringType(), "int": T.IntegerType(), "double": T.DoubleType()}


def spark_type(t):
    """The Spark type of a record type (fixtures/verdict/row.py)."""
    if isinstance(t, str):
        return _SPARK_ATOMS[t]
    if t[0] == "array":
        return T.ArrayType(spark_type(t[1]))
    if t[0] == "map":
        return T.MapType(spark_type(t[1]), spark_type(t[2]))
    return T.StructType([T.StructField(n, spark_type(ft)) for n, ft in t[1]])


def arrow_type(t):
    import pyarrow as pa

    if isinstance(t, str):
        return {"string": pa.string(), "int": pa.int32(), "double": pa.float64()}[t]
    if t[0] == "array":
        return pa.list_(arrow_type(t[1]))
    if t[0] == "map":
        return pa.map_(arrow_type(t[1]), arrow_type(t[2]))
    return pa.struct([(n, arrow_type(ft)) for n, ft in t[1]])


IMPLEMENTATION = spark_type(row.IMPLEMENTATION)
FAILED_STEP = spark_type(row.FAILED_STEP)
PROFILE = spark_type(row.PROFILE)
TALLY = spark_type(row.TALLY)
RESULT_SCHEMA = T.StructType([T.StructField(n, spark_type(t)) for n, t in row.FIELDS])


def arrow_schema():
    """The same record as a pyarrow schema, for the bench's synthetic Parquet.

    Imported lazily so that `reports.rows.schema` does not need pyarrow to load.
    """
    import pyarrow as pa

    return pa.schema([(n, arrow_type(t)) for n, t in row.FIELDS])

# The orders and classes of outcomes live in reports/rows/outcomes.py, the levels in fixtures/verdict/levels.py:
# no pyspark import in either, so the gate and the renderers load without Spark.


def with_defaults(df):
    """Records as schema 4 reads them (fixtures/verdict/row.py): every field of RESULT_SCHEMA, an
    implementation with `role` (fixtures/verdict/row.py `role_of`: a row without one is `product`, except
    mqconform's reference codecs and mappings), `profile` an empty map where a row has none (`tally`
    stays null where a row has none: every column is given to the readers, reports/engine/store.py `conform`)."""
    from pyspark.sql import functions as F

    have = {f.name: f.dataType for f in df.schema.fields}
    impl = F.col("implementation")
    for f in IMPLEMENTATION.fields:   # a store written before schema 3 lacks implementation.role
        if not isinstance(have.get("implementation"), T.StructType) or f.name not in have["implementation"].names:
            impl = impl.withField(f.name, F.lit(None).cast(f.dataType))
    name, role = impl.getField("name"), impl.getField("role")
    guessed = (F.when(name.isin(*sorted(row.reference_names())) | name.startswith(row.REFERENCE_PROVIDER_PREFIX),
                      F.lit("reference")).otherwise(F.lit("product")))
    impl = impl.withField("role", F.when(role.isin(*row.ROLES), role).otherwise(guessed))
    profile = F.col("profile") if "profile" in have else F.lit(None).cast(PROFILE)
    return (df.withColumn("implementation", impl)
              .withColumn("profile", F.coalesce(profile, F.create_map().cast(PROFILE))))
