"""Reading result records without Spark, for the gate: JSON Lines and Parquet.

Only the latest run of each implementation is kept, and only the columns the
gate needs, so a gate over a long history store stays cheap: Parquet is read
twice (run columns first, then the latest runs' rows), JSON Lines once, keeping
per implementation only the rows of the newest run seen so far.
"""
from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass

from . import timeutil

COLUMNS = ("run_id", "run_started", "spec", "vector_id", "clause_ids", "outcome", "test_id", "message")


class InputError(ValueError):
    pass


@dataclass
class Reading:
    rows: list[dict]          # the latest run of each implementation; keys COLUMNS + "impl"
    skipped_lines: int = 0    # JSON lines that did not parse or lacked a field


def _fs_and_path(path: str):
    import pyarrow.fs as pafs

    if "://" in path:
        return pafs.FileSystem.from_uri(path)
    return pafs.LocalFileSystem(), os.path.abspath(path)


def _files(path: str):
    """(filesystem, [(file path, 'parquet' | 'json')]) for a file or a folder."""
    import pyarrow.fs as pafs

    fs, p = _fs_and_path(path)
    info = fs.get_file_info(p)
    if info.type == pafs.FileType.NotFound:
        raise InputError(f"{path}: no such file or directory")
    if info.type == pafs.FileType.File:
        infos = [info]
    else:
        infos = [i for i in fs.get_file_info(pafs.FileSelector(p, recursive=True))
                 if i.type == pafs.FileType.File and not i.base_name.startswith(("_", "."))]
    if any(i.path.endswith(".parquet") for i in infos):
        return fs, p, "parquet"
    return fs, [i.path for i in infos], "json"


class _Latest:
    """Keeps the rows of the newest run per implementation."""

    def __init__(self):
        self.best: dict[str, tuple] = {}   # impl -> (run time, run_id)
        self.rows: dict[str, list[dict]] = {}

    def offer(self, impl: str, row: dict) -> None:
        when = timeutil.parse(row["run_started"])
        if when is None:
            return
        key = (when, row["run_id"])
        best = self.best.get(impl)
        if best is None or key > best:
            self.best[impl] = key
            self.rows[impl] = []
            best = key
        if key == best:
            self.rows[impl].append(row)


def _read_json(fs, files: list[str], latest: _Latest) -> int:
    skipped = 0
    for f in files:
        with fs.open_input_stream(f) as stream:
            data = stream.read().decode("utf-8", errors="replace")
        for line in data.splitlines():
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                impl = rec["implementation"]["name"]
                row = {c: rec.get(c) for c in COLUMNS}
                if not (impl and row["run_id"] and row["vector_id"] and row["outcome"]):
                    raise KeyError("field")
            except (ValueError, KeyError, TypeError, AttributeError):
                # A crashed run leaves a truncated last line: skip, as Spark's DROPMALFORMED does.
                skipped += 1
                continue
            row["impl"] = impl
            row["clause_ids"] = row["clause_ids"] or []
            latest.offer(impl, row)
    return skipped


def _read_parquet(fs, path: str, latest: _Latest) -> None:
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    dataset = ds.dataset(path, filesystem=fs, format="parquet", partitioning="hive")
    impl = pc.field("implementation", "name")
    runs = dataset.to_table(columns={"impl": impl, "run_id": pc.field("run_id"),
                                     "run_started": pc.field("run_started")})
    runs = runs.group_by(["impl", "run_id", "run_started"]).aggregate([]).to_pylist()
    newest: dict[str, tuple] = {}
    for r in runs:
        when = timeutil.parse(r["run_started"])
        if r["impl"] is None or r["run_id"] is None or when is None:
            continue
        key = (when, r["run_id"])
        if r["impl"] not in newest or key > newest[r["impl"]]:
            newest[r["impl"]] = key
    if not newest:
        return
    # Only the chosen run ids; the impl check happens when the rows are offered.
    wanted = sorted({k[1] for k in newest.values()})
    cols = {c: pc.field(c) for c in COLUMNS}
    cols["impl"] = impl
    table = dataset.to_table(columns=cols, filter=pc.field("run_id").isin(wanted))
    for row in table.to_pylist():
        if row["impl"] is not None:
            row["clause_ids"] = row["clause_ids"] or []
            latest.offer(row["impl"], row)


def read_latest(paths: list[str]) -> Reading:
    latest = _Latest()
    skipped = 0
    for path in paths:
        fs, target, kind = _files(path)
        if kind == "parquet":
            _read_parquet(fs, target, latest)
        else:
            skipped += _read_json(fs, target, latest)
    rows, seen = [], set()
    for impl in sorted(latest.rows):
        for r in latest.rows[impl]:
            # A run given twice (its JSON Lines and a store built from them) counts once.
            key = (impl, r["run_id"], r["test_id"], r["vector_id"])
            if key not in seen:
                seen.add(key)
                rows.append(r)
    if skipped:
        print(f"reports gate: skipped {skipped} line(s) that are not complete records", file=sys.stderr)
    return Reading(rows, skipped)
