"""Coverage of a verdict (docs/verdicts.md, "Verdicts"): which testable MUST / MUST NOT clauses of a
spec apply to an implementation, and which of them its latest run judged and held. Plain Python,
used by reports/views/model.py `spec_verdicts` only (the report, the certificate and verify all go there).

The rules it keeps:
  * the clauses counted are the spec's clauses (vectors/clauses/<spec>.yaml) at MUST or MUST NOT
    that are testable (`testable: false` marks the others);
  * a clause does not apply when its `applies_to` (its own, else its document's) does not describe
    the implementation's kind, product and version, or its `party` is not the implementation's
    kind's (a client library is judged on the client's clauses, a broker on the broker's:
    fixtures/verdict/applicability.py), or when every row of the implementation that gives it an
    outcome gives `not_applicable`;
  * an applying clause is judged and held when its outcomes in the latest run (clause_outcomes;
    a schema 1 row gives each clause the row's outcome) are pass or xpass, besides not_applicable,
    and the registry names no part of it that no vector judges (`unjudged_part`);
  * an applying clause with no outcome at all in the run is not judged; so is one with an `error`
    outcome, or only `unsupported` ones; a clause with fail or xfail was judged and did not hold.
Without the spec's clause file nothing can be shown covered: the coverage is `unknown` and the
verdict cannot be conformant.
"""
from __future__ import annotations

from fixtures.verdict.applicability import party_excludes, why_not
from fixtures.verdict.levels import group_of
from fixtures.verdict.row import role_of

from ..rows.outcomes import MUST_HELD

HELD = frozenset({"pass", "xpass"})
BROKEN = frozenset({"fail", "xfail"})


def identity(impl: dict | None) -> dict:
    """What applicability and the report need of an implementation (a row's `implementation`):
    name, kind, role, product, version, and for a provider the broker and protocol it ran over.
    A broker's product is what it said of itself, else the catalog's; a codec's or provider's is its name."""
    impl = dict(impl or {})
    prov = impl.get("provenance") or {}
    prov = dict(prov) if isinstance(prov, (dict, list)) else {}
    kind = impl.get("kind")
    if kind == "broker":
        product = (prov.get("server_product") or prov.get("product") or "").lower() or None
    else:
        product = prov.get("product") or impl.get("name")
    return {"name": impl.get("name"), "kind": kind, "role": role_of(impl), "product": product,
            "version": impl.get("version"), "broker": prov.get("broker"), "protocol": prov.get("protocol")}


def excluded(applies_to, ident: dict) -> bool:
    """Does `applies_to` leave this implementation out (fixtures/verdict/applicability.py)? A product or version
    the rows do not name (a broker that never started has no provenance) cannot leave it out: then only
    the kind can."""
    if not applies_to:
        return False
    if ident.get("product") is None or ident.get("version") is None:
        return not any(a.kind is None or a.kind == ident.get("kind") for a in applies_to)
    return why_not(applies_to, ident["product"], ident["version"], ident.get("kind")) is not None


def coverage(spec: str, ident: dict, clause_counts: dict[str, dict[str, int]], clauses: dict[str, dict]) -> dict:
    """The coverage of one implementation on one spec.

    `clause_counts`: clause id -> outcome counts of that clause in the implementation's latest run
    (the report's matrix cells); `clauses`: reports/views/clauses.py `load`.
    Returns {status: known | unknown, testable (MUST clauses of the spec, testable), applying,
    judged_and_held, failed: [ids], not_judged: [{clause_id, why}], not_applicable: [ids]}.
    """
    mine = {cid: c for cid, c in clauses.items() if c.get("spec") == spec}
    if not mine:
        return {"status": "unknown", "testable": None, "applying": None, "judged_and_held": None, "failed": [],
                "not_judged": [{"clause_id": None, "why": f"no clause file for {spec}: the clauses it must judge "
                                                        "are not known"}], "not_applicable": []}
    testable = {cid: c for cid, c in sorted(mine.items())
                if c.get("testable", True) and group_of(c.get("level") or "MUST") == "MUST"}
    held, failed, not_judged, na = [], [], [], []
    for cid, c in testable.items():
        if excluded(c.get("applies_to") or (), ident) or party_excludes(c.get("parties") or (), ident.get("kind")):
            na.append(cid)
            continue
        counts = {o: n for o, n in (clause_counts.get(cid) or {}).items() if n}
        judged = {o for o in counts if o != "not_applicable"}
        if counts and not judged:
            na.append(cid)                      # every row citing it for this implementation: not_applicable
        elif judged & BROKEN:
            failed.append(cid)
        elif not counts:
            not_judged.append({"clause_id": cid, "why": "no row judged it"})
        elif "error" in judged:
            not_judged.append({"clause_id": cid, "why": "a row that cites it could not be judged (error)"})
        elif not judged & HELD:
            not_judged.append({"clause_id": cid, "why": "no row reached a check of it"})
        elif c.get("unjudged_part"):
            not_judged.append({"clause_id": cid, "why": "only part of it is judged; no vector judges: "
                                                      + " ".join(str(c["unjudged_part"]).split())})
        else:
            held.append(cid)
    return {"status": "known", "testable": len(testable), "applying": len(testable) - len(na),
            "judged_and_held": len(held), "failed": failed, "not_judged": not_judged, "not_applicable": na}


def limit(verdict: str, cov: dict | None) -> str:
    """The verdict the rows give, lowered to `incomplete` when a testable MUST clause that applies was
    not judged and held: conformant (except SHOULD or not) only with full coverage. Where no testable
    MUST clause of the spec applies (the text does not describe this implementation, or every row is
    not_applicable at MUST), passing rows make no conformance: `not-applicable`."""
    if cov is None or verdict not in MUST_HELD:
        return verdict
    if cov["not_judged"]:
        return "incomplete"
    if cov["status"] == "known" and not cov["applying"]:
        return "not-applicable"
    return verdict
