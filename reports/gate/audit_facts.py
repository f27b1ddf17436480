"""one-fact-per-broker: one broker fact gets one verdict, whatever the protocol it is seen over.

The rule kept: mqconform's reference providers (`mqconform-om/<protocol>@<broker>`) see one broker
through several protocols. Where one protocol's row holds a clause of a vector and another
protocol's row fails it, the failing row must rest on something other than the broker: a value
mqconform's mapping, a client library or nobody set, a header the protocol gives no field, what the
reference provider lacks (the protocol's own definition, which the row's message and record say).
A failure whose every value the broker produced (set by the broker, or stated by its protocol's
definition, `by-protocol`; or a scenario's observation of the broker's behaviour) is the broker's
fact, and the same broker cannot both hold and fail it: a breach naming both rows.

A failure is taken as the broker's only when every check judging the failed clause read the
broker's values in the row's record (`<results>.openmessaging-observations.jsonl`); a row with no
record, or a record not complete, is not the broker's fact (nothing to compare it with).
"""
from __future__ import annotations

from collections import defaultdict

from .audit_model import FAILED, Breach, Context, Row

BROKERS_OWN = frozenset({"broker", "by-protocol"})


def _checks(vector, clause: str) -> list[dict]:
    return [c for c in vector.expect.get("checks") or () if clause in (c.get("judges") or vector.clauses)]


def broker_fact(record: dict | None, vector, clause: str) -> bool:
    """Does the row's failure of `clause` rest only on what the broker produced (module docstring)?"""
    checks = _checks(vector, clause)
    if record is None or not record.get("complete") or not checks:
        return False
    if record.get("kind") == "om-not-carried":
        return False                    # what was not carried is the message as the provider's mapping encoded it
    if record.get("kind") == "om-scenario":
        sources, lacks = record.get("sources") or {}, set(record.get("lacks") or ()) | set(record.get("unobserved") or ())
        for c in checks:
            name = c["of"].split(".", 1)[1]
            if name in lacks or (name in sources and not set(sources[name][1]) <= BROKERS_OWN):
                return False
        return True
    unavailable = record.get("unavailable") or {}
    for c in checks:
        subject = c["of"]
        if not subject.startswith("header."):
            continue                    # the application's value, which the broker carried (or did not)
        if subject[7:] in unavailable:
            return False
        for d in record.get("deliveries") or ():
            v = d["values"].get(subject)
            if v is None or v.get("set_by") not in BROKERS_OWN:
                return False
    return True


def one_fact_per_broker(rows: list[Row], ctx: Context) -> list[Breach]:
    groups: dict[tuple, list[Row]] = defaultdict(list)
    for r in rows:
        impl = r.rec["implementation"]
        if impl.get("role") == "reference" and impl.get("kind") == "provider" and "@" in impl["name"] \
                and r.rec["vector_id"] in ctx.vectors:
            groups[(r.rec["run_id"], r.rec["vector_id"], impl["name"].split("@", 1)[1])].append(r)
    out = []
    for (_, vid, broker), group in groups.items():
        vector = ctx.vectors[vid]
        for clause in sorted({c for r in group for c in r.rec.get("clause_outcomes") or {}}):
            held = [r for r in group if (r.rec.get("clause_outcomes") or {}).get(clause) in ("pass", "xpass")]
            failed = [r for r in group if (r.rec.get("clause_outcomes") or {}).get(clause) in FAILED
                      and broker_fact(ctx.observations.get((r.rec["run_id"], r.rec.get("test_id"))), vector, clause)]
            if held and failed:
                out.append(Breach("one-fact-per-broker", tuple(r.shown() for r in held + failed),
                                  f"{clause} on {broker}: held over {', '.join(r.rec.get('protocol') or '?' for r in held)}, "
                                  f"failed over {', '.join(r.rec.get('protocol') or '?' for r in failed)} on values the "
                                  "broker produced, with no protocol definition or party of ours that differs"))
    return out
