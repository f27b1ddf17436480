"""The Two clients view (reports/views/witnesses.py): in index.html a table, one line per row the second AMQP 1.0
client ran again, each client's account side by side, disagreements first and marked, the vector linking to the
drill-down of its first clause in the matrix (the row's evidence); in summary.md the count line and the
disagreements only (at most MAX_MD)."""
from __future__ import annotations

from html import escape

from ..views import witnesses
from .markdown import md_cell, shorten

MAX_MD = 3         # disagreements listed in summary.md (under 30 KB on a main run); index.html has every line
MAX_OBSERVED = 70  # characters of an account's observation in summary.md

CSS = """
table.two-clients{font-size:12px}table.two-clients td.acct{min-width:14em}
table.two-clients tr.disagree td{background:#ffebee}table.two-clients tr.disagree td:first-child{border-left:4px solid #c62828}
.o-limit{background:#ffe0b2;color:#555}.rule{font-weight:600;white-space:nowrap}
.r-disagree{color:#c62828}.r-both-saw{color:#2e7d32}.r-second-limit,.r-second-absent{color:#8d6e00}
.client{font-weight:600}.unseen{font-size:11px;color:#777}
"""


def _e(value) -> str:
    return escape("" if value is None else str(value), quote=True)


def evidence_anchor(line: dict, ids: dict) -> str | None:
    """The id of the drill-down of the line's first clause that the matrix has (its evidence), or None."""
    for cid in line["clause_ids"]:
        at = ids.get((line["spec"], line["spec_revision"], cid))
        if at:
            return at
    return None


def _account(a: dict) -> str:
    what = witnesses.observed(a)
    outcome = a.get("outcome") or "?"
    rest = what[len(outcome):] if what.startswith(outcome) else f" {what}"
    unseen = "".join(f'<div class="unseen">could not see {_e(u)}</div>' for u in a.get("unseen") or [])
    return (f'<td class="acct" data-client="{_e(witnesses.client_name(a.get("client")))}" data-outcome="{_e(outcome)}">'
            f'<div class="client">{_e(a.get("client"))}</div><span class="c o-{_e(outcome)} tag">{_e(outcome)}</span>'
            f"{_e(rest)}{unseen}</td>")


def html(view: dict | None, ids: dict) -> str:
    """The section's body: the intro and the counts, then the lines (open when the clients disagree on one)."""
    view = view or witnesses.view([])
    intro = f"<p class=muted>{_e(witnesses.INTRO)}</p>"
    if not view["lines"]:
        return intro + f"<p class=muted>{_e(witnesses.EMPTY)}</p>"
    legend = "".join(f'<li><span class="rule r-{_e(r)}">{_e(r)}</span>: {_e(t)}</li>' for r, t in witnesses.RULE_TEXT.items())
    width = max(len(ln["accounts"]) for ln in view["lines"])
    heads = "".join(f"<th>{'First' if k == 0 else 'Second' if k == 1 else f'Client {k + 1}'} client</th>"
                    for k in range(width))
    out = [intro, f'<p id="two-clients-count"><b>{_e(witnesses.count_text(view))}</b></p><ul class="muted">{legend}</ul>',
           f'<details class="section"{" open" if view["disagreements"] else ""}><summary>{len(view["lines"])} row(s): '
           f"the rule, and what each client saw</summary>"
           f'<table id="two-clients-table" class="two-clients"><tr><th>Implementation</th><th>Vector</th><th>Rule</th>'
           f"{heads}</tr>"]
    for ln in view["lines"]:
        at = evidence_anchor(ln, ids)
        vector = f"<code>{_e(ln['vector_id'])}</code>"
        if at:
            vector = f'<a href="#{_e(at)}">{vector}</a>'
        mark = ' <b class="r-disagree">⚠</b>' if ln["disagree"] else ""
        accounts = "".join(_account(a) for a in ln["accounts"])
        accounts += "<td></td>" * (width - len(ln["accounts"]))
        out.append(f'<tr class="witness{" disagree" if ln["disagree"] else ""}" data-rule="{_e(ln["rule"])}" '
                   f'data-implementation="{_e(ln["implementation"])}" data-vector="{_e(ln["vector_id"])}">'
                   f'<td>{_e(ln["implementation"])}</td><td>{vector}<div class="muted">the row: {_e(ln["outcome"])}</div></td>'
                   f'<td><span class="rule r-{_e(ln["rule"])}" title="{_e(ln["why_second"])}">{_e(ln["rule"])}</span>{mark}</td>'
                   f"{accounts}</tr>")
    out.append("</table></details>")
    return "".join(out)


def markdown(view: dict | None) -> list[str]:
    """## Two clients: the count line, and the disagreements (at most MAX_MD), each with both clients' accounts."""
    view = view or witnesses.view([])
    if not view["lines"]:
        return []
    lines = ["", "## Two clients", "", f"{md_cell(witnesses.count_text(view))}; each row with both clients' "
             "accounts in index.html (Two clients)."]
    disagree = [ln for ln in view["lines"] if ln["disagree"]]
    if disagree:
        lines.append("")
    for ln in disagree[:MAX_MD]:
        said = "; ".join(f"{md_cell(a.get('client'))}: {md_cell(shorten(witnesses.observed(a), MAX_OBSERVED))}"
                         for a in ln["accounts"])
        lines.append(f"- ⚠ {md_cell(ln['implementation'])}: {md_cell(ln['vector_id'])} — {said}")
    if len(disagree) > MAX_MD:
        lines.append(f"- … and {len(disagree) - MAX_MD} more in index.html")
    return lines
