"""Reading result records without Spark, for the gate: JSON Lines and Parquet.

Only the latest run of each implementation is kept, and only the columns the
gate needs, so a gate over a long history store stays cheap: Parquet is read
twice (run columns first, then the latest runs' rows), JSON Lines once, keeping
per implementation only the rows of the newest run seen so far.
"""
from __future__ import annotations

import functools
import io
import json
import os
import sys
from dataclasses import dataclass

from . import timeutil
from .outcomes import OUTCOMES

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
    """(filesystem, base folder or None, parquet files, JSON Lines files) for a file or a folder."""
    import pyarrow.fs as pafs

    fs, p = _fs_and_path(path)
    info = fs.get_file_info(p)
    if info.type == pafs.FileType.NotFound:
        raise InputError(f"{path}: no such file or directory")
    if info.type == pafs.FileType.File:
        files, base = [info.path], None
    else:
        # Skip what Spark skips: _SUCCESS, .crc checksums, hidden files and folders.
        files = [i.path for i in fs.get_file_info(pafs.FileSelector(p, recursive=True))
                 if i.type == pafs.FileType.File
                 and not any(part.startswith(("_", ".")) for part in i.path[len(p):].split("/") if part)]
        base = p
    parquet = [f for f in files if f.endswith(".parquet")]
    return fs, base, parquet, [f for f in files if not f.endswith(".parquet")]


@functools.lru_cache(maxsize=4096)
def _parse_cached(text):
    # Every record of a run repeats its run_started: parse each value once.
    return timeutil.parse(text)


class _Latest:
    """Keeps the rows of the newest run per implementation."""

    def __init__(self):
        self.best: dict[str, tuple] = {}   # impl -> (run time, run_id)
        self.rows: dict[str, list[dict]] = {}

    def offer(self, impl: str, row: dict) -> None:
        started = row["run_started"]
        when = _parse_cached(started) if isinstance(started, str) else None
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


def _read_json(fs, files: list[str], latest: _Latest) -> list[tuple[str, int]]:
    """Streams JSON Lines files line by line; returns the (file, line number) of each skipped line."""
    skipped = []
    for f in files:
        with fs.open_input_stream(f) as stream:
            for n, line in enumerate(io.TextIOWrapper(stream, encoding="utf-8", errors="replace"), 1):
                if line.strip() and not _offer_line(line, latest):
                    skipped.append((f, n))
    return skipped


def _offer_line(line: str, latest: _Latest) -> bool:
    """Offers one JSON line; False when it is not a complete record.

    A crashed run leaves a truncated last line: it is skipped, as Spark's
    DROPMALFORMED does, and so is a record that lacks what the gate needs or
    has an outcome that docs/results.md does not list.
    """
    try:
        rec = json.loads(line)
        impl = rec["implementation"]["name"]
        row = {c: rec.get(c) for c in COLUMNS}
    except (ValueError, KeyError, TypeError, AttributeError):
        return False
    if not (isinstance(impl, str) and row["run_id"] and row["vector_id"]) or row["outcome"] not in OUTCOMES:
        return False
    row["impl"] = impl
    row["clause_ids"] = row["clause_ids"] or []
    latest.offer(impl, row)
    return True


def _read_parquet(fs, base: str | None, files: list[str], latest: _Latest) -> None:
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    # Hive partitioning restores the `spec` that a build's store keeps only in
    # its spec=.../date=... folder names.
    dataset = ds.dataset(files, filesystem=fs, format="parquet", partitioning="hive",
                         partition_base_dir=base)
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
        if row["impl"] is not None and row["vector_id"] is not None and row["outcome"] in OUTCOMES:
            row["clause_ids"] = row["clause_ids"] or []
            latest.offer(row["impl"], row)


def read_latest(paths: list[str]) -> Reading:
    latest = _Latest()
    skipped: list[tuple[str, int]] = []
    for path in paths:
        fs, base, parquet, json_files = _files(path)
        if parquet:
            _read_parquet(fs, base, parquet, latest)
        skipped += _read_json(fs, json_files, latest)
    rows, seen = [], set()
    for impl in sorted(latest.rows):
        for r in latest.rows[impl]:
            # A run given twice (its JSON Lines and a store built from them) counts once.
            key = (impl, r["run_id"], r["test_id"], r["vector_id"])
            if key not in seen:
                seen.add(key)
                rows.append(r)
    if skipped:
        print(f"reports gate: skipped {len(skipped)} line(s) that are not complete records "
              f"({_where(skipped)})", file=sys.stderr)
    return Reading(rows, len(skipped))


def _where(skipped: list[tuple[str, int]], most: int = 5) -> str:
    """`file line 3, 9; other line 120` for the first `most` skipped lines."""
    by_file: dict[str, list[str]] = {}
    for f, n in skipped[:most]:
        by_file.setdefault(f, []).append(str(n))
    text = "; ".join(f"{f} line {', '.join(ns)}" for f, ns in by_file.items())
    return text + (f"; and {len(skipped) - most} more" if len(skipped) > most else "")
