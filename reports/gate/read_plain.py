"""Reading result records without Spark, for the gate: JSON Lines, Parquet and the build's Delta table.

Only the latest run of each implementation is kept, and only the columns the
gate needs, so a gate over a long history store stays cheap: Parquet is read
twice (run columns first, then the latest runs' rows), JSON Lines once, keeping
per implementation only the rows of the newest run seen so far.
"""
from __future__ import annotations

import functools
import io
import os
from dataclasses import dataclass, field

from ..rows import timeutil, validate
from ..rows.conflicts import Conflicts
from .shards import Seen

COLUMNS = ("run_id", "run_started", "spec", "vector_id", "clause_ids", "outcome", "test_id", "message",
           "clause_outcomes", "error_kind", "protocol", "started", "suite_version", "vectors_digest", "shard")


# A row's (file, line or None): where reports/rows/conflicts.py names it.
AT = "at"

# _files' base for a Delta table's data files: no partition folders to parse, `spec` is a column.
DELTA = object()


class InputError(ValueError):
    pass


@dataclass
class Reading:
    rows: list[dict]          # the latest run of each implementation; keys COLUMNS + "impl", "version", AT
    problems: validate.Problems = field(default_factory=validate.Problems)  # invalid records, torn last lines
    shards: Seen = field(default_factory=Seen)   # the shards of split runs among ALL valid rows read (shards.py)


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
    elif _delta_table(fs, p):
        return fs, DELTA, _delta_files(path, _delta_table(fs, p)), []
    else:
        # Skip what Spark skips: _SUCCESS, .crc checksums, hidden files and folders.
        files = [i.path for i in fs.get_file_info(pafs.FileSelector(p, recursive=True))
                 if i.type == pafs.FileType.File
                 and not any(part.startswith(("_", ".")) for part in i.path[len(p):].split("/") if part)]
        base = p
    parquet = [f for f in files if f.endswith(".parquet")]
    return fs, base, parquet, [f for f in files if not f.endswith(".parquet")]


def _delta_table(fs, p: str) -> str | None:
    """The Delta table at p: p itself, or its `records` table when p is a store written by build."""
    import pyarrow.fs as pafs

    for table in (p, f"{p.rstrip('/')}/records"):
        if fs.get_file_info(f"{table}/_delta_log").type == pafs.FileType.Directory:
            return table
    return None


def _delta_files(path: str, table: str) -> list[str]:
    """The data files of the table's current version, from its log (never the folder's listing:
    files of a build that died before its commit, or of an overwritten version, are not part of it)."""
    from deltalake import DeltaTable

    uri = table if "://" in path else os.path.abspath(table)
    files = DeltaTable(uri).file_uris()
    return [f.removeprefix("file://") if "://" not in path else f for f in files]


@functools.lru_cache(maxsize=4096)
def _parse_cached(text):
    # Every record of a run repeats its run_started: parse each value once.
    return timeutil.parse(text)


class _Latest:
    """Keeps the rows of the newest run per implementation, and the shards of every row offered."""

    def __init__(self):
        self.best: dict[str, tuple] = {}   # impl -> (run time, run_id)
        self.rows: dict[str, list[dict]] = {}
        self.shards = Seen()

    def offer(self, impl: str, row: dict) -> None:
        self.shards.add(row.get("shard"))
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


def _read_json(fs, files: list[str], latest: _Latest, problems: validate.Problems, trust=None) -> None:
    """Streams JSON Lines files line by line; every line is checked (reports/rows/validate.py, reports/rows/trust.py)."""
    for f in files:
        with fs.open_input_stream(f) as stream:
            lines = io.TextIOWrapper(stream, encoding="utf-8", errors="replace", newline="\n")
            validate.scan_lines(f, lines, problems, lambda rec, n, f=f: _offer(rec, latest, (f, n)), trust=trust,
                                numbered=True)


def _offer(rec: dict, latest: _Latest, at: tuple[str, int | None]) -> None:
    row = {c: rec.get(c) for c in COLUMNS}
    row[AT] = at
    impl = row["impl"] = rec["implementation"]["name"]
    row["version"] = rec["implementation"].get("version")
    _tidy(row)
    latest.offer(impl, row)


def _tidy(row: dict) -> None:
    """clause_ids a list; clause_outcomes a dict (Parquet hands a map as (key, value) pairs) or None
    for a schema version 1 record."""
    row["clause_ids"] = row["clause_ids"] or []
    co = row.get("clause_outcomes")
    row["clause_outcomes"] = dict(co) if isinstance(co, (list, dict)) else None


