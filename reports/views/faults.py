"""Faults (docs/reports.md): per broker, what each fault vector counted. Plain Python over the rows both
engines hand over (reports/engine/aggregate.py `fault_rows`, reports/baseline/baseline_duckdb.py): the latest rows that
carry a `tally` (docs/results.md).

The rules:
- a row belongs to the broker its provider ran over (`implementation.provenance.broker`); a row of
  another kind, to its implementation itself;
- a line is one row: its implementation (the provider, named with its protocol and target: a
  `mqconform-om/P@T` mapping is mqconform's stand-in), its protocol, the delivery semantics and the
  fault (from the vector id `openmessaging.faults.<semantics>.<fault>`; the tally names the fault of any
  other vector), the counts, the row's outcome, and the lost and duplicated ids, at most SHOWN_IDS of each
  with how many more there are;
- the outcome is the row's verdict, which is the provider's; the broker is credited only through its
  OpenMessaging profile (reports/views/profile.py).
"""
from __future__ import annotations

from fixtures.verdict.row import TALLY_COUNTS

FAULT_FAMILY = "openmessaging.faults."
SEMANTICS = ("at-least-once", "at-most-once", "exactly-once")
FAULTS = ("restart", "kill", "pause", "cut")
SHOWN_IDS = 10   # ids named per line; the row holds them all
RUN_OPTION = "--no-faults"   # `./mqconform run` runs the fault vectors unless told this (README)


def semantics_of(vector_id: str | None) -> str | None:
    """`at-least-once` of `openmessaging.faults.at-least-once.kill`; None for a vector outside that family."""
    if not vector_id or not vector_id.startswith(FAULT_FAMILY):
        return None
    parts = vector_id[len(FAULT_FAMILY):].split(".")
    return parts[0] if len(parts) == 2 and parts[0] else None


def rank(value: str | None, order: tuple[str, ...]) -> tuple:
    return (order.index(value) if value in order else len(order), value or "")


def _shown(ids: list[str]) -> tuple[list[str], int]:
    return ids[:SHOWN_IDS], max(0, len(ids) - SHOWN_IDS)


def line_of(row: dict) -> dict:
    """One fault row as a line of the view."""
    t = row["tally"]
    lost, lost_more = _shown(t["lost_ids"])
    dup, dup_more = _shown(t["duplicated_ids"])
    return {"implementation": row["impl"], "role": row.get("role"), "protocol": row.get("protocol"),
            "vector_id": row.get("vector_id"), "semantics": semantics_of(row.get("vector_id")), "fault": t["fault"],
            **{n: t[n] for n in TALLY_COUNTS},
            "lost_ids": lost, "lost_ids_more": lost_more, "duplicated_ids": dup, "duplicated_ids_more": dup_more,
            "outcome": row["outcome"], "expected_outcome": row.get("expected_outcome"),
            "test_id": row.get("test_id"), "message": row.get("message") or ""}


def faults_view(fault_rows: list[dict]) -> list[dict]:
    """Per broker, by name: {broker, stand_in (a line is mqconform's mapping's), lines}; lines by
    implementation, protocol, semantics, fault (in SEMANTICS and FAULTS order), vector, test id.
    [] when no row has a tally (the run had no fault vectors)."""
    by_broker: dict[str, list[dict]] = {}
    for r in fault_rows:
        if r.get("tally") is None:
            continue
        broker = (r.get("broker") if r.get("kind") == "provider" else None) or r["impl"]
        by_broker.setdefault(broker, []).append(line_of(r))
    out = []
    for broker, lines in sorted(by_broker.items()):
        lines.sort(key=lambda ln: (ln["implementation"], ln["protocol"] or "", rank(ln["semantics"], SEMANTICS),
                                   rank(ln["fault"], FAULTS), ln["vector_id"] or "", ln["test_id"] or ""))
        out.append({"broker": broker, "stand_in": any(ln["role"] == "reference" for ln in lines), "lines": lines})
    return out


# What the view says above its tables, and when it is empty: one wording for both renderers.
INTRO = ("Per broker, what each fault vector counted while the fault (a restart, a kill, a pause, a cut "
         "connection) was injected with messages in flight: sent, confirmed by the broker, delivered, lost (a "
         "confirmed durable message never delivered after the fault) and duplicated (a delivery of a message "
         "already delivered and acknowledged). Each line's outcome is the verdict of the provider the row "
         "names, never the broker's: a mqconform-om/… provider is mqconform's mapping over the protocol, a "
         "stand-in for a provider. What the broker did is in its OpenMessaging broker profile.")
EMPTY = ("No row has a tally: this run had no fault vectors. The main job ({run}, {script}) runs them unless "
         "told {option}; a run of pytest alone, or of a selection without them, leaves them out.")


def empty_text(code) -> str:
    """EMPTY with the commands that run the fault vectors, each through `code` (a renderer's inline code)."""
    return EMPTY.format(run=code("./mqconform run"), script=code("bash scripts/conformance.sh"), option=code(RUN_OPTION))


def ids_text(ids: list[str], more: int) -> str:
    """The ids a line names, and how many it leaves out."""
    return ", ".join(ids) + (f" … and {more} more" if more else "")


def label(line: dict) -> str:
    """`at-least-once / kill`, or the vector id and the fault for a vector outside the faults family."""
    return f"{line['semantics']} / {line['fault']}" if line["semantics"] else f"{line['vector_id']} / {line['fault']}"
