"""index.html: one self-contained page, no network (inline CSS, JS and SVG).

Everything that comes from result or clause files is escaped with
html.escape; ids used as anchors are derived, never the raw clause id.
"""
from __future__ import annotations

import base64
import re
from html import escape

from fixtures.verdict.levels import group_of

from ..rows.outcomes import OUTCOME_ORDER
from ..views.compare_brokers import anchor
from ..views.model import GROUP_ORDER, impl_group
from . import (
    badges,
    charts,
    render_compare,
    render_compare_brokers,
    render_faults,
    render_profiles,
    render_spread,
    render_versions,
    render_witnesses,
)
from .render_compare import SHORT

CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#263238;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}
header p{margin:4px 0 0;color:#cfd8dc}
main{padding:8px 24px 40px}section{margin:22px 0}h2{font-size:17px;border-bottom:1px solid #ccc;padding-bottom:4px}
table{border-collapse:collapse;background:#fff}th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#eceff1}#matrix tr:first-child th{position:sticky;top:0}
td.c{text-align:center;font-weight:600;font-size:11px;white-space:nowrap}
td.c a{color:inherit;text-decoration:none;display:block}
.o-fail{background:#c62828;color:#fff}.o-error{background:#6a1b9a;color:#fff}
.o-xfail{background:#ef6c00;color:#fff}.o-xpass{background:#0277bd;color:#fff}
.o-unsupported{background:#9e9e9e;color:#fff}.o-not_applicable{background:#e0e0e0;color:#555}
.o-pass{background:#2e7d32;color:#fff}.o-none{background:#fff;color:#bbb}
.legend span{display:inline-block;padding:1px 8px;margin:2px;border-radius:3px;font-size:12px}
blockquote{margin:6px 0;padding:6px 12px;border-left:4px solid #90a4ae;background:#f1f4f6}
details{background:#fff;border:1px solid #ddd;margin:4px 0;padding:4px 10px}
details[open]{border-color:#90a4ae}summary{cursor:pointer;font-family:ui-monospace,monospace}
.msg{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:12px;max-width:70ch}
.note{color:#555;font-style:italic}
.muted{color:#777}.chart{background:#fff;border:1px solid #ddd;margin:6px 12px 6px 0;max-width:calc(100% - 14px);height:auto}
#filter{padding:4px 8px;width:26em}.hidden{display:none}
table.versions td.vv{min-width:8em;max-width:30em;font-size:12px}table.versions code.tid{font-size:11px;word-break:break-all}
table.versions details.row{border:0;padding:0;margin:2px 0;background:none}
table{max-width:100%}th{overflow-wrap:break-word}td,th code{overflow-wrap:anywhere}
#matrix td:first-child{min-width:14em}#matrix td:nth-child(2){white-space:nowrap}table.versions td:first-child{min-width:12em}
#header-support-table td:first-child{min-width:9em}#header-support-table{font-size:12px}
#matrix th[data-impl],#header-support-table th{font-size:12px;overflow-wrap:anywhere}
nav.toc{font-size:13px;margin:6px 0 0}nav.toc a{color:#cfd8dc;margin-right:12px}
#matrix:not(.show-ref) .ref{display:none}
details.section>summary{font-family:inherit;font-weight:600}
"""

JS = r"""
(function(){
  var $ = function(id){ return document.getElementById(id); };
  function openTarget(){
    var id = decodeURIComponent(location.hash.slice(1));
    if(!id) return;
    var el = document.getElementById(id);
    if(!el) return;
    // the target and every <details> around it open (evidence sits in collapsed sections)
    for(var d = el; d; d = d.parentElement) if(d.tagName === 'DETAILS') d.open = true;
    el.scrollIntoView();
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();
  var matrix = $('matrix');
  if(matrix){
    var box = $('filter'), bad = $('onlybad'), fSpec = $('f-spec'), fLevel = $('f-level'), fOutcome = $('f-outcome'),
        fDiffer = $('f-differ'), fRef = $('f-ref'), sbsA = $('sbs-a'), sbsB = $('sbs-b');
    var rows = matrix.querySelectorAll('tr.clause');
    // The implementations shown: all, or the two side by side.
    function shownImpls(){
      var a = sbsA.value, b = sbsB.value;
      return (a && b && a !== b) ? [a, b] : null;
    }
    // The cells shown: the two side by side, else every product's and, when asked, the references'.
    function cellsOf(r, impls){
      var out = [], tds = r.querySelectorAll('td.c');
      for(var i = 0; i < tds.length; i++){
        var impl = tds[i].getAttribute('data-impl');
        if(!impls && !fRef.checked && tds[i].classList.contains('ref')) continue;
        if(impl !== null && (!impls || impls.indexOf(impl) >= 0)) out.push(tds[i]);
      }
      return out;
    }
    function apply(){
      var q = box.value.toLowerCase(), only = bad.checked, spec = fSpec.value, level = fLevel.value,
          outcome = fOutcome.value, differ = fDiffer.checked, impls = shownImpls(), n = 0, nDiff = 0, nBoth = 0;
      matrix.classList.toggle('show-ref', fRef.checked || !!impls);
      var cols = matrix.querySelectorAll('[data-impl]');
      for(var c = 0; c < cols.length; c++){
        var impl = cols[c].getAttribute('data-impl');
        cols[c].classList.toggle('hidden', !!impls && impls.indexOf(impl) < 0);
      }
      for(var i = 0; i < rows.length; i++){
        var r = rows[i], cells = cellsOf(r, impls), worsts = [];
        // Only the implementations that ran the clause take part (a "·" cell is not an outcome).
        for(var j = 0; j < cells.length; j++){ var w = cells[j].getAttribute('data-worst'); if(w) worsts.push(w); }
        var distinct = worsts.filter(function(w, k){ return worsts.indexOf(w) === k; });
        var differs = worsts.length >= 2 && distinct.length > 1;
        for(var j2 = 0; j2 < cells.length; j2++)
          cells[j2].classList.toggle('differs', !!impls && differs && cells[j2].hasAttribute('data-worst'));
        if(impls && worsts.length === 2){ nBoth++; if(differs) nDiff++; }
        var show = r.getAttribute('data-text').indexOf(q) >= 0
          && (!only || worsts.some(function(w){ return w === 'fail' || w === 'error' || w === 'xfail'; }))
          && (!spec || r.getAttribute('data-spec') === spec)
          && (!level || r.getAttribute('data-level-group') === level)
          && (!outcome || worsts.indexOf(outcome) >= 0)
          && (!differ || differs);
        r.classList.toggle('hidden', !show);
        if(show) n++;
      }
      var heads = matrix.querySelectorAll('tr.spec');
      for(var h = 0; h < heads.length; h++){
        var key = heads[h].getAttribute('data-spec'), any = false;
        for(var k = 0; k < rows.length && !any; k++)
          any = rows[k].getAttribute('data-spec') === key && !rows[k].classList.contains('hidden');
        heads[h].classList.toggle('hidden', !any);
      }
      $('shown').textContent = 'showing ' + n + ' of ' + rows.length + ' clauses';
      $('sbs-note').textContent = impls ? impls[0] + ' and ' + impls[1] + ' differ on ' + nDiff + ' of the ' + nBoth +
        ' clauses both ran' : '';
    }
    [box].forEach(function(el){ el.addEventListener('input', apply); });
    [bad, fSpec, fLevel, fOutcome, fDiffer, fRef, sbsA, sbsB].forEach(function(el){ el.addEventListener('change', apply); });
    // Evidence: a copy of the clause drill-down's quote and of the implementations' blocks.
    var panel = $('evidence');
    function evidenceFor(anchor, impl){
      var d = document.getElementById(anchor);
      if(!d) return;
      var impls = shownImpls() || [impl];
      $('ev-title').textContent = d.getAttribute('data-clause') + ' (' + d.getAttribute('data-level') + ')';
      var quote = $('ev-quote'), cols = $('ev-cols');
      quote.textContent = ''; cols.textContent = '';
      var q = d.querySelector('blockquote, p.noquote');
      if(q) quote.appendChild(q.cloneNode(true));
      var blocks = d.querySelectorAll('div.ev');
      impls.forEach(function(name){
        var col = document.createElement('div'), found = false;
        for(var i = 0; i < blocks.length; i++){
          if(blocks[i].getAttribute('data-impl') === name){ col.appendChild(blocks[i].cloneNode(true)); found = true; }
        }
        if(!found){ var p = document.createElement('p'); p.className = 'muted'; p.textContent = name + ': not run'; col.appendChild(p); }
        cols.appendChild(col);
      });
      panel.hidden = false;
      panel.scrollTop = 0;
    }
    matrix.addEventListener('click', function(ev){
      var a = ev.target.closest ? ev.target.closest('td.c a') : null;
      if(!a) return;
      ev.preventDefault();
      evidenceFor(a.getAttribute('href').slice(1), a.parentNode.getAttribute('data-impl'));
    });
    $('ev-close').addEventListener('click', function(){ panel.hidden = true; });
    document.addEventListener('keydown', function(ev){ if(ev.key === 'Escape') panel.hidden = true; });
    ['verdict-grid', 'client-library-grid'].forEach(function(id){
      var grid = $(id);
      if(grid) grid.addEventListener('click', function(ev){
        var td = ev.target.closest ? ev.target.closest('td.v') : null;
        if(!td) return;
        fSpec.value = td.getAttribute('data-spec');
        apply();
      });
    });
    apply();
  }
  document.body.setAttribute('data-ready', '1');  // lets a headless check see the script ran
})();
"""


# A clause whose level the registry read from a sentence without an RFC 2119 keyword (`keyword: none`):
# its level is marked `*` in the grid and said in its evidence.
NO_KEYWORD = ('<p class="muted">Level read from the sentence: it has no RFC 2119 keyword '
              "(the clause registry's reading, vectors/clauses).</p>")


def _e(value) -> str:
    return escape("" if value is None else str(value), quote=True)


def _pct(rate) -> str:
    return "n/a" if rate is None else f"{rate * 100:.1f}%"


def _counts(counts: dict) -> str:
    return ", ".join(f"{o} {counts[o]}" for o in OUTCOME_ORDER if counts.get(o))


def anchor_ids(matrix: list[dict]) -> dict[tuple, str]:
    """A unique, HTML-safe id per matrix row, readable from the clause id."""
    ids, used = {}, set()
    for row in matrix:
        base = "clause-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", row["clause_id"]).strip("-")
        key = (row["spec"], row["spec_revision"], row["clause_id"])
        cand, n = base, 1
        while cand in used:
            n += 1
            cand = f"{base}-{n}"
        used.add(cand)
        ids[key] = cand
    return ids


def _badge_img(v: dict) -> str:
    data = base64.b64encode(badges.verdict_svg(v).encode("utf-8")).decode("ascii")
    return f'<img class="badge" alt="{_e(v["verdict"])}" src="data:image/svg+xml;base64,{data}">'


def _coverage(cov: dict) -> str:
    """MUST clauses that apply / judged and held, and the clauses not judged (docs/verdicts.md)."""
    if cov["status"] != "known":
        head = "unknown"
    else:
        head = (f"{cov['judged_and_held']} of {cov['applying']} judged and held"
                f" <span class=muted>({cov['testable']} testable, {len(cov['not_applicable'])} not applying"
                f"{', ' + str(len(cov['failed'])) + ' failed' if cov['failed'] else ''})</span>")
    if not cov["not_judged"]:
        return head
    items = "".join(f"<li><code>{_e(c['clause_id'] or '(every clause)')}</code>: {_e(c['why'])}</li>"
                    for c in cov["not_judged"])
    return f'{head}<details class="notjudged"><summary>not judged: {len(cov["not_judged"])}</summary><ul>{items}</ul></details>'


def _verdicts(report: dict) -> str:
    if not report["verdicts"]:
        return "<p class=muted>No results.</p>"
    out = ["<p class=muted>A verdict is conformant only when every testable MUST / MUST NOT clause of the spec that "
           "applies to the implementation was judged and held; otherwise incomplete, naming those clauses. "
           "Covers: a broker or codec verdict; a provider verdict (an OpenMessaging provider); reference "
           "(mqconform's own code standing in: its reference codecs and mappings, never a product's verdict).</p>"
           "<table><tr><th>Implementation</th><th>Spec</th><th>Verdict</th><th>Covers</th>"
           "<th>MUST clauses</th><th>Counts per level</th></tr>"]
    for v in report["verdicts"]:
        levels = "<br>".join(f"<b>{_e(lv)}</b>: {_e(_counts(c))}" for lv, c in v["counts"].items())
        out.append(f'<tr class="verdict" id="{_e(anchor("verdict", v["implementation"], v["spec"]))}" '
                   f'data-verdict="{_e(v["verdict"])}" data-covers="{_e(v["covers"])}">'
                   f'<td>{_e(v["implementation"])}</td>'
                   f'<td>{_e(v["spec"])} {_e(v["spec_revision"])}</td><td>{_badge_img(v)}</td><td>{_e(v["covers"])}</td>'
                   f'<td>{_coverage(v["coverage"])}</td><td>{levels}</td></tr>')
    out.append("</table>")
    if report.get("without_verdict"):
        out.append("<p>Rows without a verdict: a broker has an OpenMessaging profile (below), not a verdict; these "
                   "rows judged mqconform's mapping over it.</p><ul>")
        for v in report["without_verdict"]:
            levels = "; ".join(f"{_e(lv)}: {_e(_counts(c))}" for lv, c in v["counts"].items())
            out.append(f'<li class="no-verdict">{_e(v["implementation"])} on {_e(v["spec"])} '
                       f'{_e(v["spec_revision"])}: {levels}</li>')
        out.append("</ul>")
    return "".join(out)


def _implementations(report: dict) -> str:
    out = ["<table><tr><th>Implementation</th><th>Kind</th><th>Version</th><th>Latest run</th>"
           "<th>Started</th><th>Suite</th><th>Pass rate</th><th>Outcomes</th></tr>"]
    for i in report["implementations"]:
        out.append(f"<tr><td>{_e(i['name'])}</td><td>{_e(i['kind'])}</td><td>{_e(i['version'])}</td>"
                   f"<td><code>{_e(i['run_id'])}</code></td><td>{_e(i['run_started'])}</td>"
                   f"<td>{_e(i['suite_version'])}</td><td>{_pct(i['pass_rate'])}</td><td>{_e(_counts(i['counts']))}</td></tr>")
    out.append("</table>")
    return "".join(out)


def matrix_columns(report: dict) -> list[tuple[str, bool]]:
    """The matrix's implementations, (name, is a reference), by group (reports/views/model.py GROUP_ORDER), by
    name within one: the products, the client libraries, then mqconform's own code (role reference), hidden
    until asked for, so that no reference column stands between two products, nor a client library."""
    impls = report["implementations"]
    return [(i["name"], group == "reference") for group in GROUP_ORDER for i in impls if impl_group(i) == group]


def _matrix(report: dict, ids: dict) -> str:
    cols = matrix_columns(report)
    if not report["matrix"]:
        return "<p class=muted>No clause results.</p>"
    legend = "".join(f'<span class="o-{o}">{SHORT[o]} {o}</span>' for o in OUTCOME_ORDER)
    ref = {name: ' class="ref"' if is_ref else "" for name, is_ref in cols}
    out = [f'<p class="legend">Worst outcome first: {legend}. A cell opens its evidence.</p>',
           render_compare.filter_bar(report),
           '<table id="matrix"><tr><th>Clause</th><th>Level</th>'
           + "".join(f'<th data-impl="{_e(i)}"{ref[i]}>{_e(i)}</th>' for i, _ in cols) + "</tr>"]
    spec = None
    for row in report["matrix"]:
        key = (row["spec"], row["spec_revision"], row["clause_id"])
        skey = render_compare.spec_key(row["spec"], row["spec_revision"])
        if (row["spec"], row["spec_revision"]) != spec:
            spec = (row["spec"], row["spec_revision"])
            out.append(f'<tr class="spec" data-spec="{_e(skey)}"><th colspan="{2 + len(cols)}">{_e(row["spec"])} '
                       f'{_e(row["spec_revision"])}</th></tr>')
        text = f"{row['clause_id']} {row['level'] or ''} {row['quote'] or ''}".lower()
        cells = []
        for impl, is_ref in cols:
            cell = row["cells"].get(impl)
            cls = " ref" if is_ref else ""
            if cell is None:
                cells.append(f'<td class="c o-none{cls}" title="not run" data-impl="{_e(impl)}">·</td>')
                continue
            tip = f"{impl}: {_counts(cell['counts'])}"
            cells.append(f'<td class="c o-{_e(cell["worst"])}{cls}" title="{_e(tip)}" data-impl="{_e(impl)}" '
                         f'data-worst="{_e(cell["worst"])}"><a href="#{ids[key]}">'
                         f'{SHORT.get(cell["worst"], _e(cell["worst"]))}</a></td>')
        out.append(f'<tr class="clause" data-clause="{_e(row["clause_id"])}" data-spec="{_e(skey)}" '
                   f'data-level-group="{group_of(row["level"])}" data-text="{_e(text)}">'
                   f'<td><a href="#{ids[key]}"><code>{_e(row["clause_id"])}</code></a></td>'
                   f"<td>{_e(row['level'])}{'*' if row.get('no_keyword') else ''}</td>{''.join(cells)}</tr>")
    out.append("</table>")
    return "".join(out)


def _drilldown(report: dict, ids: dict) -> str:
    """Per clause: its quote and, per implementation, the evidence of its cell (render_compare.evidence)."""
    out = []
    for row in report["matrix"]:
        key = (row["spec"], row["spec_revision"], row["clause_id"])
        quote = (f"<blockquote>{_e(row['quote'])}</blockquote>" if row.get("quote")
                 else '<p class="muted noquote">Clause text not available (no clause file for this spec).</p>')
        blocks = "".join(render_compare.evidence(impl, cell) for impl, cell in sorted(row["cells"].items()))
        out.append(f'<details id="{ids[key]}" data-clause="{_e(row["clause_id"])}" data-level="{_e(row["level"])}">'
                   f'<summary>{_e(row["clause_id"])} <span class="muted">{_e(row["level"])}</span></summary>'
                   f"{quote}{NO_KEYWORD if row.get('no_keyword') else ''}{blocks}</details>")
    return "".join(out) or "<p class=muted>No clauses.</p>"



def _diff(report: dict) -> str:
    if not report["diff"]:
        return "<p class=muted>No implementation has two runs yet.</p>"
    out = []
    for d in report["diff"]:
        out.append(f"<h3>{_e(d['implementation'])}</h3><p class=muted>run <code>{_e(d['from_run'])}</code> → "
                   f"<code>{_e(d['to_run'])}</code>: {len(d['new_failures'])} new failure(s), "
                   f"{len(d['fixed'])} fixed, {len(d['changed'])} other change(s)</p>")
        items = [(k, x) for k in ("new_failures", "fixed", "changed") for x in d[k]]
        if items:
            out.append("<table><tr><th>Change</th><th>Vector</th><th>Before</th><th>After</th></tr>")
            for kind, x in items:
                out.append(f"<tr><td>{_e(kind.replace('_', ' '))}</td><td><code>{_e(x['vector_id'])}</code></td>"
                           f"<td>{_e(x['before'] or '—')}</td><td>{_e(x['after'] or '—')}</td></tr>")
            out.append("</table>")
    return "".join(out)


def _flaky(report: dict) -> str:
    if not report["flaky"]:
        return "<p class=muted>No outcome changes between runs of an unchanged implementation and vector set.</p>"
    out = ["<table><tr><th>Implementation</th><th>Vector</th><th>Score</th><th>Changes / pairs</th>"
           "<th>In the gate</th></tr>"]
    for f in report["flaky"]:
        q = f.get("quarantine")
        gate = "counts" if not q else (
            f"quarantined: {_e(q['reason'])}"
            + (f' <a href="{_e(q["link"])}" rel="noreferrer noopener" target="_blank">bug report ↗</a>'
               if (q.get("link") or "").startswith(("https://", "http://")) else ""))
        out.append(f"<tr><td>{_e(f['implementation'])}</td><td><code>{_e(f['vector_id'])}</code></td>"
                   f"<td>{f['score']:.2f}</td><td>{f['changes']} / {f['pairs']}</td><td>{gate}</td></tr>")
    out.append("</table>")
    return "".join(out)


# The page's sections in order, (id, title): the first screen answers "which broker does what".
SECTIONS = (("compare-brokers", "Compare brokers"), ("comparison", "Implementations side by side"),
            ("compliance-matrix", "Compliance matrix"), ("faults", "Faults"), ("two-clients", "Two clients"),
            ("broker-profiles", "OpenMessaging broker profile"), ("measurements", "CloudEvents through brokers"),
            ("across-versions", "Across versions"), ("fails-in-one", "Fails in one"), ("clauses", "Clauses"),
            ("diff", "Since the previous run"), ("charts", "Pass rates"), ("implementations", "Implementations"))


def _collapsed(summary: str, body: str) -> str:
    """A long list, closed until opened (a link into it opens it: the page's script)."""
    return f'<details class="section"><summary>{summary}</summary>{body}</details>'


def render(report: dict) -> str:
    ids = anchor_ids(report["matrix"])
    t = report["totals"]
    nav = "".join(f'<a href="#{i}">{_e(title)}</a>' for i, title in SECTIONS)
    n_verdicts = len(report["verdicts"]) + len(report.get("without_verdict") or [])
    n_impls = len(report["implementations"])
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # No network: forbid every fetch, allow only the inline style, script and data: images.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
        f"<title>mqconform compliance report</title><style>{CSS}{render_compare.CSS}{render_compare_brokers.CSS}"
        f"{render_witnesses.CSS}</style>"
        "</head><body>"
        f"<header><h1>mqconform compliance report</h1><p>generated {_e(report['generated'])} · "
        f"{t['implementations']} implementation(s), {t['runs']} run(s), {t['records']} record(s)</p>"
        f'<nav class="toc">{nav}</nav></header><main>'
        f'<section id="compare-brokers"><h2>Compare brokers</h2>{render_compare_brokers.html(report)}</section>'
        f'<section id="comparison"><h2>Implementations side by side</h2>{render_compare.verdict_grid(report)}</section>'
        f'<section id="client-libraries"><h2>Client libraries (judged on the client\'s clauses)</h2>'
        f'{render_compare.verdict_grid(report, "client-library")}</section>'
        f'<section id="reference"><h2>Reference implementations (mqconform\'s own code, never a product)</h2>'
        f'{render_compare.verdict_grid(report, "reference")}</section>'
        f'<section id="verdicts"><h2>Verdicts</h2>'
        f'{_collapsed(f"{n_verdicts} verdict(s): coverage and counts per level", _verdicts(report))}</section>'
        f'<section id="compliance-matrix"><h2>Compliance matrix</h2>{_matrix(report, ids)}</section>'
        f'<section id="faults"><h2>Faults</h2>{render_faults.html(report.get("faults") or [])}</section>'
        f'<section id="two-clients"><h2>Two clients</h2>{render_witnesses.html(report.get("two_clients"), ids)}</section>'
        f'<section id="broker-profiles"><h2>OpenMessaging broker profile</h2>{render_profiles.html(report)}</section>'
        f'<section id="measurements"><h2>CloudEvents through brokers (measurements)</h2>'
        f'{render_compare_brokers.measurements_html(report)}</section>'
        f'<section id="across-versions"><h2>Across versions</h2>{render_versions.html(report, ids)}</section>'
        f'{render_spread.sections(report.get("spread") or {})}'
        f'<section id="clauses"><h2>Clauses</h2>{_drilldown(report, ids)}</section>'
        f'<section id="diff"><h2>Since the previous run</h2>{_diff(report)}</section>'
        f'<section id="flaky"><h2>Flaky vectors</h2>{_flaky(report)}</section>'
        f'<section id="charts"><h2>Pass rates</h2>{charts.level_bars(report["level_pass_rates"])}'
        f'{charts.history_lines(report["history"])}</section>'
        f'<section id="implementations"><h2>Implementations (latest run)</h2>'
        f'{_collapsed(f"{n_impls} implementation(s): kind, version, latest run, pass rate", _implementations(report))}</section>'
        f'<section id="header-support"><h2>OpenMessaging: who set each header</h2>{render_compare.header_support(report)}</section>'
        f"</main>{render_compare.EVIDENCE_PANEL}<script>{JS}</script></body></html>\n"
    )
