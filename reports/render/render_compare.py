"""The comparison view of index.html: implementations side by side, each difference one click away.

Parts, all rendered here as HTML and worked by the page's one inline script (render_html.JS):
- the verdict grid: one row per implementation, one column per spec revision, each cell the
  verdict (a click filters the clause matrix to that spec);
- the filter bar of the clause matrix: spec, level, outcome, text, "only clauses where the
  implementations differ", and any two implementations side by side (the other columns hide);
- the evidence of a cell: per implementation and clause, every vector behind the cell with the
  clause's own outcome, the step that decided it, expected against observed, the notes and the
  expectation entry that accounts for it (its reason and the link to the product's bug report).
  It sits in the clause's drill-down (<details>) and the evidence panel shows a copy of it;
- the OpenMessaging header support table: per header and broker, native (the broker or the
  product's own client library set it), set by the mapping (mqconform's), absent, or read from
  the consumer's context.
Every value from result, clause or expectations files goes through _e (html.escape); a link is
written only when it is an http(s) address (fixtures/verdict/expectations.py refuses others at load).
"""
from __future__ import annotations

from html import escape

from fixtures.verdict.levels import GROUP_LEVELS, GROUPS

from ..rows.outcomes import OUTCOME_ORDER, VERDICT_SHORT
from ..views.model import impl_group

SHORT = {"fail": "FAIL", "error": "ERR", "xfail": "XFAIL", "xpass": "XPASS",
         "unsupported": "UNSUP", "not_applicable": "N/A", "pass": "PASS"}
# Who set a header's value (docs/verdicts.md, "Who set each value") -> what the support table says.
SUPPORT = {"broker": ("native", "s-native"), "client-library": ("native", "s-native"),
           "mapping": ("set by the mapping", "s-mapping"), "provider": ("set by the provider", "s-mapping"),
           "nobody": ("absent", "s-absent"),
           "consumer-context": ("consumer context", "s-context")}

CSS = """
.grid td.v{font-weight:600;font-size:12px;white-space:nowrap;cursor:pointer}
.grid td.v a{color:inherit;text-decoration:none;display:block}
.v-conformant{background:#2e7d32;color:#fff}.v-conformant-except-should{background:#a88400;color:#fff}
.v-incomplete{background:#6e6e6e;color:#fff}.v-not-applicable{background:#e0e0e0;color:#555}
.v-not-conformant{background:#c62828;color:#fff}
.filters{display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center;background:#fff;border:1px solid #ddd;
  padding:6px 10px;margin:6px 0}
.filters label{white-space:nowrap}.filters select{max-width:18em}
#shown{color:#555}#sbs-note{font-weight:600}
#evidence{position:fixed;top:0;right:0;width:min(760px,62vw);height:100vh;overflow:auto;background:#fff;
  border-left:3px solid #263238;box-shadow:-4px 0 16px rgba(0,0,0,.25);padding:10px 16px 30px;z-index:10}
#evidence h3{margin:4px 0 6px;font-size:16px}#evidence .cols{display:flex;gap:12px;align-items:flex-start}
#evidence .cols>div{flex:1;min-width:0}#ev-close{float:right}
.ev h4{margin:10px 0 4px;font-size:14px}.ev-card{border:1px solid #ddd;background:#fff;padding:4px 8px;margin:4px 0}
.ev-card .msg{max-width:none}.tag{padding:0 6px;border-radius:3px;font-size:11px;font-weight:600}
.step{font-size:12px;margin:2px 0}
.xo{white-space:pre-wrap;font-family:ui-monospace,monospace;font-size:12px;background:#fff8e1;
  border-left:3px solid #ef6c00;padding:2px 6px;margin:2px 0}
.known{font-size:12px}.known a{font-weight:600}
.s-native{background:#c8e6c9}.s-mapping{background:#ffe0b2}.s-absent{background:#eeeeee;color:#777}
.s-context{background:#bbdefb}
td.c.differs{outline:2px solid #263238;outline-offset:-2px}
"""


def _e(value) -> str:
    return escape("" if value is None else str(value), quote=True)


def _counts(counts: dict) -> str:
    return ", ".join(f"{o} {counts[o]}" for o in OUTCOME_ORDER if counts.get(o))


def spec_key(spec: str, revision: str | None) -> str:
    return f"{spec} {revision or ''}".strip()


GRID_IDS = {"product": "verdict-grid", "client-library": "client-library-grid", "reference": "reference-grid"}
NO_VERDICTS = {"product": "No verdicts.", "client-library": "No client library in the latest runs.",
               "reference": "No verdicts."}


