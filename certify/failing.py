"""What failed on a certificate, per spec revision: the clauses, each with its sentence and the rows
that decided it, and apart from them the rows the suite could not judge.

The rules it keeps:
- a clause failed when a row gives it `fail` (its `clause_outcomes`; a schema 1 row, which has none,
  fails every clause it cites: reports/gate.py `blamed`), never because a row citing it failed
  another clause;
- a clause's sentence is the clause file's quote (vectors/clauses, reports/clauses.py), verbatim;
- an `error` row judged nothing: it is listed with the clauses it would have judged, never as a
  failed clause (it makes a verdict incomplete: docs/verdicts.md);
- a reason is the row's message on one line, never cut inside a word (reports/render_md.py `shorten`).
"""
from __future__ import annotations

from fixtures.levels import LEVEL_RANK
from reports.gate import blamed
from reports.render_md import md_cell, shorten

REASON_LIMIT = 400   # characters of a row's message on the certificate; results.jsonl has all of it


def _where(r: dict) -> str:
    step = r.get("failed_step") or {}
    if not step.get("index"):
        return ""
    return f"step {step['index']}" + (f" ({step['action']})" if step.get("action") else "")


def _row_ref(r: dict) -> dict:
    return {"vector_id": r["vector_id"], "test_id": r.get("test_id"), "step": _where(r),
            "reason": shorten(r.get("message"), REASON_LIMIT)}


def of(rows: list[dict], clauses: dict) -> dict:
    """{(spec, revision): {"failed_clauses": [...], "errors": [...]}} for the rows' spec revisions.

    failed_clauses: [{clause_id, level, quote, rows: [{vector_id, test_id, step, reason}]}], strongest level
    first; errors: [{vector_id, test_id, error_kind, clause_ids, reason}], by vector id."""
    out: dict[tuple, dict] = {}
    judged_against = [r for r in rows if r["outcome"] in ("error", "fail", "xfail")]
    for r in sorted(judged_against, key=lambda r: (r["vector_id"], r.get("test_id") or "")):
        got = out.setdefault((r["spec"], r.get("spec_revision") or ""), {"failed": {}, "errors": []})
        if r["outcome"] == "error":
            got["errors"].append({"vector_id": r["vector_id"], "test_id": r.get("test_id"),
                                  "error_kind": r.get("error_kind"), "clause_ids": list(r.get("clause_ids") or []),
                                  "reason": shorten(r.get("message"), REASON_LIMIT)})
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


def lines(spec: dict) -> list[str]:
    """CERTIFICATE.md's lines for one spec revision's failed clauses and errors (none when nothing failed)."""
    out = []
    for f in spec.get("failed_clauses") or []:
        out.append(f"- **{md_cell(f['level'] or 'level not known')}** `{f['clause_id']}`")
        out.append(f"  > {md_cell(f['quote']) or '(no sentence: the clause is not in this checkout’s clause files)'}")
        for r in f["rows"]:
            where = f", {r['step']}" if r["step"] else ""
            out.append(f"  - decided by `{r['vector_id']}`{md_cell(where)} (`{r['test_id']}`): {md_cell(r['reason'])}")
    errors = spec.get("errors") or []
    if errors:
        out += ["", f"Not judged ({len(errors)} error row(s): the suite could not judge them; not failures):", ""]
        for e in errors:
            cites = ", ".join(e["clause_ids"]) or "no clause"
            out.append(f"- `{e['vector_id']}` ({md_cell(e['error_kind'] or 'error')}; would judge {md_cell(cites)}): "
                       f"{md_cell(e['reason'])}")
    return out
