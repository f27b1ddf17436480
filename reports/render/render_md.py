"""summary.md: the short form for CI job pages (GitHub step summary and the like): the verdicts, the brokers
compared and the failures, in a few tens of kilobytes; everything else is in index.html, which it names.
Lists are cut at MAX_LIST lines, saying how many more index.html has."""
from __future__ import annotations

from fixtures.verdict.levels import GROUPS, group_of

from ..rows.outcomes import OUTCOME_ORDER
from ..views.model import impl_group
from . import render_compare_brokers, render_spread, render_witnesses
from .markdown import decided_by, md_cell, shorten

ICON = {"conformant": "✅", "conformant-except-should": "🟡", "incomplete": "⚪", "not-applicable": "➖", "not-conformant": "❌"}
MAX_LIST = 20  # per list; the HTML report has everything
MAX_UNJUDGED = 10  # MUST clauses not judged and held, listed
MAX_REASON = 100   # characters of an expectation's reason beside a failing clause
# What index.html holds that summary.md leaves out, said at the top.
ELSEWHERE = ("each clause's evidence (the compliance matrix), the OpenMessaging broker profiles, the faults per "
             "broker, the measurements of CloudEvents through brokers, across versions, who set each header, "
             "the latest runs")


def outcome_counts(counts: dict) -> str:
    return ", ".join(f"{o} {counts[o]}" for o in OUTCOME_ORDER if counts.get(o)) or "—"


def coverage_cell(cov: dict) -> str:
    """"12 / 11 (of 14 testable)": testable MUST clauses that apply / judged and held; "unknown" without the
    spec's clause file."""
    return f"{cov['applying']} / {cov['judged_and_held']} (of {cov['testable']} testable)" if cov["status"] == "known" else "unknown"


def render(report: dict) -> str:
    t = report["totals"]
    lines = ["# mqconform compliance", "",
             f"{t['implementations']} implementation(s), {t['runs']} run(s), {t['records']} record(s); "
             f"generated {report['generated']}. Here: the brokers compared, the verdicts and the failures. In "
             f"`{render_compare_brokers.REPORT_PAGE}` beside this file: everything, with {ELSEWHERE}."]
    lines += render_compare_brokers.markdown(report)
    lines += ["", "## Verdicts", ""]
    if report["verdicts"]:
        lines += ["A verdict is conformant only when every testable MUST / MUST NOT clause of the spec that applies "
                  "to the implementation was judged and held; otherwise incomplete, naming those clauses. "
                  "Covers: what the verdict is about (broker, codec, provider verdict; reference: mqconform's own "
                  "code standing in).", "",
                  *VERDICT_HEAD]
        versions = {i["name"]: i["version"] for i in report["implementations"]}
        # mqconform's own code standing in (reference codecs and mappings) is never among the products: its
        # verdicts are in Compare brokers' table of reference implementations above, and in index.html; the client
        # libraries are a table of their own, never among brokers or SDKs (reports/views/model.py GROUP_ORDER)
        group = {i["name"]: impl_group(i) for i in report["implementations"]}
        reference = {name for name, g in group.items() if g == "reference"}
        lines += [_verdict_line(v, versions) for v in report["verdicts"] if group.get(v["implementation"]) == "product"]
        clients = [v for v in report["verdicts"] if group.get(v["implementation"]) == "client-library"]
        if clients:
            lines += ["", "### Client libraries (judged on the client's clauses)", "", *VERDICT_HEAD]
            lines += [_verdict_line(v, versions) for v in clients]
        refs = [v for v in report["verdicts"] if v["implementation"] in reference]
        if refs:
            counts: dict[str, int] = {}
            for v in refs:
                counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
            lines += ["", f"Reference implementations (mqconform's own code, never a product): {len(refs)} verdict(s), "
                      + ", ".join(f"{n} {verdict}" for verdict, n in sorted(counts.items()))
                      + "; by broker in Compare brokers above, each in index.html."]
        lines += _other_configurations(report["verdicts"])
        unjudged = [(v, c) for v in report["verdicts"] if v["implementation"] not in reference
                    for c in v["coverage"]["not_judged"]]
        if unjudged:
            lines += ["", f"### MUST clauses not judged and held, products ({len(unjudged)})", ""]
            for v, c in unjudged[:MAX_UNJUDGED]:
                lines.append(f"- {md_cell(v['implementation'])} on {md_cell(v['spec'])} {md_cell(v['spec_revision'])}: "
                             f"{md_cell(c['clause_id'] or '(every clause)')} — {md_cell(c['why'])}")
            if len(unjudged) > MAX_UNJUDGED:
                lines.append(f"- … and {len(unjudged) - MAX_UNJUDGED} more in index.html (Verdicts)")
    else:
        lines.append("No results.")
    if report.get("without_verdict"):
        lines += ["", "Rows without a verdict (a broker has an OpenMessaging profile, not a verdict; these rows judged "
                  "mqconform's mapping over it):", ""]
        for v in report["without_verdict"]:
            n = sum(sum(c.values()) for c in v["counts"].values())
            lines.append(f"- {md_cell(v['implementation'])} on {md_cell(v['spec'])} {md_cell(v['spec_revision'])}: {n} row(s)")
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
        why = f"; known: {md_cell(shorten(known['reason'], MAX_REASON))}{bug}" if known else ""
        lines.append(f"- {md_cell(impl)}: {md_cell(row['clause_id'])} ({md_cell(row['level'])}) — {cell['worst']}{md_cell(how)}{why}")
    if len(failing) > MAX_LIST:
        lines.append(f"- … and {len(failing) - MAX_LIST} more in index.html")

    lines += render_spread.markdown(report.get("spread") or {})
    lines += render_witnesses.markdown(report.get("two_clients"))
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

    return "\n".join(lines) + "\n"


