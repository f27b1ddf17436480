"""Compare brokers (reports/views/compare_brokers.py) in index.html and summary.md, and the measurements it links to.

index.html: one table, a column per broker under its product's name, a row group per question; a cell is
its word or figure, a link to its evidence (an id in the page, whose <details> the page's script opens),
its detail as the tooltip. The table never grows wider than the page (fixed layout, words wrap). Below
it, mqconform's reference implementations over the same brokers, in a table of their own.
summary.md: the same table, each cell a reference-style link to index.html (one definition per evidence).
Every value from the rows goes through _e (html.escape) or md_cell.
"""
from __future__ import annotations

from html import escape

from ..views.compare_brokers import anchor
from .markdown import md_cell

# A cell's status -> its colour class (CSS below): good, configured, partial, bad, none.
STATUS_CLASS = {"kept": "b-good", "native": "b-good", "conformant": "b-good", "same": "b-good", "better": "b-good",
                "configured": "b-conf",
                "changed": "b-part", "emulated": "b-part", "partial": "b-part", "conformant-except-should": "b-part",
                "lost": "b-bad", "absent": "b-bad", "not-conformant": "b-bad", "worse": "b-bad",
                "incomplete": "b-none", "unknown": "b-none", "not-applicable": "b-none", "first": "b-none"}
REPORT_PAGE = "index.html"   # where summary.md's links go (the report folder's page)

CSS = """
table.brokers{width:100%;table-layout:fixed;font-size:12.5px}table.brokers col.q{width:24%}
table.brokers th,table.brokers td{padding:2px 5px}table.brokers td{text-align:center}
table.brokers td a{color:inherit;text-decoration:none;display:block}
table.brokers thead th{text-align:center;background:#cfd8dc}table.brokers thead th.q{text-align:left}
table.brokers tbody th{font-weight:normal;background:#fff}
table.brokers tr.question th{background:#eceff1;font-weight:600;text-align:left}
table.brokers tr.question .note{font-weight:normal;color:#555;font-size:12px}
.b-good{background:#c8e6c9}.b-conf{background:#b2dfdb}.b-part{background:#ffe0b2}.b-bad{background:#ffcdd2}
.b-none{background:#eeeeee;color:#666}.b-missing{color:#bbb}
"""


def _e(value) -> str:
    return escape("" if value is None else str(value), quote=True)


def _heads(cols: list[dict]) -> tuple[list[tuple[str, int]], list[dict]]:
    """The product row (label, span) and the columns in order."""
    spans: list[tuple[str, int]] = []
    for c in cols:
        if spans and spans[-1][0] == c["product_label"]:
            spans[-1] = (c["product_label"], spans[-1][1] + 1)
        else:
            spans.append((c["product_label"], 1))
    return spans, cols


LONG_VERSION = 14   # characters of a version shown in a column's head (a Go pseudo-version is 34); all in its title


def version_text(c: dict) -> str:
    """A column's second head: its version and variant ("" when provenance named no product: the first head
    is the broker's name then)."""
    v = c["version"] or ""
    v = v if len(v) <= LONG_VERSION else v[:LONG_VERSION - 1] + "…"
    return " ".join(x for x in (v, c["variant"]) if x) if c["product"] else ""


def column_label(c: dict) -> str:
    """A column in one line (summary.md): the product and its version, or the broker's name."""
    return f"{c['product_label']} {version_text(c)}".strip() if c["product"] else c["broker"]


def _cell_html(row: dict, broker: str) -> str:
    c = row["cells"].get(broker)
    if c is None:
        return f'<td class="b-missing" data-broker="{_e(broker)}" title="{_e(row["absent"])}">·</td>'
    return (f'<td class="{STATUS_CLASS.get(c["status"], "b-none")}" data-broker="{_e(broker)}" '
            f'data-status="{_e(c["status"])}" title="{_e(c["detail"])}"><a href="{_e(c["evidence"])}">{_e(c["text"])}</a></td>')


