"""The OpenMessaging broker profile (reports/views/profile.py) in index.html: per broker a <details> (id
`profile-BROKER`), one line per requirement (id `profile-BROKER-REQUIREMENT`: the anchors Compare brokers
links to), a column per protocol with the status and the evidence of the row that decided it."""
from __future__ import annotations

from html import escape

from ..views.compare_brokers import RANK, anchor

PROFILE_CLASS = {"native": "o-pass", "emulated": "o-xpass", "partial": "o-xpass", "absent": "o-fail", "unknown": "o-none"}
INTRO = ("<p class=muted>What each broker did for the requirements OpenMessaging puts on the server or the "
         "provider, from the rows of every provider over it (reference and product): native (the broker did "
         "it, observed), emulated (the provider did it), partial (one of its separate behaviours seen, another "
         "not), absent (nobody did, or it was checked and not seen), "
         "unknown (not observed). A broker has no OpenMessaging verdict.</p>")


def _e(value) -> str:
    return escape("" if value is None else str(value), quote=True)


def _tally(p: dict) -> str:
    """"12 native, 2 emulated, 5 absent, 1 unknown": a broker's requirements by their strongest status."""
    counts: dict[str, int] = {}
    for q in p["requirements"]:
        best = min((c["status"] for c in q["by_protocol"].values()), key=lambda s: RANK.get(s, len(RANK)), default="unknown")
        counts[best] = counts.get(best, 0) + 1
    return ", ".join(f"{counts[s]} {s}" for s in RANK if counts.get(s))


def html(report: dict) -> str:
    """Per broker: one line per requirement, a column per protocol: the status and its evidence."""
    profiles = report.get("broker_profiles") or []
    if not profiles:
        return INTRO + "<p class=muted>No provider rows with a profile.</p>"
    out = [INTRO]
    for p in profiles:
        out.append(f'<details class="profile" id="{_e(anchor("profile", p["broker"]))}" data-broker="{_e(p["broker"])}">'
                   f'<summary><b>{_e(p["broker"])}</b>: {_e(_tally(p))}</summary>'
                   f'<p class=muted>providers: {_e(", ".join(p["providers"]))}</p>'
                   "<table><tr><th>Requirement</th><th>Party</th>"
                   + "".join(f"<th>{_e(x)}</th>" for x in p["protocols"]) + "</tr>")
        for q in p["requirements"]:
            quote = f'<blockquote>{_e(q["quote"])}</blockquote>' if q.get("quote") else ""
            title = "" if q.get("title") in (None, q["id"]) else f" {_e(q['title'])}"
            cells = []
            for x in p["protocols"]:
                c = q["by_protocol"][x]
                by = f' <span class=muted>({_e(c["implementation"])} {_e(c["vector_id"])})</span>' if c.get("implementation") else ""
                cells.append(f'<td class="{PROFILE_CLASS.get(c["status"], "o-none")}" data-status="{_e(c["status"])}">'
                             f'<b>{_e(c["status"])}</b><div class="msg">{_e(c.get("evidence") or "")}{by}</div></td>')
            out.append(f'<tr id="{_e(anchor("profile", p["broker"], q["id"]))}" data-requirement="{_e(q["id"])}">'
                       f'<td><code>{_e(q["id"])}</code>{title}{quote}</td>'
                       f'<td>{_e(q.get("party") or "—")}</td>{"".join(cells)}</tr>')
        out.append("</table></details>")
    return "".join(out)
