"""What failed on a certificate, per spec revision: the clauses, each with its sentence and the rows
that decided it, and apart from them the rows the suite could not judge.

The rules it keeps:
- a clause failed when a row gives it `fail` (its `clause_outcomes`; a schema 1 row, which has none,
  fails every clause it cites: reports/gate/gate.py `blamed`), never because a row citing it failed
  another clause;
- a clause's sentence is the clause file's quote (vectors/clauses, reports/views/clauses.py), verbatim;
- an `error` row judged nothing: it is listed with the clauses it would have judged, never as a
  failed clause (it makes a verdict incomplete: docs/verdicts.md);
- a reason is the row's message on one line, split into what the vector checks and what was found,
  never cut inside a word (reports/render/markdown.py `shorten`).
"""
from __future__ import annotations

from fixtures.verdict.levels import LEVEL_RANK
from reports.gate.gate import blamed
from reports.render.markdown import md_cell, shorten

REASON_LIMIT = 400   # characters of a row's message on the certificate; results.jsonl has all of it


def _where(r: dict) -> str:
    step = r.get("failed_step") or {}
    if not step.get("index"):
        return ""
    return f"step {step['index']}" + (f": {step['action']}" if step.get("action") else "")


def split_message(r: dict) -> tuple[str, str]:
    """(what the vector checks, what was found) from a row's message. A vector's message is its
    `vector_id: description` line, a `clause (LEVEL): "quote"` line per clause it cites, then what the
    failed step found (docs/results.md `message`); the quote is shown with its clause, so it is left
    out here. A message of another shape is all "found"."""
    lines = [ln.strip() for ln in (r.get("message") or "").splitlines() if ln.strip()]
    checks = ""
    if lines and lines[0].startswith(f"{r['vector_id']}: "):
        checks = lines.pop(0).removeprefix(f"{r['vector_id']}: ")
    cited = tuple(f"{c} (" for c in r.get("clause_ids") or [])
    found = [ln for ln in lines if not (cited and ln.startswith(cited))]
    return shorten(checks, REASON_LIMIT), shorten(" ".join(found), REASON_LIMIT)


def _row_ref(r: dict) -> dict:
    checks, found = split_message(r)
    return {"vector_id": r["vector_id"], "test_id": r.get("test_id"), "step": _where(r), "checks": checks,
            "found": found}


def of(rows: list[dict], clauses: dict) -> dict:
    """{(spec, revision): {"failed_clauses": [...], "errors": [...]}} for the rows' spec revisions.

    failed_clauses: [{clause_id, level, quote, rows: [{vector_id, test_id, step, checks, found}]}], strongest
    level first; errors: [{vector_id, test_id, step, checks, found, error_kind, clause_ids}], by vector id."""
    out: dict[tuple, dict] = {}
    judged_against = [r for r in rows if r["outcome"] in ("error", "fail", "xfail")]
    for r in sorted(judged_against, key=lambda r: (r["vector_id"], r.get("test_id") or "")):
        got = out.setdefault((r["spec"], r.get("spec_revision") or ""), {"failed": {}, "errors": []})
        if r["outcome"] == "error":
            got["errors"].append({**_row_ref(r), "error_kind": r.get("error_kind"),
                                  "clause_ids": list(r.get("clause_ids") or [])})
        elif r["outcome"] in ("fail", "xfail"):
            for cid in blamed(r):
                got["failed"].setdefault(cid, []).append(_row_ref(r))
    result = {}
    for key, got in out.items():
        failed = []
        for cid, refs in got["failed"].items():
            c = clauses.get(cid) or {}
            level = c.get("level") or next((r.get("level") for r in rows if cid in (r.get("clause_ids") or [])), None)
            failed.append({"clause_id": cid, "level": level, "quote": " ".join(str(c.get("quote") or "").split()),
                           "rows": refs})
        failed.sort(key=lambda f: (LEVEL_RANK.get(f["level"], -1), f["clause_id"]))
        result[key] = {"failed_clauses": failed, "errors": got["errors"]}
    return result


def _row_line(r: dict, note: str = "") -> str:
    """`vector` (step n; note): checks: ...; found: ... (the test id is in certificate.json and junit.xml)."""
    where = "; ".join(x for x in (md_cell(r["step"]), note) if x)
    where = f" ({where})" if where else ""
    said = "; ".join(x for x in ((f"checks: {md_cell(r['checks'])}" if r["checks"] else ""),
                                 (f"found: {md_cell(r['found'])}" if r["found"] else "")) if x)
    return f"`{r['vector_id']}`{where}" + (f": {said}" if said else "")


def lines(spec: dict) -> list[str]:
    """CERTIFICATE.md's lines for one spec revision's failed clauses and errors (none when nothing failed)."""
    out = []
    for f in spec.get("failed_clauses") or []:
        out.append(f"- **{md_cell(f['level'] or 'level not known')}** `{f['clause_id']}`")
        out.append(f"  > {md_cell(f['quote']) or '(no sentence: the clause is not in this checkout’s clause files)'}")
        for r in f["rows"]:
            out.append(f"  - decided by {_row_line(r)}")
    errors = spec.get("errors") or []
    if errors:
        out += ["", f"Not judged ({len(errors)} error row(s): the suite could not judge them; not failures):", ""]
        for e in errors:
            cites = ", ".join(e["clause_ids"]) or "no clause"
            kind = e["error_kind"] or "unknown"
            out.append(f"- {_row_line(e, md_cell(f'{kind} error; would judge {cites}'))}")
    return out