def _table_html(table_id: str, cols: list[dict], groups: list[dict]) -> str:
    spans, cols = _heads(cols)
    n = len(cols) + 1
    out = [f'<table id="{table_id}" class="brokers"><colgroup><col class="q">' + "<col>" * len(cols) + "</colgroup>"
           '<thead><tr><th class="q" rowspan="2">Broker</th>'
           + "".join(f'<th colspan="{k}">{_e(label)}</th>' for label, k in spans) + "</tr><tr>"
           + "".join(f'<th data-broker="{_e(c["broker"])}" title="{_e("; ".join([c["broker"]] + c["configuration"]))}">'
                     f'{_e(version_text(c))}</th>' for c in cols) + "</tr></thead>"]
    for g in groups:
        out.append(f'<tbody id="{_e(anchor("compare", g["id"]))}" data-group="{_e(g["id"])}">'
                   f'<tr class="question"><th colspan="{n}">{_e(g["question"])} '
                   f'<span class="note">{_e(g.get("note") or "")}</span></th></tr>')
        if g.get("empty"):
            out.append(f'<tr class="empty"><th colspan="{n}" class="muted">{_e(g["empty"])}</th></tr>')
        for r in g["rows"]:
            out.append(f'<tr data-row="{_e(r["id"])}"><th>{_e(r["label"])}</th>'
                       + "".join(_cell_html(r, c["broker"]) for c in cols) + "</tr>")
        out.append("</tbody>")
    out.append("</table>")
    return "".join(out)


def html(report: dict) -> str:
    """The section's body: the brokers' table, then the reference implementations' table and verdicts."""
    v = report.get("compare_brokers") or {}
    cols = v.get("columns") or []
    if not cols:
        return "<p class=muted>No broker in the latest runs.</p>"
    out = ["<p class=muted>The brokers of the latest runs side by side (products only). Each cell links to its "
           "evidence below in this page; hover for the figures behind it. No verdict is made here: the "
           "measurements are not conformance, and a broker has an OpenMessaging profile, not a verdict.</p>",
           _table_html("brokers", cols, v["groups"])]
    ref = v.get("reference") or {}
    out.append('<h3 id="compare-reference">Reference implementations over these brokers (mqconform\'s own code, '
               "never a product)</h3><p class=muted>mqconform's OpenMessaging mappings judged over each broker: the "
               "verdict is the mapping's, never the broker's.</p>")
    if ref.get("rows"):
        used = [c for c in cols if any(c["broker"] in r["cells"] for r in ref["rows"])]
        out.append(_table_html("brokers-reference", used, [{"id": "reference-mappings", "question": "mqconform-om, per protocol",
                                                              "note": "", "rows": ref["rows"]}]))
    else:
        out.append("<p class=muted>No reference mapping ran over these brokers.</p>")
    if ref.get("others"):
        out.append("<p>Other reference implementations: " + ", ".join(
            f'<a href="{_e(o["evidence"])}">{_e(o["implementation"])} {_e(o["spec"])} {_e(o["spec_revision"])}: '
            f'{_e(o["verdict"])}</a>' for o in ref["others"]) + "</p>")
    return "".join(out)


class _Links:
    """summary.md's reference-style links: one label per evidence anchor, defined once below the table."""

    def __init__(self):
        self.labels: dict[str, str] = {}

    def cell(self, c: dict | None) -> str:
        if c is None:
            return "·"
        label = self.labels.setdefault(c.get("section") or c["evidence"], f"e{len(self.labels) + 1}")
        return f"[{md_cell(c['text'])}][{label}]"

    def definitions(self) -> list[str]:
        return [f"[{label}]: {REPORT_PAGE}{href}" for href, label in self.labels.items()]


def _table_md(cols: list[dict], groups: list[dict], links: _Links) -> list[str]:
    lines = ["| Broker | " + " | ".join(md_cell(column_label(c)) for c in cols) + " |",
             "|---" * (len(cols) + 1) + "|"]
    for g in groups:
        lines.append(f"| **{md_cell(g['question'])}** |" + " |" * len(cols))
        if g.get("empty"):
            lines.append(f"| {md_cell(g['empty'])} |" + " |" * len(cols))
        for r in g["rows"]:
            lines.append(f"| {md_cell(r['label'])} | " + " | ".join(links.cell(r["cells"].get(c["broker"])) for c in cols) + " |")
    return lines