VERDICT_HEAD = ("| Implementation | Version | Spec | Verdict | Covers | MUST clauses: apply / held | MUST | SHOULD | MAY |",
                "|---|---|---|---|---|---|---|---|---|")


def _verdict_line(v: dict, versions: dict) -> str:
    groups: dict[str, dict[str, int]] = {g: {} for g in GROUPS}
    for level, c in v["counts"].items():
        g = groups[group_of(level)]
        for o, n in c.items():
            g[o] = g.get(o, 0) + n
    return (f"| {md_cell(v['implementation'])} | {md_cell(versions.get(v['implementation']))} | "
            f"{md_cell(v['spec'])} {md_cell(v['spec_revision'])} | {ICON.get(v['verdict'], '')} {v['verdict']} | "
            f"{md_cell(v['covers'])} | {coverage_cell(v['coverage'])} | "
            f"{outcome_counts(groups['MUST'])} | {outcome_counts(groups['SHOULD'])} | {outcome_counts(groups['MAY'])} |")


def _other_configurations(verdicts: list[dict]) -> list[str]:
    """### A broker's clauses judged in its other configurations: for each broker verdict, the MUST
    clauses not_applicable in this configuration that another configuration of the same broker judged
    (reports/views/model.py `_other_configurations`)."""
    out = []
    for v in verdicts:
        halves = v["coverage"].get("other_configurations") or []
        if not halves:
            continue
        by: dict[str, dict[str, list[str]]] = {}
        for h in halves:
            by.setdefault(h["implementation"], {}).setdefault(h["outcome"], []).append(h["clause_id"])
        said = "; ".join(f"{md_cell(impl)}: " + ", ".join(f"{len(ids)} {o}" for o, ids in sorted(got.items()))
                         for impl, got in sorted(by.items()))
        out.append(f"- {md_cell(v['implementation'])} on {md_cell(v['spec'])} {md_cell(v['spec_revision'])}: "
                   f"{len({h['clause_id'] for h in halves})} MUST clause(s) not applicable in this configuration, "
                   f"judged in {said}")
    if not out:
        return []
    return ["", "### A broker's clauses judged in its other configurations", "",
            "A conditional clause (e.g. amqp_address_v1 permitted or denied) is judged half in one catalog "
            "configuration of a broker and half in another: a product's verdict is read with both.", ""] + out
