"""The Faults view (reports/views/faults.py) in index.html: per broker (id `faults-BROKER`, the anchor Compare
brokers links to), one table line per fault row. summary.md has the faults only in Compare brokers."""
from __future__ import annotations

from html import escape

from ..views import faults
from ..views.compare_brokers import anchor


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
        out.append(f'<h3 class="faults" id="{_e(anchor("faults", b["broker"]))}" data-broker="{_e(b["broker"])}">'
                   f'{_e(b["broker"])}</h3>'
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
