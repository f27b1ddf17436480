"""How a failure spreads over implementations (docs/reports.md, "Fails in one, fails in all"): the clauses
that fail in exactly one implementation (most likely a bug in that implementation) and those that fail in
every implementation that judged them (most likely a problem of the spec's text or of mqconform's vector).
Plain Python over the rows both engines hand over (reports/engine/aggregate.py `clause_failures`,
reports/baseline/baseline_duckdb.py): per clause that some row fails, every implementation's outcome counts of it.

The rules:
- the unit is a clause of a spec revision (spec, spec_revision, clause_id), over the latest run of each
  implementation (the matrix's runs); an implementation is an implementation name, as everywhere in the
  report (two versions of a product are two implementations);
- an implementation's outcome on the clause is the clause's own outcome in each of its rows (the row's
  clause_outcomes; a schema 1 row gives each of its clauses the row's outcome), as in the matrix:
    fails     some row gives fail or xfail (a known deviation is a failure all the same, and an edit of
              the expectations files must not move a clause in or out of a view);
    held      no fail, xfail or error, and some row gives pass or xpass (reports/views/coverage_rule.py's
              judged and held, without the registry's unjudged parts);
    not judged otherwise: error (it may hide a failure), unsupported or not_applicable only;
  the implementations that judged the clause are those that fail it or held it;
- only implementations with a verdict of their own on the spec count (reports/views/model.py `covers`):
  reference implementations (mqconform's reference codecs and OpenMessaging mappings) and a broker's rows
  on OpenMessaging (which judge mqconform's mapping over it) are listed beside the counted ones with
  their outcome, never counted: their failure is mqconform's, not an implementation's;
- fails in one: exactly one counted implementation fails the clause and at least one other counted one
  held it; fails in all: every counted implementation that judged it fails it, and they are at least two.
  A clause judged by one counted implementation only is in neither view: there is nothing to compare.
"""
from __future__ import annotations

from fixtures.verdict.levels import LEVEL_RANK

from ..rows.outcomes import SEVERITY
from .coverage_rule import BROKEN, HELD

MIN_JUDGES = 2   # counted implementations that judged a clause before either view shows it

INTRO_ONE = ("Clauses that exactly one implementation fails (fail or xfail) while at least one other held "
             "them (pass or xpass, no error): most likely a bug in that implementation.")
INTRO_ALL = ("Clauses that every implementation that judged them fails, two or more having judged: most "
             "likely a problem of the spec's text or of mqconform's vector.")
RULES = ("Over each implementation's latest run, per spec revision, by the clause's own outcome in each row. "
         "An error, unsupported or not_applicable outcome alone does not judge a clause. Only implementations "
         "with a verdict of their own count; reference implementations (mqconform's own code standing in) "
         "are shown beside them, not counted.")


def status(counts: dict[str, int]) -> str:
    """`fails`, `held` or `not judged`: an implementation's outcome on a clause, from its outcome counts."""
    seen = {o for o, n in counts.items() if n}
    if seen & BROKEN:
        return "fails"
    if "error" not in seen and seen & HELD:
        return "held"
    return "not judged"


def _worst(counts: dict[str, int]) -> str | None:
    seen = [o for o, n in counts.items() if n]
    return max(seen, key=lambda o: SEVERITY[o]) if seen else None


NOT_COUNTED = {"reference": "reference: mqconform's own code standing in",
               None: "no verdict of its own on this spec"}


def _not_counted(row: dict, spec: str, covers) -> str | None:
    """Why an implementation is not counted on a spec (NOT_COUNTED), or None when it is."""
    what = covers({"kind": row.get("kind"), "role": row.get("role")}, spec)
    return NOT_COUNTED.get(what) if what in NOT_COUNTED else None


def _vector(v: dict) -> dict:
    return {"vector_id": v.get("vector_id"), "test_id": v.get("test_id"), "clause_outcome": v.get("clause_outcome"),
            "outcome": v.get("outcome"), "expected_outcome": v.get("expected_outcome"),
            "failed_step": v.get("failed_step"), "error_kind": v.get("error_kind"), "message": v.get("message") or ""}


def views(rows: list[dict], clauses: dict, covers) -> dict:
    """{"fails_in_one": [...], "fails_in_all": [...]}, each entry one clause (by spec, revision, clause id):
    spec, spec_revision, clause_id, level, quote, failing (implementation, kind, outcome, vectors: the rows
    that fail it), held, not_judged (implementation, outcome: its worst), not_counted (implementation, why,
    status, outcome). `covers` is reports/views/model.py `covers`."""
    by_clause: dict[tuple, list[dict]] = {}
    for r in rows:
        by_clause.setdefault((r["spec"], r["spec_revision"], r["clause_id"]), []).append(r)
    out = {"fails_in_one": [], "fails_in_all": []}
    for key in sorted(by_clause, key=lambda k: tuple(x or "" for x in k)):
        spec, revision, clause_id = key
        failing, held, not_judged, not_counted = [], [], [], []
        levels: set[str] = set()
        for r in sorted(by_clause[key], key=lambda r: r["impl"]):
            counts = {o: int(n) for o, n in (r.get("counts") or {}).items() if n}
            levels |= {lv for lv in r.get("levels") or () if lv}
            st = status(counts)
            why = _not_counted(r, spec, covers)
            if why:
                not_counted.append({"implementation": r["impl"], "why": why, "status": st,
                                    "outcome": _worst(counts)})
            elif st == "fails":
                failing.append({"implementation": r["impl"], "kind": r.get("kind"),
                                "outcome": max(BROKEN & set(counts), key=lambda o: SEVERITY[o]),
                                "vectors": sorted((_vector(v) for v in r.get("vectors") or ()),
                                                  key=lambda v: (v["vector_id"] or "", v["test_id"] or ""))})
            elif st == "held":
                held.append(r["impl"])
            else:
                not_judged.append({"implementation": r["impl"], "outcome": _worst(counts)})
        judges = len(failing) + len(held)
        if not failing or judges < MIN_JUDGES:
            continue
        clause = clauses.get(clause_id) or {}
        level = clause.get("level") or (min(levels, key=lambda lv: LEVEL_RANK.get(lv, 99)) if levels else None)
        entry = {"spec": spec, "spec_revision": revision, "clause_id": clause_id, "level": level,
                 "quote": clause.get("quote"), "failing": failing, "held": held, "not_judged": not_judged,
                 "not_counted": not_counted}
        if len(failing) == 1 and held:
            out["fails_in_one"].append(entry)
        elif not held:
            out["fails_in_all"].append(entry)
    return out
