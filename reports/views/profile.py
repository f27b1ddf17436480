"""The OpenMessaging broker profile (docs/verdicts.md, "Broker profile"): per broker, per requirement
of vectors/openmessaging/profile.yaml, what the broker did over each protocol. Plain Python.

A broker's profile is made of the `profile` of every provider row whose `provenance.broker` is that
broker: reference providers (mqconform-om/P@T) and product providers alike, every protocol, except
what a product provider's row saw absent: the product's own code stands between it and the broker,
unseen by mqconform (a field it does not map, a queue it round-robins), so its absence is the
provider's (its verdict says so), never the broker's; only a reference row, whose every value's
setter is recorded, shows a broker's absence. Per
(broker, requirement, protocol) the statuses of the latest rows combine: `native` if any row observed
the broker doing it, else `emulated` (the provider did it), else `partial`, else `absent`, else `unknown`;
but where one row observed it done and another observed it not done (a delivery guarantee kept when a
consumer died and broken under a restart: profile.yaml `under_faults`), `partial`, both pieces of
evidence shown. The evidence shown is that of a row with the deciding status (the first by
implementation, then vector id).
A broker has no OpenMessaging verdict; this profile is what the report says of it.
"""
from __future__ import annotations

import sys
from pathlib import Path

import yaml

from fixtures.vectordata import yamlsource
from fixtures.verdict.row import PROFILE_STATUSES

from ..paths import ROOT

DEFAULT_FILE = ROOT / "vectors" / "openmessaging" / "profile.yaml"
RANK = {s: i for i, s in enumerate(PROFILE_STATUSES)}   # native 0 ... unknown 3: lower decides


def load_requirements(path: str | Path | None = None) -> list[dict]:
    """The profile's requirements in file order: {id, title, quote, party}. A missing file gives [] (the
    report then names requirements by id); a broken one is skipped with a warning, as clause files are."""
    path = Path(path) if path else DEFAULT_FILE
    if not path.is_file():
        return []
    try:
        doc = yamlsource.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        print(f"reports: skipping profile requirements {path}: {exc}", file=sys.stderr)
        return []
    entries = doc.get("requirements") if isinstance(doc, dict) else doc
    out = []
    for e in entries or []:
        if isinstance(e, dict) and isinstance(e.get("id"), str):
            out.append({"id": e["id"], "title": e.get("title") or e["id"],
                        "quote": " ".join(str(e.get("quote") or "").split()) or None, "party": e.get("party")})
    return out


def combine(candidates: list[dict]) -> dict:
    """One (broker, requirement, protocol): the deciding status and its evidence, from rows of
    profile_rows (each a status with the evidence of one row, and how many rows gave it)."""
    if not candidates:
        return {"status": "unknown", "evidence": "", "implementation": None, "vector_id": None, "rows": {}}
    def first(cs):
        return min(cs, key=lambda c: (RANK.get(c["status"], RANK["unknown"]), c.get("impl") or "", c.get("vector_id") or ""))
    best = first(candidates)
    rows: dict[str, int] = {}
    for c in candidates:
        rows[c["status"]] = rows.get(c["status"], 0) + c.get("n", 1)
    status, evidence = best["status"], best.get("evidence") or ""
    broken = [c for c in candidates if c["status"] in ("partial", "absent")]
    if status in ("native", "emulated") and broken:
        # Done in one row, seen not done in another (a guarantee kept on a consumer's death, broken
        # under a restart): partial, with both pieces of evidence, never the better of the two.
        worst = first(broken)
        status, evidence = "partial", f"{evidence}; but {worst.get('evidence') or worst['status']}"
    return {"status": status if status in RANK else "unknown", "evidence": evidence,
            "implementation": best.get("impl"), "role": best.get("role"), "vector_id": best.get("vector_id"),
            "rows": {s: rows[s] for s in PROFILE_STATUSES if s in rows}}


def broker_profiles(profile_rows: list[dict], requirements: list[dict] | None = None) -> list[dict]:
    """Per broker: its protocols and one line per requirement: {id, title, quote, party, by_protocol:
    protocol -> combine(...)}. Requirements in the profile file's order, then any others the rows name;
    a protocol where no row spoke of a requirement is `unknown` there."""
    requirements = requirements or []
    by_broker: dict[str, dict[tuple, list[dict]]] = {}
    for r in profile_rows:
        if not r.get("broker") or (r.get("role") == "product" and r.get("status") in ("absent", "partial")):
            continue
        by_broker.setdefault(r["broker"], {}).setdefault((r["requirement"], r.get("protocol") or "?"), []).append(r)
    known = {q["id"]: q for q in requirements}
    out = []
    for broker, cells in sorted(by_broker.items()):
        protocols = sorted({p for _, p in cells})
        ids = [q["id"] for q in requirements] + sorted({req for req, _ in cells} - set(known))
        lines = []
        for req in ids:
            q = known.get(req, {"id": req, "title": req, "quote": None, "party": None})
            lines.append({**q, "by_protocol": {p: combine(cells.get((req, p), [])) for p in protocols}})
        out.append({"broker": broker, "protocols": protocols,
                    "providers": sorted({r["impl"] for c in cells.values() for r in c if r.get("impl")}),
                    "requirements": lines})
    return out
