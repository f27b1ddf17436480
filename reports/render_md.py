"""summary.md: the short form for CI job pages (GitHub step summary and the like)."""
from __future__ import annotations

from fixtures.verdict.levels import GROUPS, group_of

from . import render_faults, render_spread
from .markdown import code_cell, decided_by, md_cell, shorten
from .outcomes import OUTCOME_ORDER
from .render_compare import support_labels

ICON = {"conformant": "✅", "conformant-except-should": "🟡", "incomplete": "⚪", "not-applicable": "➖", "not-conformant": "❌"}
MAX_LIST = 20  # per list; the HTML report has everything
MAX_VERSION_LINES = 60  # per product in "Across versions"
MAX_EVIDENCE = 200


def outcome_counts(counts: dict) -> str:
    return ", ".join(f"{o} {counts[o]}" for o in OUTCOME_ORDER if counts.get(o)) or "—"


def coverage_cell(cov: dict) -> str:
    """"12 / 11 (of 14 testable)": testable MUST clauses that apply / judged and held; "unknown" without the
    spec's clause file."""
    return f"{cov['applying']} / {cov['judged_and_held']} (of {cov['testable']} testable)" if cov["status"] == "known" else "unknown"


def profile_cell(cell: dict) -> str:
    """A requirement's status over one protocol, with the evidence of the row that decided it."""
    if cell["status"] == "unknown" and not cell.get("evidence"):
        return "unknown"
    ev = shorten(cell.get("evidence"), 120)
    return f"**{cell['status']}**" + (f": {md_cell(ev)}" if ev else "")


def broker_profiles(profiles: list[dict]) -> list[str]:
    """## OpenMessaging broker profile: per broker, one line per requirement, a column per protocol."""
    lines = ["", "## OpenMessaging broker profile", "",
             "What each broker did for the requirements OpenMessaging puts on the server or the provider, from "
             "the provider rows over it: native (the broker did it, observed), emulated (the provider did it), "
             "absent, unknown (not observed). A broker has no OpenMessaging verdict.", ""]
    if not profiles:
        return lines + ["No provider rows with a profile."]
    for p in profiles:
        lines += [f"### {md_cell(p['broker'])}", "", f"Providers: {md_cell(', '.join(p['providers']))}", "",
                  "| Requirement | Party | " + " | ".join(md_cell(x) for x in p["protocols"]) + " |",
                  "|---|---" + "|---" * len(p["protocols"]) + "|"]
        for q in p["requirements"]:
            title = q["id"] if q.get("title") in (None, q["id"]) else f"{q['id']}: {q['title']}"
            lines.append(f"| {md_cell(title)} | {md_cell(q.get('party') or '—')} | "
                         + " | ".join(profile_cell(q["by_protocol"][x]) for x in p["protocols"]) + " |")
        lines.append("")
    return lines


def version_cell(cell: dict | None) -> str:
    """A product's vector in one column: the clause's outcome, the row's test id and its evidence."""
    if cell is None:
        return "not run"
    if not cell.get("compared", True):
        return f"*{cell['outcome']}: the spec applies to none of this version's rows*"
    ev = cell.get("evidence") or ""
    ev = ev if len(ev) <= MAX_EVIDENCE else ev[:MAX_EVIDENCE - 3] + "..."
    return f"**{cell['outcome']}** {code_cell(cell.get('test_id'))}" + (f": {md_cell(ev)}" if ev else "")


