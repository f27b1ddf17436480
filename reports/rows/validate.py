"""What makes a result record valid, for the gate and for `reports build` alike. Plain Python.

A record must be placeable: it names its run (`run_id`, an RFC 3339
`run_started`), its spec, its vector and its implementation, and its outcome is
one that docs/results.md lists; a `tally`, where a row has one, keeps its rules
(fixtures/verdict/records.py `tally_problem`). Anything else in a results file is an input
error that names file and line: the gate and the build refuse it (exit 2)
rather than judge or report without it. The one exception is a torn last line:
a line at the very end of a file, without a line end, that does not parse is
what a writer killed mid-line leaves; it is skipped, and said.
"""
from __future__ import annotations

import json

from fixtures.verdict.row import MAX_SHARDS, tally_problem

from . import timeutil
from .outcomes import OUTCOMES

# (path in the record, as it is named in messages); reports/engine/read.py builds its Spark check from the same list.
REQUIRED = (("run_id",), ("run_started",), ("spec",), ("vector_id",), ("implementation", "name"), ("outcome",))


def _get(rec, path):
    for key in path:
        if not isinstance(rec, dict):
            return None
        rec = rec.get(key)
    return rec


def record_problem(rec) -> str | None:
    """Why a decoded JSON value is not a valid record, or None when it is."""
    if not isinstance(rec, dict):
        return "not a JSON object"
    missing = [".".join(p) for p in REQUIRED if _get(rec, p) in (None, "")]
    if missing:
        return f"missing required field(s) {', '.join(missing)}"
    bad_type = [".".join(p) for p in REQUIRED if not isinstance(_get(rec, p), str)]
    if bad_type:
        return f"field(s) {', '.join(bad_type)} not a string"
    if rec["outcome"] not in OUTCOMES:
        return f"unknown outcome {rec['outcome']!r} (docs/results.md lists {', '.join(sorted(OUTCOMES))})"
    if timeutil.parse(rec["run_started"]) is None:
        return f"run_started {rec['run_started']!r} is not an RFC 3339 time"
    return tally_problem(rec.get("tally")) or shard_problem(rec.get("shard"))


def shard_problem(shard) -> str | None:
    """Why a row's `shard` is not one docs/results.md defines (null, or {run, index, count, split}
    with 1 <= index <= count <= MAX_SHARDS), or None."""
    if shard is None:
        return None
    if not isinstance(shard, dict):
        return f"shard is {type(shard).__name__}, not an object"
    if not isinstance(shard.get("run"), str) or not shard["run"]:
        return "shard.run is not a split run's id"
    index, count = shard.get("index"), shard.get("count")
    if any(isinstance(v, bool) or not isinstance(v, int) for v in (index, count)) \
            or not 1 <= index <= count <= MAX_SHARDS:
        return f"shard {index!r}/{count!r} is not I/N with 1 <= I <= N <= {MAX_SHARDS}"
    if shard.get("split") is not None and not isinstance(shard["split"], str):
        return "shard.split is not a digest"
    return None


def line_problem(line: str) -> tuple[dict | None, str | None]:
    """(record, None) for a valid JSON line, (None, why) otherwise."""
    try:
        rec = json.loads(line)
    except ValueError as exc:
        return None, f"not JSON ({exc.msg} at column {exc.colno})"
    why = record_problem(rec)
    return (None, why) if why else (rec, None)


def _shown(where: str) -> str:
    return where[len("file:"):] if where.startswith("file:/") else where


class Problems:
    """Problems found in the inputs, in order: (file, line or None, why); the torn last lines apart."""

    def __init__(self):
        self.errors: list[tuple[str, int | None, str]] = []
        self.torn: list[tuple[str, int]] = []

    def add(self, where: str, line: int | None, why: str) -> None:
        self.errors.append((where, line, why))

    def say(self, prog: str, out, most: int = 10) -> None:
        """One line per torn last line (tolerated) and per error (the first `most`); a local file is named
        by its path, as the user gave it (Hadoop's `file:` prefix dropped), so that build and gate agree."""
        for where, n in self.torn:
            print(f"{prog}: {_shown(where)}:{n}: the last line is not a complete record (a run killed while "
                  "writing?); skipped", file=out)
        for where, n, why in self.errors[:most]:
            print(f"{prog}: {_shown(where)}{f':{n}' if n else ''}: {why}", file=out)
        if len(self.errors) > most:
            print(f"{prog}: ... and {len(self.errors) - most} more invalid record(s)", file=out)
        if self.errors:
            print(f"{prog}: refusing inputs with {len(self.errors)} invalid record(s); fix or remove them "
                  "(only a torn last line is tolerated)", file=out)


def scan_lines(where: str, lines, problems: Problems, on_record=None, trust=None, numbered: bool = False) -> None:
    """Check every line of one JSON Lines file; `lines` yields text lines with their line ends.
    Each valid record is handed to `on_record(rec)`, or with `numbered` to `on_record(rec, line)`.

    A line that fails is an error, unless it is the file's last line, has no line
    end and does not parse as JSON: a torn last line. With `trust` (reports/rows/trust.py), a valid
    record dated in the future or out of its run, naming what the registry does not know, or
    disagreeing with its run's other rows is an error too, and is not handed on.
    """
    pending = None  # (n, line, why) of the previous failing line, decided once we know whether it is last
    for n, line in enumerate(lines, 1):
        if pending:
            problems.add(where, pending[0], pending[2])
            pending = None
        if not line.strip():
            continue
        rec, why = line_problem(line)
        if why is None and trust is not None and (distrust := trust.check(where, n, rec)):
            problems.add(where, n, distrust)
            continue
        if why is None:
            if on_record:
                on_record(rec, n) if numbered else on_record(rec)
            continue
        pending = (n, line, why)
    if pending:
        n, line, why = pending
        if not line.endswith("\n") and why.startswith("not JSON"):
            problems.torn.append((where, n))
        else:
            problems.add(where, n, why)