def markdown(report: dict) -> list[str]:
    """## Compare brokers: the table, the reference implementations' table, the links' definitions."""
    v = report.get("compare_brokers") or {}
    cols = v.get("columns") or []
    lines = ["", "## Compare brokers", ""]
    if not cols:
        return lines + ["No broker in the latest runs."]
    links = _Links()
    lines += [f"The brokers of the latest runs side by side (products only); each cell links to its evidence in "
              f"`{REPORT_PAGE}`. OpenMessaging: native, configured (native with a configuration), emulated (by a "
              "provider), absent, not observed; * its protocols differ. Versions: + now pass, − now fail, ~ other "
              "changes, against the version before.", ""]
    lines += _table_md(cols, v["groups"], links)
    ref = v.get("reference") or {}
    lines += ["", "### Reference implementations over these brokers (mqconform's own code, never a product)", ""]
    if ref.get("rows"):
        used = [c for c in cols if any(c["broker"] in r["cells"] for r in ref["rows"])]
        lines += _table_md(used, [{"question": "mqconform-om, per protocol (the mapping's verdict, never the broker's)",
                                   "rows": ref["rows"]}], links)
    else:
        lines.append("No reference mapping ran over these brokers.")
    if ref.get("others"):
        lines += ["", "Other reference implementations: " + ", ".join(
            f"{md_cell(o['implementation'])} {md_cell(o['spec'])} {md_cell(o['spec_revision'])}: {o['verdict']}"
            for o in ref["others"])]
    return lines + [""] + links.definitions()


def measurements_html(report: dict) -> str:
    """The evidence of the CloudEvents rows: per target, the transit and the cross-protocol tables."""
    m = report.get("measurements") or {}
    transit, crossing = m.get("transit") or [], m.get("cross_protocol") or []
    intro = ("<p class=muted>What each broker did with the CloudEvents bindings' messages (a measurement, not "
             "conformance: the bindings describe codecs, not brokers), read from the files the run wrote beside "
             "its results (NAME.transit.jsonl, NAME.cross-protocol.jsonl).</p>")
    if not transit and not crossing:
        return intro + "<p class=muted>Not measured in this build.</p>"
    out = [intro]
    for target in sorted({t["target"] for t in transit}):
        rows = [t for t in transit if t["target"] == target]
        out.append(f'<details id="{_e(anchor("transit", target))}" class="measure"><summary>{_e(target)}: through the '
                   f'broker, ' + ", ".join(f"{_e(t['spec'])} {t['unchanged']}/{t['messages']} unchanged" for t in rows)
                   + "</summary><table><tr><th>Spec</th><th>Protocol</th><th>Messages</th><th>Delivered</th>"
                   "<th>Unchanged</th><th>Still satisfy the vector</th></tr>")
        notes = []
        for t in rows:
            out.append(f"<tr><td>{_e(t['spec'])}</td><td>{_e(t['protocol'])}</td><td>{t['messages']}</td>"
                       f"<td>{t['delivered']}</td><td>{t['unchanged']}</td><td>{t['satisfying']}</td></tr>")
            notes += [f"<li><code>{_e(x['vector_id'])}</code> not delivered: {_e(x['why'])}</li>" for x in t["not_delivered"]]
            notes += [f"<li><code>{_e(x['vector_id'])}</code> changed: {_e('; '.join(x['changes']))}</li>" for x in t["changed"]]
        out.append("</table>" + (f"<ul>{''.join(notes)}</ul>" if notes else "") + "</details>")
    for target in sorted({t["target"] for t in crossing}):
        rows = [t for t in crossing if t["target"] == target]
        out.append(f'<details id="{_e(anchor("cross-protocol", target))}" class="measure"><summary>{_e(target)}: across '
                   "protocols</summary><table><tr><th>Direction</th><th>Mode</th><th>Messages</th><th>Delivered</th>"
                   "<th>Body kept</th><th>Content-type kept</th><th>Attributes kept</th><th>changed</th><th>lost</th>"
                   "<th>Event equal, read with the other binding</th><th>Changes</th></tr>")
        for t in rows:
            changes = "; ".join(f"{k}: {n}" for k, n in t["changes"].items()) or "—"
            out.append(f"<tr><td>{_e(t['direction'])}</td><td>{_e(t['mode'])}</td><td>{t['messages']}</td>"
                       f"<td>{t['delivered']}</td><td>{t['body_kept']}</td><td>{t['content_type_kept']}</td>"
                       f"<td>{t['fields_kept']}</td><td>{t['fields_changed']}</td><td>{t['fields_lost']}</td>"
                       f"<td>{t['events_equal']}</td><td>{_e(changes)}</td></tr>")
        lost = [f"<li>{_e(t['direction'])} {_e(t['mode'])}: <code>{_e(x['vector_id'])}</code> not delivered: {_e(x['why'])}</li>"
                for t in rows for x in t["not_delivered"]]
        out.append("</table>" + (f"<ul>{''.join(lost)}</ul>" if lost else "") + "</details>")
    return "".join(out)
