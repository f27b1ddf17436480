"""Clause quotes and levels from vectors/clauses/<spec>.yaml, for the drill-down.

The report must build without them (results from another checkout, a clause
file not written yet), so a missing directory gives no clauses and a broken
file is skipped with a warning rather than failing the build.
"""
from __future__ import annotations

import sys
from pathlib import Path

import yaml

from fixtures.vectordata import yamlsource

from ..paths import ROOT

DEFAULT_DIR = ROOT / "vectors" / "clauses"


def _applies(entries) -> tuple:
    """A clause file's `applies_to` as fixtures/verdict/applicability.py reads it."""
    from fixtures.vectordata.registry import Applicability

    out = []
    for e in entries or []:
        if isinstance(e, dict):
            see = e.get("see") if isinstance(e.get("see"), dict) else None
            out.append(Applicability(e.get("product"), e.get("versions"), " ".join(str(e.get("because") or "").split()),
                                     e.get("kind"), (see.get("spec"), see.get("quote")) if see else None))
    return tuple(out)


def load(directory: str | Path | None = None) -> dict[str, dict]:
    """clause id -> {spec, spec_revision, level, keyword, quote, section, testable, applies_to, unjudged_part, parties}:
    `applies_to` the clause's own, else its document's (fixtures/vectordata/registry.py reads it the same way);
    `unjudged_part` what of the clause no vector judges yet (a half of a conditional clause), or None;
    `parties` who it binds (broker, client), () where the file states none."""
    from fixtures.vectordata.registry import parties_of

    directory = Path(directory) if directory else DEFAULT_DIR
    out: dict[str, dict] = {}
    if not directory.is_dir():
        return out
    for path in sorted(directory.glob("*.yaml")):
        try:
            doc = yamlsource.safe_load(path.read_text(encoding="utf-8")) or {}
            entries = doc.get("clauses") or []
            spec_applies = _applies(doc.get("applies_to"))
            for entry in entries:
                if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                    out[entry["id"]] = {
                        "spec": doc.get("spec"),
                        "spec_revision": None if doc.get("revision") is None else str(doc.get("revision")),
                        "level": entry.get("level"),
                        # "none": the level is read from a sentence without an RFC 2119 keyword
                        "keyword": entry.get("keyword"),
                        "quote": entry.get("quote"),
                        "section": entry.get("section"),
                        "testable": entry.get("testable", True) is not False,
                        "applies_to": _applies(entry.get("applies_to")) or spec_applies,
                        "unjudged_part": entry.get("unjudged_part"),
                        "parties": parties_of(entry),
                    }
        except (OSError, yaml.YAMLError, AttributeError, TypeError) as exc:
            print(f"reports: skipping clause file {path}: {exc}", file=sys.stderr)
    return out