def verdict_grid(report: dict, group: str = "product") -> str:
    """Implementations x spec revisions, each cell the verdict; a click filters the matrix to the spec.
    An implementation per row and a spec per column, so that the grid stays as wide as its few specs
    whatever the number of implementations. One grid per group of reports/views/model.py GROUP_ORDER: the
    products' (brokers, codecs, providers), the client libraries' and the reference implementations'
    (mqconform's own code standing in: its reference codecs and mappings): a reference verdict is never
    shown among the products' (docs/verdicts.md, "What a verdict covers"), nor a client library among brokers."""
    impls = [i["name"] for i in report["implementations"] if impl_group(i) == group]
    verdicts = [v for v in report["verdicts"] if v["implementation"] in set(impls)]
    if not verdicts:
        return f"<p class=muted>{_e(NO_VERDICTS[group])}</p>"
    specs = sorted({(v["spec"], v["spec_revision"] or "") for v in verdicts})
    by = {(v["implementation"], v["spec"], v["spec_revision"] or ""): v for v in verdicts}
    out = [f'<table id="{GRID_IDS[group]}" class="grid"><tr><th>Implementation</th>'
           + "".join(f'<th data-spec="{_e(spec_key(spec, rev))}">{_e(spec)} <span class="muted">{_e(rev)}</span></th>'
                     for spec, rev in specs) + "</tr>"]
    for impl in impls:
        cells = []
        for spec, rev in specs:
            v = by.get((impl, spec, rev))
            if v is None:
                cells.append('<td class="muted" title="not run">·</td>')
                continue
            tip = f"{v.get('covers') or ''}: " + "; ".join(f"{lv}: {_counts(c)}" for lv, c in v["counts"].items())
            if v.get("coverage", {}).get("not_judged"):
                tip += f"; {len(v['coverage']['not_judged'])} MUST clause(s) not judged"
            cells.append(f'<td class="v v-{_e(v["verdict"])}" data-impl="{_e(impl)}" data-spec="{_e(spec_key(spec, rev))}" '
                         f'data-verdict="{_e(v["verdict"])}" title="{_e(tip)}">'
                         f'<a href="#compliance-matrix">{_e(VERDICT_SHORT.get(v["verdict"], v["verdict"]))}</a></td>')
        if any(c != '<td class="muted" title="not run">·</td>' for c in cells):
            out.append(f'<tr data-impl="{_e(impl)}"><th>{_e(impl)}</th>{"".join(cells)}</tr>')
    out.append("</table>")
    return "".join(out)


def filter_bar(report: dict) -> str:
    impls = [i["name"] for i in report["implementations"]]
    specs = sorted({spec_key(r["spec"], r["spec_revision"]) for r in report["matrix"]})
    opt = lambda v, label: f'<option value="{_e(v)}">{_e(label)}</option>'  # noqa: E731
    spec_sel = opt("", "every spec") + "".join(opt(s, s) for s in specs)
    level_sel = opt("", "every level") + "".join(opt(g, " / ".join(GROUP_LEVELS[g])) for g in GROUPS)
    outcome_sel = opt("", "any outcome") + "".join(opt(o, f"{o} ({SHORT[o]})") for o in OUTCOME_ORDER)
    impl_sel = opt("", "—") + "".join(opt(i, i) for i in impls)
    return (
        '<div class="filters" id="filters">'
        '<input id="filter" type="search" placeholder="Filter clauses…" aria-label="Filter clauses">'
        f'<label>Spec <select id="f-spec">{spec_sel}</select></label>'
        f'<label>Level <select id="f-level">{level_sel}</select></label>'
        f'<label title="a clause is shown when one of the shown implementations has this as its worst outcome">'
        f'Outcome <select id="f-outcome">{outcome_sel}</select></label>'
        '<label><input id="onlybad" type="checkbox"> only a fail, error or xfail</label>'
        '<label title="clauses that two or more of the shown implementations ran, with different outcomes">'
        '<input id="f-differ" type="checkbox"> only where implementations differ</label>'
        '<label title="mqconform\'s own code standing in (its reference codecs and OpenMessaging mappings): hidden '
        'until asked for, never among the products"><input id="f-ref" type="checkbox"> reference implementations</label>'
        f'<label>Side by side <select id="sbs-a" aria-label="first implementation">{impl_sel}</select></label>'
        f'<label>with <select id="sbs-b" aria-label="second implementation">{impl_sel}</select></label>'
        '<span id="sbs-note"></span><span id="shown"></span></div>'
    )


def step_text(v: dict) -> str:
    """The step that decided the row: "step 2 send, a check judging ce-amqp/x, ce-amqp/y"."""
    step, kind = v.get("failed_step"), v.get("error_kind")
    parts = []
    if step:
        where = f"step {step['index']} {step.get('action') or ''}" if step.get("index") else (step.get("action") or "")
        role = step.get("role") or ""
        judged = ", ".join(step.get("clause_ids") or [])
        parts.append(f"{where.strip()}, a {role}" + (f" judging {judged}" if judged else " (judging no clause)"))
    if kind:
        parts.append(f"not judged: {kind}")
    return "; ".join(parts)