def _read_parquet(fs, base: str | None, files: list[str], latest: _Latest, problems: validate.Problems,
                  trust=None) -> None:
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    # Hive partitioning restores the `spec` that a store of earlier builds keeps only in
    # its spec=.../date=... folder names.
    def opened(schema=None):
        return (ds.dataset(files, filesystem=fs, format="parquet", schema=schema) if base is DELTA else
                ds.dataset(files, filesystem=fs, format="parquet", partitioning="hive", partition_base_dir=base,
                           schema=schema))
    dataset = opened()
    # A dataset takes its schema from its first file: one written before a column existed (`shard`)
    # would hide that column of every later file. The schema is all of theirs.
    import pyarrow as pa
    dataset = opened(pa.unify_schemas([dataset.schema, *(f.physical_schema for f in dataset.get_fragments())],
                                      promote_options="permissive"))
    impl = pc.field("implementation", "name")
    sharded = "shard" in dataset.schema.names
    runs = []
    for frag in dataset.get_fragments():
        cols = {"impl": impl, "run_id": pc.field("run_id"), "run_started": pc.field("run_started")}
        if sharded:
            cols.update({f"shard_{k}": pc.field("shard", k) for k in ("run", "index", "count", "split")})
        t = frag.to_table(schema=dataset.schema, columns=cols)
        runs += [dict(r, file=frag.path) for r in t.group_by(list(cols)).aggregate([]).to_pylist()]
    for r in runs:
        if r.get("shard_run"):
            latest.shards.add({k: r[f"shard_{k}"] for k in ("run", "index", "count", "split")})
    newest: dict[str, tuple] = {}
    for r in runs:
        when = timeutil.parse(r["run_started"])
        why = validate.record_problem({"implementation": {"name": r["impl"]}, "run_id": r["run_id"],
                                       "run_started": r["run_started"], "spec": "-", "vector_id": "-",
                                       "outcome": "pass"})
        if why:
            problems.add(r["file"], None, f"a record with {why}")
            continue
        key = (when, r["run_id"])
        if r["impl"] not in newest or key > newest[r["impl"]]:
            newest[r["impl"]] = key
    if not newest:
        return
    # Only the chosen run ids; the impl check happens when the rows are offered.
    wanted = sorted({k[1] for k in newest.values()})
    # Columns an older store lacks read as None.
    cols = {c: pc.field(c) for c in COLUMNS if c in dataset.schema.names}
    cols["impl"] = impl
    cols["version"] = pc.field("implementation", "version")
    rows = []
    for frag in dataset.get_fragments(filter=None):
        t = frag.to_table(schema=dataset.schema, columns=cols, filter=pc.field("run_id").isin(wanted))
        rows += [dict(r, file=frag.path) for r in t.to_pylist()]
    for row in rows:
        why = validate.record_problem(dict(row, implementation={"name": row["impl"]}))
        if why:
            problems.add(row["file"], None, f"a record with {why}")
            continue
        # the latest runs' rows only: what the gate judges is what must be trusted
        if trust is not None and (distrust := trust.check(row["file"], None, row)):
            problems.add(row["file"], None, distrust)
            continue
        row[AT] = (row.pop("file"), None)
        for c in COLUMNS:
            row.setdefault(c, None)
        _tidy(row)
        latest.offer(row["impl"], row)


def read_latest(paths: list[str], trust=None) -> Reading:
    """The latest run of each implementation; Reading.problems says what was invalid, untrusted (`trust`,
    reports/rows/trust.py: dated in the future or out of its run, unknown to the registry, disagreeing with
    its run) or torn. A run is the latest by its run_started only among rows that pass those checks: a
    caller refuses the whole reading on any problem, so a date no row could have is never ranked."""
    latest = _Latest()
    problems = validate.Problems()
    for path in paths:
        fs, base, parquet, json_files = _files(path)
        if parquet:
            _read_parquet(fs, base, parquet, latest, problems, trust)
        _read_json(fs, json_files, latest, problems, trust)
    # Rows of one key (reports/rows/conflicts.py) with different outcomes are refused, whatever their order;
    # the latest runs' rows are those the gate judges (rows of one key share a run, so both are here).
    conflicts = Conflicts()
    for impl in sorted(latest.rows):
        for r in latest.rows[impl]:
            conflicts.offer(r, *r[AT])
    for where, n, why in conflicts.problems():
        problems.add(where, n, why)
    rows, seen = [], set()
    for impl in sorted(latest.rows):
        for r in latest.rows[impl]:
            # A run given twice (its JSON Lines and a store built from them) counts once.
            key = (impl, r["run_id"], r["test_id"], r["vector_id"])
            if key not in seen:
                seen.add(key)
                rows.append(r)
    return Reading(rows, problems, latest.shards)
