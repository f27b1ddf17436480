"""The record key on Spark: the build's two questions about rows of one key, asked before it stores them.

A record's key in the store is reports/engine/store.py KEY (with its date); the rule of two rows of one key
with different outcomes is reports/rows/conflicts.py's, the gate's and the build's alike. Here only the
Spark queries: whether the inputs may repeat a store key (the store then de-duplicates), and which
keys have rows with different outcomes (the build refuses them, reports/rows/conflicts.py names the rows).
"""
from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from .read import FILE, valid
from .store import KEY


def has_duplicates(raw: DataFrame) -> bool:
    """Whether two valid records may share the store's record key (date and reports/engine/store.py KEY).
    The key is hashed without its date (64 bits): equal store keys always hash equal, so False means
    no two records share one; equal hashes of different keys say True, which only costs the
    de-duplication a build then does."""
    key = F.xxhash64(*[F.col(k) for k in KEY])
    return bool(raw.where(valid()).groupBy(key.alias("_k")).count().where("count > 1").limit(1).collect())


def conflicting_keys(raw, most: int = 20) -> list[tuple[tuple, list[str]]]:
    """The build's check (Spark): up to `most` keys whose valid records have more than one outcome,
    each with the files holding them; one aggregation (min and max of the outcome per key)."""
    groups = (raw.where(valid())
              .groupBy("run_id", "vector_id", F.col("implementation.name").alias("_impl"),
                       F.coalesce("protocol", "test_id").alias("_protocol"))
              .agg(F.min("outcome").alias("_lo"), F.max("outcome").alias("_hi"), F.collect_set(FILE).alias("_files"))
              .where("_lo <> _hi").limit(most).collect())
    return [((g["run_id"], g["vector_id"], g["_impl"], g["_protocol"]), sorted(g["_files"])) for g in groups]