def across_versions(products: list[dict]) -> list[str]:
    """## Across versions: per product, the vectors whose outcome differs between its versions."""
    lines = ["", "## Across versions", "",
             "Per product run in two or more versions (a configuration variant is a column of its own): the "
             "vectors of a clause whose outcome differs in class between the columns that ran them (fail and "
             "xfail, pass and xpass are one), each cell the row's test id and its evidence.", ""]
    if not products:
        return lines + ["No product ran in two or more versions."]
    for p in products:
        cols = p["columns"]
        lines += [f"### {md_cell(p['product'])}: {md_cell(', '.join(c['label'] for c in cols))}", "",
                  f"{len(p['lines'])} of {p['compared']} vector(s) run by two or more columns differ.", ""]
        for c in cols:
            if c["variant"]:
                conf = "; ".join(c["configuration"]) or "(no configuration entry beyond the version's)"
                lines.append(f"- {md_cell(c['label'])}: configuration {md_cell(conf)}")
        for n in p["not_applicable"]:
            lines.append(f"- {md_cell(n['spec'])} {md_cell(n['spec_revision'] or '')} "
                         f"{'through ' + md_cell(n['lane']) + ' ' if n['lane'] else ''}applies to none of "
                         f"{md_cell(', '.join(n['columns']))} (every row not_applicable): left out there")
        if not p["lines"]:
            lines += ["", "No difference."]
            continue
        lines += ["", "| Clause | Vector | Through | " + " | ".join(md_cell(c["label"]) for c in cols) + " |",
                  "|---|---|---" + "|---" * len(cols) + "|"]
        for ln in p["lines"][:MAX_VERSION_LINES]:
            through = " ".join(x for x in (ln["lane"] or "the broker", ln["protocol"] or "") if x)
            lines.append(f"| {md_cell(ln['clause_id'])} ({md_cell(ln['level'])}) | {md_cell(ln['vector_id'])} | "
                         f"{md_cell(through)} | " + " | ".join(version_cell(ln["cells"].get(c["key"])) for c in cols) + " |")
        if len(p["lines"]) > MAX_VERSION_LINES:
            lines += ["", f"… and {len(p['lines']) - MAX_VERSION_LINES} more in index.html"]
        lines.append("")
    return lines


def _pct(rate) -> str:
    return "n/a" if rate is None else f"{rate * 100:.1f}%"