def expected_observed(message: str | None) -> tuple[list[str], list[str]]:
    """(lines stating expected against observed, the other lines) of a row's message."""
    lines = (message or "").splitlines()
    eo = [ln for ln in lines if ln.lstrip().lower().startswith(("expected", "got ", "observed"))]
    return eo, [ln for ln in lines if ln not in eo]


def _known(v: dict) -> str:
    e = v.get("expectation")
    if not e:
        return ""
    link = e.get("link") or ""
    a = (f' <a class="bug" href="{_e(link)}" rel="noreferrer noopener" target="_blank">bug report ↗</a>'
         if link.startswith(("https://", "http://")) else "")
    what = {"fail": "known deviation", "error": "known not to be judged"}.get(e.get("outcome"), e.get("outcome"))
    return f'<div class="known"><b>{_e(what)}</b>: {_e(e.get("reason"))}{a} <span class="muted">({_e(e.get("where"))})</span></div>'


def evidence(impl: str, cell: dict) -> str:
    """One cell's evidence: a block per implementation inside a clause's drill-down, a card per vector."""
    cards = []
    for v in cell["vectors"]:
        mine = v.get("clause_outcome") or v["outcome"]
        shown = mine if mine == v["outcome"] else f"{mine} (the row: {v['outcome']})"
        eo, rest = expected_observed(v.get("message"))
        step = step_text(v)
        notes = "".join(f'<div class="note">note: {_e(n)}</div>' for n in v.get("notes") or [])
        cards.append(
            f'<div class="ev-card" data-vector="{_e(v["vector_id"])}">'
            f'<div><span class="c o-{_e(mine)} tag">{_e(shown)}</span> <code>{_e(v["vector_id"])}</code> '
            f'<span class="muted">{_e(v["level"])} · expected {_e(v["expected_outcome"])}</span></div>'
            + (f'<div class="step"><b>decided by</b> {_e(step)}</div>' if step else "")
            + (f'<div class="msg">{_e(chr(10).join(rest))}</div>' if any(x.strip() for x in rest) else "")
            + "".join(f'<div class="xo">{_e(ln)}</div>' for ln in eo)
            + notes + _known(v) + "</div>")
    return (f'<div class="ev" data-impl="{_e(impl)}"><h4>{_e(impl)}: <span class="c o-{_e(cell["worst"])} tag">'
            f'{_e(cell["worst"])}</span> <span class="muted">{_e(_counts(cell["counts"]))}</span></h4>{"".join(cards)}</div>')


def support_labels(sources: list[str]) -> list[str]:
    """What the support table says for a header's sources ("broker/mapping" when deliveries differed)."""
    return sorted({SUPPORT.get(part, (part, ""))[0] for s in sources for part in s.split("/")})


def header_support(report: dict) -> str:
    rows = report.get("header_support") or []
    if not rows:
        return "<p class=muted>No OpenMessaging rows in the latest runs.</p>"
    impls = sorted({i for r in rows for i in r["implementations"]})
    legend = "".join(f'<span class="{cls}">{_e(label)}</span>' for label, cls in dict(SUPPORT.values()).items())
    out = ["<p class=muted>Who set the value of each header the latest run checked (docs/verdicts.md, "
           "\"Who set each value\"): <b>native</b>, the broker or the product's own client library; <b>set by the "
           "mapping</b>, mqconform's OpenMessaging mapping wrote it and the broker only carried it; <b>absent</b>, "
           f"nobody; <b>consumer context</b>, read where the consumer received it.</p><p class=legend>{legend}</p>",
           '<table id="header-support-table"><tr><th>Header</th>' + "".join(f"<th>{_e(i)}</th>" for i in impls) + "</tr>"]
    for r in rows:
        cells = []
        for impl in impls:
            sources = r["implementations"].get(impl) or []
            if not sources:
                cells.append('<td class="muted" title="not checked">·</td>')
                continue
            labels = support_labels(sources)
            cls = next((c for label, c in SUPPORT.values() if [label] == labels), "")
            cells.append(f'<td class="{cls}" data-impl="{_e(impl)}" title="{_e(", ".join(sources))}">'
                         f'{_e(" / ".join(labels))}</td>')
        out.append(f'<tr data-header="{_e(r["header"])}"><td><code>{_e(r["header"])}</code></td>{"".join(cells)}</tr>')
    out.append("</table>")
    return "".join(out)


EVIDENCE_PANEL = ('<aside id="evidence" hidden aria-label="evidence"><button id="ev-close" type="button">close ✕</button>'
                  '<h3 id="ev-title"></h3><div id="ev-quote"></div><div class="cols" id="ev-cols"></div></aside>')
