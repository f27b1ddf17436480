"""The current contents of a Delta table as plain files, for readers without Delta (the DuckDB baseline).

What a table holds is what its `_delta_log` lists at its latest version (its checkpoint and the JSON
commits after it, their add and remove actions, read through `deltalake`), never the folder's listing:
files of a commit that never happened, or of a version overwritten since, are not part of it.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Snapshot:
    version: int
    files: list[tuple[str, dict]]    # (local path or URI, partition values) of each data file
    user_metadata: str | None         # of the latest commit (reports/engine/store.py: the records version a state table reflects)

    def where(self, column: str, values: set[str]) -> list[str]:
        """The files of the partitions whose `column` is one of `values`."""
        return [f for f, parts in self.files if parts.get(column) in values]

    @property
    def paths(self) -> list[str]:
        return [f for f, _ in self.files]


def _uri(table: str) -> str:
    return table if "://" in table else os.path.abspath(table)


def exists(table: str) -> bool:
    return os.path.isdir(os.path.join(table, "_delta_log")) if "://" not in table else _open(table) is not None


def _open(table: str):
    from deltalake import DeltaTable
    from deltalake.exceptions import TableNotFoundError

    try:
        return DeltaTable(_uri(table))
    except TableNotFoundError:
        return None


def snapshot(table: str) -> Snapshot | None:
    """The table's latest version, or None when there is no Delta table at `table`."""
    dt = _open(table)
    if dt is None:
        return None
    import pyarrow as pa

    adds = pa.table(dt.get_add_actions(flatten=False))
    parts = (adds.column("partition").to_pylist() if "partition" in adds.column_names
             else [None] * adds.num_rows)
    base = _uri(table).rstrip("/")
    local = "://" not in table
    files = []
    for rel, values in zip(adds.column("path").to_pylist(), parts, strict=True):
        uri = rel if "://" in rel else f"{base}/{rel}"
        files.append((uri.removeprefix("file://") if local else uri,
                      {k: (str(v) if v is not None else None) for k, v in (values or {}).items()}))
    history = dt.history(1)
    meta = history[0].get("userMetadata") if history else None
    return Snapshot(dt.version(), files, meta)


def records_version(snap: Snapshot) -> int | None:
    """The records version a state table's snapshot reflects (reports/engine/store.py write_state), or None."""
    try:
        return int(json.loads(snap.user_metadata)["records_version"])
    except (TypeError, ValueError, KeyError):
        return None