def render(report: dict) -> str:
    t = report["totals"]
    lines = ["# mqconform compliance", "",
             f"{t['implementations']} implementation(s), {t['runs']} run(s), {t['records']} record(s); "
             f"generated {report['generated']}. Full report: `index.html`.", "", "## Verdicts", ""]
    if report["verdicts"]:
        lines += ["A verdict is conformant only when every testable MUST / MUST NOT clause of the spec that applies "
                  "to the implementation was judged and held; otherwise incomplete, naming those clauses. "
                  "Covers: what the verdict is about (broker, codec, provider verdict; reference: mqconform's own "
                  "code standing in).", "",
                  "| Implementation | Version | Spec | Verdict | Covers | MUST clauses: apply / held | MUST | SHOULD | MAY |",
                  "|---|---|---|---|---|---|---|---|---|"]
        versions = {i["name"]: i["version"] for i in report["implementations"]}
        # mqconform's own code standing in (reference codecs and mappings) below the products, never among them
        reference = {i["name"] for i in report["implementations"] if i.get("role") == "reference"}
        ordered = [v for v in report["verdicts"] if v["implementation"] not in reference]
        refs = [v for v in report["verdicts"] if v["implementation"] in reference]
        for v in ordered + ([None] if refs else []) + refs:
            if v is None:
                lines += ["", "### Reference implementations (mqconform's own code, never a product)", "",
                          "| Implementation | Version | Spec | Verdict | Covers | MUST clauses: apply / held | MUST | SHOULD | MAY |",
                          "|---|---|---|---|---|---|---|---|---|"]
                continue
            groups = {g: {} for g in GROUPS}
            for level, c in v["counts"].items():
                g = groups[group_of(level)]
                for o, n in c.items():
                    g[o] = g.get(o, 0) + n
            lines.append(f"| {md_cell(v['implementation'])} | {md_cell(versions.get(v['implementation']))} | "
                         f"{md_cell(v['spec'])} {md_cell(v['spec_revision'])} | {ICON.get(v['verdict'], '')} {v['verdict']} | "
                         f"{md_cell(v['covers'])} | {coverage_cell(v['coverage'])} | "
                         f"{outcome_counts(groups['MUST'])} | {outcome_counts(groups['SHOULD'])} | {outcome_counts(groups['MAY'])} |")
        unjudged = [(v, c) for v in report["verdicts"] for c in v["coverage"]["not_judged"]]
        if unjudged:
            lines += ["", f"### MUST clauses not judged and held ({len(unjudged)})", ""]
            for v, c in unjudged[:MAX_LIST]:
                lines.append(f"- {md_cell(v['implementation'])} on {md_cell(v['spec'])} {md_cell(v['spec_revision'])}: "
                             f"{md_cell(c['clause_id'] or '(every clause)')} — {md_cell(c['why'])}")
            if len(unjudged) > MAX_LIST:
                lines.append(f"- … and {len(unjudged) - MAX_LIST} more in compliance.json")
    else:
        lines.append("No results.")
    if report.get("without_verdict"):
        lines += ["", "Rows without a verdict (a broker has an OpenMessaging profile, not a verdict; these rows judged "
                  "mqconform's mapping over it):", ""]
        for v in report["without_verdict"]:
            n = sum(sum(c.values()) for c in v["counts"].values())
            lines.append(f"- {md_cell(v['implementation'])} on {md_cell(v['spec'])} {md_cell(v['spec_revision'])}: {n} row(s)")
    lines += broker_profiles(report.get("broker_profiles") or [])
    lines += render_faults.markdown(report.get("faults") or [])
    lines += across_versions(report.get("across_versions") or [])
    lines += ["", "## Latest runs", "", "| Implementation | Run | Started | Pass rate |", "|---|---|---|---|"]
    for i in report["implementations"]:
        lines.append(f"| {md_cell(i['name'])} | {md_cell(i['run_id'])} | {md_cell(i['run_started'])} | {_pct(i['pass_rate'])} |")

    # xfail is listed too: a known deviation is still a deviation (see the verdict rules).
    failing = [(row, impl, cell) for row in report["matrix"] for impl, cell in sorted(row["cells"].items())
               if cell["worst"] in ("fail", "error", "xfail")]
    lines += ["", f"## Clauses with a fail, error or xfail ({len(failing)})", ""]
    if not failing:
        lines.append("None.")
    for row, impl, cell in failing[:MAX_LIST]:
        worst = [v for v in cell["vectors"] if (v.get("clause_outcome") or v["outcome"]) == cell["worst"]]
        how = f" ({decided_by(worst[0])})" if worst and decided_by(worst[0]) else ""
        known = (worst[0].get("expectation") or {}) if worst else {}
        link = known.get("link") or ""
        bug = f" [bug report]({link.replace(')', '%29').replace(' ', '%20')})" if link.startswith(("https://", "http://")) else ""
        why = f"; known: {md_cell(shorten(known['reason'], 160))}{bug}" if known else ""
        lines.append(f"- {md_cell(impl)}: {md_cell(row['clause_id'])} ({md_cell(row['level'])}) — {cell['worst']}{md_cell(how)}{why}")
    if len(failing) > MAX_LIST:
        lines.append(f"- … and {len(failing) - MAX_LIST} more in index.html")

    lines += render_spread.markdown(report.get("spread") or {})
    lines += ["", "## Since the previous run", ""]
    if not report["diff"]:
        lines.append("No implementation has two runs yet.")
    for d in report["diff"]:
        lines.append(f"- **{md_cell(d['implementation'])}**: {len(d['new_failures'])} new failure(s), "
                     f"{len(d['fixed'])} fixed, {len(d['changed'])} other change(s)")
        for kind in ("new_failures", "fixed"):
            for x in d[kind][:MAX_LIST]:
                lines.append(f"  - {kind.replace('_', ' ')}: {md_cell(x['vector_id'])} "
                             f"({x['before'] or 'new'} → {x['after'] or 'gone'})")
            if len(d[kind]) > MAX_LIST:
                lines.append(f"  - … and {len(d[kind]) - MAX_LIST} more")

    lines += ["", "## Flaky vectors", ""]
    if not report["flaky"]:
        lines.append("None.")
    for f in report["flaky"][:MAX_LIST]:
        q = f.get("quarantine")
        lines.append(f"- {md_cell(f['implementation'])}: {md_cell(f['vector_id'])} — score {f['score']:.2f} "
                     f"({f['changes']}/{f['pairs']})" + (f"; quarantined in the gate: {md_cell(q['reason'])}" if q else ""))
    if len(report["flaky"]) > MAX_LIST:
        lines.append(f"- … and {len(report['flaky']) - MAX_LIST} more in compliance.json")

    support = report.get("header_support") or []
    if support:
        impls = sorted({i for r in support for i in r["implementations"]})
        lines += ["", "## OpenMessaging: who set each header", "",
                  "native: the broker or the product's own client library set it; set by the mapping: mqconform's "
                  "mapping wrote it (the broker carried it); absent: nobody; consumer context: read where the "
                  "consumer received it.", "",
                  "| Header | " + " | ".join(md_cell(i) for i in impls) + " |", "|---" * (len(impls) + 1) + "|"]
        for r in support:
            lines.append(f"| {md_cell(r['header'])} | "
                         + " | ".join(md_cell(" / ".join(support_labels(r["implementations"].get(i, [])))
                                            or "·") for i in impls) + " |")
    return "\n".join(lines) + "\n"
