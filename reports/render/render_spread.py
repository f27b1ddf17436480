"""The views of reports/views/spread.py in summary.md and in index.html: the clauses that fail in exactly one
implementation, and those that fail in every implementation that judged them."""
from __future__ import annotations

from html import escape

from ..views import spread
from .markdown import decided_by, md_cell, shorten

MAX_LINES = 10        # per view in summary.md; index.html has every line
MAX_MESSAGE = 120     # characters of a failing row's message in summary.md
MAX_OTHERS = 160      # characters of "the others" in summary.md
# summary.md names the first failing row of each implementation and how many more it has; index.html every one

TITLES = {"fails_in_one": "Fails in one implementation only",
          "fails_in_all": "Fails in every implementation that judged it"}
INTROS = {"fails_in_one": spread.INTRO_ONE, "fails_in_all": spread.INTRO_ALL}


def _why(v: dict) -> str:
    """A failing row in words: its clause outcome, the step that decided it, its message."""

    how = decided_by(v)
    return f"{v['clause_outcome']}" + (f" ({how})" if how else "")


def _others(entry: dict) -> list[str]:
    """What the other implementations did: held, not judged (their worst outcome), not counted."""
    parts = []
    if entry["held"]:
        parts.append("held by " + ", ".join(entry["held"]))
    if entry["not_judged"]:
        parts.append("not judged by " + ", ".join(f"{x['implementation']} ({x['outcome']})" for x in entry["not_judged"]))
    if entry["not_counted"]:
        parts.append("not counted: " + ", ".join(f"{x['implementation']} {x['outcome']} ({x['why']})"
                                                 for x in entry["not_counted"]))
    return parts


def markdown(view: dict) -> list[str]:
    """## Fails in one implementation only, ## Fails in every implementation that judged it."""

    lines = []
    for key in ("fails_in_one", "fails_in_all"):
        entries = view.get(key) or []
        lines += ["", f"## {TITLES[key]} ({len(entries)})", "", f"{INTROS[key]} {spread.RULES}", ""]
        if not entries:
            lines.append("None.")
            continue
        lines += ["| Clause | Failing rows | The others |", "|---|---|---|"]
        for e in entries[:MAX_LINES]:
            failing = "; ".join(
                f"**{md_cell(f['implementation'])}**: "
                # the test id is in index.html: summary.md stays a CI page's size
                + ", ".join(f"{md_cell(v['vector_id'])} {md_cell(_why(v))}"
                            + (f": {md_cell(shorten(v['message'], MAX_MESSAGE))}" if v["message"] else "")
                            for v in f["vectors"][:1])
                + (f" (+{len(f['vectors']) - 1} more row(s))" if len(f["vectors"]) > 1 else "")
                for f in e["failing"])
            lines.append(f"| {md_cell(e['clause_id'])} ({md_cell(e['level'] or '—')}), {md_cell(e['spec'])} "
                         f"{md_cell(e['spec_revision'] or '')} | {failing} | {md_cell(shorten('; '.join(_others(e)), MAX_OTHERS)) or '—'} |")
        if len(entries) > MAX_LINES:
            lines.append(f"\n… and {len(entries) - MAX_LINES} more in index.html")
    return lines


def _e(value) -> str:
    return escape("" if value is None else str(value), quote=True)


def html(view: dict, key: str) -> str:
    """One view's section body: its intro and rules, then a table of its clauses (or a sentence saying none)."""
    entries = view.get(key) or []
    out = [f"<p class=muted>{_e(INTROS[key])} {_e(spread.RULES)}</p>"]
    if not entries:
        return out[0] + "<p class=muted>None.</p>"
    out.append(f'<table class="spread" data-view="{_e(key)}"><tr><th>Clause</th><th>Level</th>'
               "<th>Failing rows</th><th>The others</th></tr>")
    for e in entries:
        failing = "".join(
            f'<div class="failing" data-implementation="{_e(f["implementation"])}"><b>{_e(f["implementation"])}</b>'
            + "".join(f'<details class="row"><summary><code>{_e(v["vector_id"])}</code> '
                      f'<span class="o-{_e(v["clause_outcome"])}">{_e(_why(v))}</span></summary>'
                      f'<code class="tid">{_e(v["test_id"])}</code>'
                      + (f'<div class="msg">{_e(v["message"])}</div>' if v["message"].strip() else "")
                      + "</details>" for v in f["vectors"])
            + "</div>" for f in e["failing"])
        quote = f"<blockquote>{_e(e['quote'])}</blockquote>" if e.get("quote") else ""
        out.append(f'<tr data-clause="{_e(e["clause_id"])}"><td><code>{_e(e["clause_id"])}</code> '
                   f'<span class=muted>{_e(e["spec"])} {_e(e["spec_revision"])}</span>{quote}</td>'
                   f'<td>{_e(e["level"] or "—")}</td><td>{failing}</td>'
                   f'<td>{"<br>".join(_e(p) for p in _others(e)) or "—"}</td></tr>')
    out.append("</table>")
    return "".join(out)


def sections(view: dict) -> str:
    """Both views as index.html sections (ids fails-in-one, fails-in-all)."""
    return "".join(f'<section id="{k.replace("_", "-")}"><h2>{TITLES[k]}</h2>{html(view, k)}</section>'
                   for k in TITLES)
