"""Clause quotes and levels from vectors/clauses/<spec>.yaml, for the drill-down.

The report must build without them (results from another checkout, a clause
file not written yet), so a missing directory gives no clauses and a broken
file is skipped with a warning rather than failing the build.
"""
from __future__ import annotations

import sys
from pathlib import Path

import yaml

DEFAULT_DIR = Path(__file__).resolve().parent.parent / "vectors" / "clauses"


def load(directory: str | Path | None = None) -> dict[str, dict]:
    """clause id -> {spec, level, quote, section}."""
    directory = Path(directory) if directory else DEFAULT_DIR
    out: dict[str, dict] = {}
    if not directory.is_dir():
        return out
    for path in sorted(directory.glob("*.yaml")):
        try:
            doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            entries = doc.get("clauses") or []
            for entry in entries:
                if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                    out[entry["id"]] = {
                        "spec": doc.get("spec"),
                        "level": entry.get("level"),
                        "quote": entry.get("quote"),
                        "section": entry.get("section"),
                    }
        except (OSError, yaml.YAMLError, AttributeError) as exc:
            print(f"reports: skipping clause file {path}: {exc}", file=sys.stderr)
    return out
