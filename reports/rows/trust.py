"""What the gate and the report refuse to trust in a valid record, beside reports/rows/validate.py's shape rules.

A record is believed only for what the suite could have written:
  - its times: a row whose run_started or started is after now (beyond CLOCK_SKEW) is dated in the
    future; a row that started before the run that wrote it (started < run_started - CLOCK_SKEW)
    is dated out of its run. Neither is ranked as "the latest run": each is an input error;
  - its names: the spec, every clause and the vector a row names must be in the registry (the
    checkout's vectors/: clause files and vector files), or no verdict, badge or gate can stand on it;
  - its run: every row of one run_id repeats the same run_started, suite_version and vectors_digest
    (docs/results.md); rows of one run that disagree are refused, each after the first one seen.
Each problem names FILE:LINE like validate.py's, and callers exit 2 on any.

The registry is read from vectors/ with plain YAML (ids only; fixtures/vectordata/vectors.py checks the rest).
`--registry DIR` or MQCONFORM_REGISTRY names another tree; `none` turns the name check off, for
synthetic records (the bench, the report tests' fixture data), and says so.
"""
from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..paths import ROOT
from . import timeutil

ENV = "MQCONFORM_REGISTRY"
DEFAULT_DIR = ROOT / "vectors"
# Rows are written on the machine that ran the vectors; the checker's clock may differ by this much.
CLOCK_SKEW = dt.timedelta(minutes=5)
RUN_META = ("run_started", "suite_version", "vectors_digest")


@dataclass(frozen=True)
class Registry:
    specs: frozenset[str]
    clauses: frozenset[str]
    vectors: frozenset[str]
    where: str

    def problem(self, rec: dict) -> str | None:
        if rec.get("spec") not in self.specs:
            return f"spec {rec.get('spec')!r} is not in the registry ({self.where})"
        unknown = [c for c in (rec.get("clause_ids") or []) if c not in self.clauses]
        if unknown:
            return f"clause(s) {', '.join(map(repr, unknown[:3]))} not in the registry ({self.where})"
        if rec.get("vector_id") not in self.vectors:
            return f"vector {rec.get('vector_id')!r} is not in the registry ({self.where})"
        return None


def load_registry(where: str | Path | None = None) -> Registry | None:
    """The registry of a vectors tree (default: --registry, else MQCONFORM_REGISTRY, else this checkout's);
    None for `none`."""
    from fixtures.vectordata import yamlsource

    where = str(where) if where is not None else os.environ.get(ENV) or str(DEFAULT_DIR)
    if where == "none":
        return None
    root = Path(where)
    if not (root / "clauses").is_dir():
        raise ValueError(f"registry {where}: no clauses/ folder (a vectors tree, or `none`)")
    specs, clauses, vectors = set(), set(), set()
    for path in sorted((root / "clauses").glob("*.yaml")):
        doc = yamlsource.safe_load(path.read_text(encoding="utf-8")) or {}
        specs.add(doc.get("spec") or path.stem)
        clauses.update(c["id"] for c in doc.get("clauses") or [] if isinstance(c, dict) and "id" in c)
    for path in sorted(root.rglob("*.yaml")):
        if "clauses" in path.relative_to(root).parts:
            continue
        doc = yamlsource.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(doc, dict) and isinstance(doc.get("vectors"), list):
            vectors.update(v["id"] for v in doc["vectors"] if isinstance(v, dict) and "id" in v)
    return Registry(frozenset(specs), frozenset(clauses), frozenset(vectors), where)


def time_problem(rec: dict, now: dt.datetime) -> str | None:
    """A row dated in the future, or before the run that wrote it."""
    run = timeutil.parse(rec.get("run_started"))
    started = timeutil.parse(rec.get("started")) if isinstance(rec.get("started"), str) else None
    if run is not None and run > now + CLOCK_SKEW:
        return f"run_started {rec['run_started']} is after now ({now:%Y-%m-%dT%H:%M:%SZ}): a row dated in the future"
    if started is not None and started > now + CLOCK_SKEW:
        return f"started {rec['started']} is after now ({now:%Y-%m-%dT%H:%M:%SZ}): a row dated in the future"
    if started is not None and run is not None and started < run - CLOCK_SKEW:
        return f"started {rec['started']} is before its run's run_started {rec['run_started']}"
    return None


@dataclass
class Trust:
    """The checks of one reading: row by row (problem), and across rows of one run (offer, then run_problems)."""
    registry: Registry | None
    now: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))
    _runs: dict = field(default_factory=dict)   # run_id -> (metadata, file, line) of its first row

    def problem(self, rec: dict) -> str | None:
        return time_problem(rec, self.now) or (self.registry.problem(rec) if self.registry else None)

    def offer(self, where: str, line: int | None, rec: dict) -> str | None:
        """Why this row disagrees with the first row seen of its run (None: it agrees, or is the first)."""
        meta = tuple(rec.get(k) for k in RUN_META)
        first = self._runs.setdefault(rec.get("run_id"), (meta, where, line))
        if first[0] == meta:
            return None
        diffs = [f"{k} {m!r} (there: {f!r})" for k, m, f in zip(RUN_META, meta, first[0], strict=True) if m != f]
        at = f"{first[1]}:{first[2]}" if first[2] else first[1]
        return f"run {rec.get('run_id')} disagrees with its row at {at} on {', '.join(diffs)}"

    def check(self, where: str, line: int | None, rec: dict) -> str | None:
        return self.problem(rec) or self.offer(where, line, rec)
