"""`python -m reports coverage [--json]`: which testable clauses have vectors.

Counts per spec and level: clauses, testable, covered by at least one vector;
lists the testable clauses no vector covers. Reads only vectors/ (no results).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from ..paths import ROOT


def compute(vectors_dir: Path) -> dict:
    sys.path.insert(0, str(ROOT))
    from fixtures.vectordata.vectors import load_vectors
    from fixtures.verdict.levels import LEVEL_ORDER

    from . import clauses as clause_files

    vs = load_vectors(vectors_dir)
    covered_ids = {c for v in vs.vectors for c in v.clauses}
    # a clause a vector covers only in part (`unjudged_part`): a verdict cannot count it judged and held
    parts = {cid: c["unjudged_part"] for cid, c in clause_files.load(Path(vectors_dir) / "clauses").items()
             if c.get("unjudged_part")}
    specs, levels = {}, {}
    for spec_id, spec in sorted(vs.registry.specs.items()):
        testable = [c for c in spec.clauses if c.testable]
        specs[spec_id] = {
            "clauses": len(spec.clauses),
            "testable": len(testable),
            "covered": sum(c.id in covered_ids for c in testable),
            "uncovered": [c.id for c in testable if c.id not in covered_ids],
            "partly_covered": [c.id for c in testable if c.id in covered_ids and c.id in parts],
        }
        per_level = defaultdict(lambda: {"clauses": 0, "testable": 0, "covered": 0})
        for c in spec.clauses:
            row = per_level[c.level]
            row["clauses"] += 1
            row["testable"] += c.testable
            row["covered"] += c.testable and c.id in covered_ids
        levels[spec_id] = {lv: per_level[lv] for lv in LEVEL_ORDER if lv in per_level}
    total = {k: sum(s[k] for s in specs.values()) for k in ("clauses", "testable", "covered")}
    return {"specs": specs, "total": total, "_levels": levels}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reports coverage", description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    ap.add_argument("--vectors-dir", default=str(ROOT / "vectors"))
    args = ap.parse_args(argv)
    try:
        result = compute(Path(args.vectors_dir))
    except ValueError as exc:  # VectorError / RegistryError: already names file, line and field
        print(f"error: {exc}", file=sys.stderr)
        return 2
    levels = result.pop("_levels")
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{'spec':28} {'level':10} {'clauses':>7} {'testable':>8} {'covered':>7}")
    for spec_id, s in result["specs"].items():
        for lv, row in levels[spec_id].items():
            print(f"{spec_id:28} {lv:10} {row['clauses']:7} {row['testable']:8} {row['covered']:7}")
        print(f"{spec_id:28} {'all':10} {s['clauses']:7} {s['testable']:8} {s['covered']:7}")
        for cid in s["uncovered"]:
            print(f"    uncovered: {cid}")
        for cid in s["partly_covered"]:
            print(f"    partly covered (unjudged_part): {cid}")
    t = result["total"]
    print(f"{'total':28} {'':10} {t['clauses']:7} {t['testable']:8} {t['covered']:7}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
