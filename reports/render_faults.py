"""The Faults view (reports/faults.py) in summary.md and in index.html: per broker, one table line per
fault row."""
from __future__ import annotations

from html import escape

from . import faults
from .markdown import code_cell, md_cell, shorten

MAX_MESSAGE = 200   # characters of a row's message in summary.md; index.html has it whole


def markdown(view: list[dict]) -> list[str]:
    """## Faults: a table per broker."""
    lines = ["", "## Faults", "", faults.INTRO, ""]
    if not view:
        return lines + [faults.empty_text(lambda t: f"`{t}`")]
    for b in view:
        lines += [f"### {md_cell(b['broker'])}", "",
                  "| Implementation | Protocol | Semantics / fault | Sent | Confirmed | Delivered | Lost | Duplicated "
                  "| Outcome | Lost ids | Duplicated ids |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for ln in b["lines"]:
            why = shorten(ln["message"], MAX_MESSAGE) if ln["outcome"] != "pass" else ""
            lines.append(
                f"| {md_cell(ln['implementation'])}{' (stand-in)' if ln['role'] == 'reference' else ''} | "
                f"{md_cell(ln['protocol'] or '—')} | {md_cell(faults.label(ln))} | {ln['sent']} | {ln['confirmed']} | "
                f"{ln['delivered']} | {ln['lost']} | {ln['duplicated']} | **{md_cell(ln['outcome'])}** "
                f"{code_cell(ln['test_id'])}{': ' + md_cell(why) if why else ''} | "
                f"{md_cell(faults.ids_text(ln['lost_ids'], ln['lost_ids_more'])) or '—'} | "
                f"{md_cell(faults.ids_text(ln['duplicated_ids'], ln['duplicated_ids_more'])) or '—'} |")
        lines.append("")
    return lines


def _e(value) -> str:
    return escape("" if value is None else str(value), quote=True)


def html(view: list[dict]) -> str:
    """The section's body: the intro, then a table per broker (or the sentence saying there was none)."""
    intro = (f"<p class=muted>{_e(faults.INTRO)} "
             '<a href="#broker-profiles">OpenMessaging broker profile</a>.</p>')
    if not view:
        return intro + f"<p class=muted>{faults.empty_text(lambda t: f'<code>{_e(t)}</code>')}</p>"
    out = [intro]
    for b in view:
        out.append(f'<h3 class="faults" data-broker="{_e(b["broker"])}">{_e(b["broker"])}</h3>'
                   "<table class=faults><tr><th>Implementation</th><th>Protocol</th><th>Semantics / fault</th>"
                   "<th>Sent</th><th>Confirmed</th><th>Delivered</th><th>Lost</th><th>Duplicated</th>"
                   "<th>Outcome</th><th>Lost ids</th><th>Duplicated ids</th></tr>")
        for ln in b["lines"]:
            stand_in = ' <span class=muted>(stand-in: mqconform’s mapping)</span>' if ln["role"] == "reference" else ""
            msg = f'<div class="msg">{_e(ln["message"])}</div>' if ln["message"].strip() else ""
            out.append(
                f'<tr class="fault" data-vector="{_e(ln["vector_id"])}" data-implementation="{_e(ln["implementation"])}" '
                f'data-lost="{ln["lost"]}" data-duplicated="{ln["duplicated"]}">'
                f'<td>{_e(ln["implementation"])}{stand_in}</td><td>{_e(ln["protocol"] or "—")}</td>'
                f'<td>{_e(faults.label(ln))}</td><td>{ln["sent"]}</td><td>{ln["confirmed"]}</td>'
                f'<td>{ln["delivered"]}</td><td>{ln["lost"]}</td><td>{ln["duplicated"]}</td>'
                f'<td class="o-{_e(ln["outcome"])}"><b>{_e(ln["outcome"])}</b>'
                f'<details class="row"><summary><code class="tid">{_e(ln["test_id"])}</code></summary>{msg}</details></td>'
                f'<td>{_e(faults.ids_text(ln["lost_ids"], ln["lost_ids_more"])) or "—"}</td>'
                f'<td>{_e(faults.ids_text(ln["duplicated_ids"], ln["duplicated_ids_more"])) or "—"}</td></tr>')
        out.append("</table>")
    return "".join(out)
