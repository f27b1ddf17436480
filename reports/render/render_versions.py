"""Across versions (reports/views/versions.py) in index.html: per product, a <details> (id `across-PRODUCT`, the
anchor Compare brokers links to) with the vectors whose outcome differs between its versions."""
from __future__ import annotations

from html import escape

from ..views.compare_brokers import anchor
from . import render_compare


def _e(value) -> str:
    return escape("" if value is None else str(value), quote=True)


EVIDENCE_LINE = 320   # characters of a cell's evidence shown; the whole row opens below it


def _short(text: str | None) -> str:
    text = text or ""
    return text if len(text) <= EVIDENCE_LINE else text[:EVIDENCE_LINE - 1] + "…"


def _version_cell(cell: dict | None, column: str) -> str:
    """One column of a product's vector: the clause's outcome and the evidence in a line; the row (its test id)
    opens to its whole message, notes and deciding step."""
    if cell is None:
        return f'<td class="muted" data-column="{_e(column)}" title="not run">not run</td>'
    mine, row = cell["outcome"], cell["row_outcome"]
    shown = mine if mine == row else f"{mine} (the row: {row})"
    step = render_compare.step_text(cell)
    left_out = "" if cell.get("compared", True) else (
        ' muted" title="left out of the comparison: the spec applies to none of this column\'s rows')
    whole = ((f'<div class="msg">{_e(cell["message"])}</div>' if (cell.get("message") or "").strip() else "")
             + "".join(f'<div class="note">note: {_e(n)}</div>' for n in cell.get("notes") or [])
             + (f'<div class="step"><b>decided by</b> {_e(step)}</div>' if step else ""))
    return (f'<td class="vv{left_out}" data-column="{_e(column)}" data-outcome="{_e(mine)}">'
            f'<span class="c o-{_e(mine)} tag">{_e(shown)}</span> <span class="ev1">{_e(_short(cell.get("evidence")))}</span>'
            f'<details class="row"><summary><code class="tid">{_e(cell["test_id"])}</code></summary>'
            f'<div class=muted>{_e(cell["implementation"])}</div>{whole}</details></td>')


def html(report: dict, ids: dict) -> str:
    """Per product run in two or more versions: the vectors whose outcome differs between its columns."""
    products = report.get("across_versions") or []
    intro = ("<p class=muted>Per product run in two or more versions (a configuration variant is a column of its "
             "own, its configuration named): the vectors of a clause whose outcome differs in class between the "
             "columns that ran them (fail and xfail, pass and xpass are one behaviour), each cell the row's test "
             "id and its evidence. Through: the broker itself, or a provider over it.</p>")
    if not products:
        return intro + "<p class=muted>No product ran in two or more versions.</p>"
    out = [intro]
    for p in products:
        cols = p["columns"]
        out.append(f'<details class="product" id="{_e(anchor("across", p["product"]))}" data-product="{_e(p["product"])}">'
                   f'<summary><b>{_e(p["product"])}</b>: {_e(", ".join(c["label"] for c in cols))}: '
                   f'{len(p["lines"])} of {p["compared"]} vector(s) run by two or more columns differ</summary>')
        notes = [f'<li>{_e(c["label"])}: configuration '
                 f'{_e("; ".join(c["configuration"]) or "(no configuration entry beyond the version’s)")}</li>'
                 for c in cols if c["variant"]]
        notes += [f'<li>{_e(n["spec"])} {_e(n["spec_revision"])}{" through " + _e(n["lane"]) if n["lane"] else ""} '
                  f'applies to none of {_e(", ".join(n["columns"]))} (every row not_applicable): left out there</li>'
                  for n in p["not_applicable"]]
        if notes:
            out.append(f"<ul>{''.join(notes)}</ul>")
        if not p["lines"]:
            out.append("<p class=muted>No difference.</p></details>")
            continue
        out.append('<table class="versions"><tr><th>Clause</th><th>Vector</th><th>Through</th>'
                   + "".join(f'<th data-column="{_e(c["key"])}">{_e(c["label"])}</th>' for c in cols) + "</tr>")
        for ln in p["lines"]:
            to = ids.get((ln["spec"], ln["spec_revision"], ln["clause_id"]))
            clause = f'<code>{_e(ln["clause_id"])}</code>'
            clause = f'<a href="#{to}">{clause}</a>' if to else clause
            through = " ".join(x for x in (ln["lane"] or "the broker", ln["protocol"] or "") if x)
            out.append(f'<tr class="vline" data-clause="{_e(ln["clause_id"])}" data-vector="{_e(ln["vector_id"])}">'
                       f'<td>{clause} <span class=muted>{_e(ln["level"])}</span></td>'
                       f'<td><code>{_e(ln["vector_id"])}</code></td><td>{_e(through)}</td>'
                       + "".join(_version_cell(ln["cells"].get(c["key"]), c["key"]) for c in cols) + "</tr>")
        out.append("</table></details>")
    return "".join(out)
