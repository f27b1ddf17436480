"""The measurements beside a run's results (fixtures/README.md, "measurement"): what the transit and
cross-protocol cases recorded of CloudEvents messages through each broker, never judged. Plain Python:
the files are small and are not result records (no verdict, no store).

The rules:
- a results file `DIR/NAME.jsonl` given to `reports build --results` has its measurements beside it, as the
  suites write them: `DIR/NAME.transit.jsonl` and `DIR/NAME.cross-protocol.jsonl`. Only local files are
  looked at; a build without them (from the store, a Hadoop URI, a run without broker targets) has none, and
  the report says "not measured";
- the files are appended run after run: per target, only the rows of the run that wrote the target's last
  line count (the newest); a line that does not parse (a writer killed mid-line) is skipped;
- the counts are fixtures/measurements/tables.py's, the same as the Markdown files beside the results.
"""
from __future__ import annotations

import json
from pathlib import Path

from fixtures.measurements.tables import crossproto_tables, transit_tables

from ..paths import is_local_path

# measurement -> the suffix its rows take beside a results file (suites/cloudevents/test_transit.py,
# test_cross_protocol.py: path.with_name(path.stem + SUFFIX))
SUFFIXES = {"transit": ".transit.jsonl", "cross_protocol": ".cross-protocol.jsonl"}
EMPTY = {"transit": [], "cross_protocol": []}


def beside(results: list[str]) -> dict[str, list[Path]]:
    """Per measurement, the files found beside the local results files given."""
    found: dict[str, list[Path]] = {k: [] for k in SUFFIXES}
    for r in results:
        if not is_local_path(r):
            continue
        path = Path(r[5:] if r.startswith("file:") else r)
        if not path.is_file():
            continue
        for kind, suffix in SUFFIXES.items():
            side = path.with_name(path.stem + suffix)
            if side.is_file() and side not in found[kind]:
                found[kind].append(side)
    return found


def newest_per_target(rows: list[dict]) -> list[dict]:
    """The rows of each target's newest run: the run that wrote the target's last row (files are appended)."""
    last = {r.get("target"): r.get("run_id") for r in rows}
    return [r for r in rows if r.get("run_id") == last.get(r.get("target"))]


def _rows(paths: list[Path]) -> list[dict]:
    rows = []
    for p in paths:
        for line in p.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict) and row.get("target"):
                rows.append(row)
    return rows


def load(found: dict[str, list[Path]]) -> dict:
    """{transit: transit_tables, cross_protocol: crossproto_tables} of the files `beside` found."""
    return {"transit": transit_tables(newest_per_target(_rows(found.get("transit") or []))),
            "cross_protocol": crossproto_tables(newest_per_target(_rows(found.get("cross_protocol") or [])))}
