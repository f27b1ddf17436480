"""Rows written as a store's Parquet file without Spark (pyarrow, the rows' Arrow schema or an older one
with a column removed), for the DuckDB baseline's tests of stores written before a schema change."""
from __future__ import annotations


def write_parquet(rs, folder, schema=None):
    """`rs` (rows as results.jsonl holds them) in `folder`/rows.parquet, maps as key-value lists."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from reports.rows.schema import arrow_schema

    schema = schema or arrow_schema()
    folder.mkdir()
    fit = []
    for r in rs:
        r = {k: r.get(k) for k in schema.names}
        r["implementation"] = {**r["implementation"], "provenance": list(r["implementation"]["provenance"].items())}
        r["clause_outcomes"] = list(r["clause_outcomes"].items())
        r["profile"] = list(r["profile"].items())
        fit.append(r)
    pq.write_table(pa.Table.from_pylist(fit, schema=schema), folder / "rows.parquet")
    return folder
