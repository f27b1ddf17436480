"""The result row as the reports read it: a row's implementation, profile and tally as plain Python,
whatever schema version wrote it. The row itself (fields, types, schema version) is typed once, in
fixtures/verdict/row.py.
"""
from __future__ import annotations

from fixtures.verdict.row import PROFILE_STATUSES, TALLY_COUNTS, TALLY_IDS, role_of


def implementation_of(row: dict) -> dict:
    """A row's implementation as schema 3 and later have it: role set (fixtures/verdict/row.py `role_of`), provenance a dict."""
    impl = dict(row.get("implementation") or {})
    impl["role"] = role_of(impl)
    prov = impl.get("provenance")
    impl["provenance"] = dict(prov) if isinstance(prov, (dict, list)) else {}
    return impl


def profile_of(row: dict) -> dict[str, dict]:
    """A row's profile: requirement id -> {status, evidence}; {} for rows without one. A status outside
    PROFILE_STATUSES reads as `unknown` (nothing a reader can credit)."""
    prof = row.get("profile")
    items = prof.items() if isinstance(prof, dict) else (prof or [])
    out = {}
    for req, entry in items:
        entry = dict(entry or {})
        status = entry.get("status") if entry.get("status") in PROFILE_STATUSES else "unknown"
        out[req] = {"status": status, "evidence": entry.get("evidence") or ""}
    return out


def tally_of(row: dict) -> dict | None:
    """A row's tally as plain Python (an engine hands arrays as lists or tuples, absent ones as None), or
    None for a row without one (every row but a fault vector's, and every row before schema 4)."""
    t = row.get("tally")
    if t is None:
        return None
    t = t.asDict(recursive=True) if hasattr(t, "asDict") else dict(t)
    out = {"fault": t.get("fault")}
    out.update({n: int(t.get(n) or 0) for n in TALLY_COUNTS})
    out.update({n: [str(i) for i in (t.get(n) or [])] for n in TALLY_IDS})
    return out


def witnesses_of(row: dict) -> dict | None:
    """A row's `witnesses` (schema 5: the two-witness rule's record, docs/results.md) as plain Python, or None for
    a row without one (a row no second client ran, and every row before schema 5). As recorded: nothing is
    decided again here (fixtures/links/witnesses.py decides the rule)."""
    w = row.get("witnesses")
    if w is None:
        return None
    w = w.asDict(recursive=True) if hasattr(w, "asDict") else dict(w)
    accounts = []
    for a in w.get("accounts") or []:
        a = a.asDict(recursive=True) if hasattr(a, "asDict") else dict(a)
        accounts.append({"client": a.get("client"), "outcome": a.get("outcome"), "error_kind": a.get("error_kind"),
                         "step": None if a.get("step") is None else int(a["step"]),
                         "clause_ids": [str(c) for c in (a.get("clause_ids") or [])], "saw": a.get("saw") or "",
                         "unseen": [str(u) for u in (a.get("unseen") or [])]})
    return {"rule": w.get("rule"), "why_second": w.get("why_second") or "", "accounts": accounts}
