"""A small run for the Compare brokers view (reports/views/compare_brokers.py), as the engines hand it to the model
(reports/views/model.py Aggregates) plus the measurements beside its results. What the tests check follows from
this by hand; change both together.

Brokers: acme 1.0, acme 2.0, acme 2.0 with the variant `fast` (a configuration), zeta 3.0. Over acme 2.0 and
its variant, mqconform's mappings (role reference); over zeta 3.0, a product's own provider. Besides, a
product codec and mqconform's reference codec: neither is a broker.
"""
from __future__ import annotations

from fixtures.measurements.tables import crossproto_tables, transit_tables
from reports.views import model

RUN = "b" * 32
SPEC, REV = "acme-address@2.0", "2.0"
CLAUSE = f"{SPEC}/names"
CLAUSES = {CLAUSE: {"spec": SPEC, "spec_revision": REV, "level": "MUST", "quote": "Names MUST be encoded."}}


def broker(name, version, variant="", deviations="guest may log in (tests)", product="acme"):
    return {"name": name, "kind": "broker", "role": "product", "version": version,
            "provenance": {"product": product, "version": version, "variant": variant, "config.deviations": deviations}}


def provider(name, broker_name, version, protocol, role="reference", variant="", product="acme"):
    return {"name": name, "kind": "provider", "role": role, "version": "0.1.0",
            "provenance": {"broker": broker_name, "broker_product": product, "broker_version": version,
                           "broker_variant": variant, "protocol": protocol}}


IDENTITIES = [
    broker("acme-1.0", "1.0"), broker("acme-2.0", "2.0"),
    broker("acme-2.0+fast", "2.0", "fast", "guest may log in (tests) | fast.path = on (the fast half)"),
    broker("zeta-3.0", "3.0", product="zeta"),
    provider("mqconform-om/amqp091@acme-2.0", "acme-2.0", "2.0", "amqp091"),
    provider("mqconform-om/amqp10@acme-2.0", "acme-2.0", "2.0", "amqp10"),
    provider("mqconform-om/amqp091@acme-2.0+fast", "acme-2.0+fast", "2.0", "amqp091", variant="fast"),
    provider("zeta-om-3.0@zeta-3.0", "zeta-3.0", "3.0", "zeta-wire", role="product", product="zeta"),
    {"name": "mqconform-reference", "kind": "codec", "role": "reference", "version": "0.1.0", "provenance": {}},
    {"name": "acme-codec", "kind": "codec", "role": "product", "version": "9.9", "provenance": {}},
]


def vec(vector_id, outcome, impl):
    return {"vector_id": vector_id, "test_id": f"suites/t.py::test[{vector_id}::{impl}]", "level": "MUST",
            "outcome": outcome, "clause_outcome": outcome, "expected_outcome": "pass", "message": f"{vector_id}: {outcome}",
            "failed_step": None, "error_kind": None, "notes": [], "protocol": "amqp10"}


def cell(impl, clause, spec, revision, vectors):
    worst = max((v["outcome"] for v in vectors), key=lambda o: ["pass", "not_applicable", "fail"].index(o))
    counts: dict[str, int] = {}
    for v in vectors:
        counts[v["outcome"]] = counts.get(v["outcome"], 0) + 1
    return {"spec": spec, "spec_revision": revision, "clause_id": clause, "impl": impl, "worst": worst,
            "counts": counts, "levels": ["MUST"], "vectors": vectors}


def cells() -> list[dict]:
    """The address spec (the brokers' own verdict) and acme-core, whose two vectors changed between versions:
    1.0 fails v1 and passes v2; 2.0 the reverse; 2.0 fast passes both."""
    out = [cell(b, CLAUSE, SPEC, REV, [vec("addr.names", o, b)])
           for b, o in (("acme-1.0", "not_applicable"), ("acme-2.0", "pass"), ("acme-2.0+fast", "pass"),
                        ("zeta-3.0", "not_applicable"))]
    for b, v1, v2 in (("acme-1.0", "fail", "pass"), ("acme-2.0", "pass", "fail"), ("acme-2.0+fast", "pass", "pass")):
        out.append(cell(b, "acme-core/1", "acme-core", "1", [vec("core.v1", v1, b)]))
        out.append(cell(b, "acme-core/2", "acme-core", "1", [vec("core.v2", v2, b)]))
    return out


def level_counts() -> list[dict]:
    def lc(impl, spec, revision, outcome, n=1):
        return {"impl": impl, "spec": spec, "spec_revision": revision, "level": "MUST", "outcome": outcome, "n": n}
    return [lc("acme-1.0", SPEC, REV, "not_applicable"), lc("acme-2.0", SPEC, REV, "pass"),
            lc("acme-2.0+fast", SPEC, REV, "pass"), lc("zeta-3.0", SPEC, REV, "not_applicable"),
            lc("acme-1.0", "acme-old", "1", "not_applicable"),              # applies to no broker: no row
            lc("mqconform-om/amqp091@acme-2.0", "openmessaging", "0.3.0", "fail"),
            lc("mqconform-om/amqp10@acme-2.0", "openmessaging", "0.3.0", "pass"),
            lc("mqconform-om/amqp091@acme-2.0+fast", "openmessaging", "0.3.0", "fail"),
            lc("zeta-om-3.0@zeta-3.0", "openmessaging", "0.3.0", "fail"),
            lc("mqconform-reference", "ce-amqp", "1.0.3-wip", "pass"), lc("acme-codec", "ce-amqp", "1.0.3-wip", "fail")]


def profile_rows() -> list[dict]:
    def pr(broker_name, protocol, requirement, status, impl, evidence=""):
        return {"broker": broker_name, "protocol": protocol, "requirement": requirement, "status": status, "n": 1,
                "impl": impl, "role": "reference" if impl.startswith("mqconform-om/") else "product",
                "vector_id": f"om.{requirement}", "evidence": evidence or f"{requirement} on {broker_name}: {status}"}
    a91, a10, fast = "mqconform-om/amqp091@acme-2.0", "mqconform-om/amqp10@acme-2.0", "mqconform-om/amqp091@acme-2.0+fast"
    return [pr("acme-2.0", "amqp091", "priority", "emulated", a91), pr("acme-2.0", "amqp10", "priority", "native", a10),
            pr("acme-2.0", "amqp091", "store-timestamp", "absent", a91),
            pr("acme-2.0", "amqp10", "store-timestamp", "absent", a10),
            pr("acme-2.0+fast", "amqp091", "store-timestamp", "native", fast),
            pr("zeta-3.0", "zeta-wire", "priority", "native", "zeta-om-3.0@zeta-3.0")]


REQUIREMENTS = [{"id": "store-timestamp", "title": "the server stamps a stored message", "quote": None, "party": "server"},
                {"id": "priority", "title": "expedited messages go first", "quote": None, "party": "provider"},
                {"id": "durability", "title": "a PERSISTENT message is kept", "quote": None, "party": "provider"}]


def tally(fault, confirmed=20, delivered=20, lost=0, duplicated=0):
    return {"fault": fault, "sent": 20, "confirmed": confirmed, "delivered": delivered, "lost": lost,
            "duplicated": duplicated, "lost_ids": [f"m{i}" for i in range(lost)], "duplicated_ids": ["m1"] * duplicated}


def fault_rows() -> list[dict]:
    def fr(impl, broker_name, protocol, semantics, t, outcome):
        return {"impl": impl, "kind": "provider", "role": "reference", "broker": broker_name, "protocol": protocol,
                "vector_id": f"openmessaging.faults.{semantics}.{t['fault']}", "test_id": f"t[{impl}]",
                "outcome": outcome, "expected_outcome": "pass", "message": "", "tally": t}
    return [fr("mqconform-om/amqp091@acme-2.0", "acme-2.0", "amqp091", "at-least-once",
               tally("kill", confirmed=18, delivered=8, lost=12), "fail"),
            fr("mqconform-om/amqp10@acme-2.0", "acme-2.0", "amqp10", "at-least-once", tally("kill"), "pass"),
            fr("mqconform-om/amqp091@acme-2.0", "acme-2.0", "amqp091", "at-most-once",
               tally("restart", delivered=21, duplicated=1), "fail"),
            fr("zeta-om-3.0@zeta-3.0", "zeta-3.0", "zeta-wire", "at-least-once", tally("kill"), "pass")]


def transit_rows() -> list[dict]:
    """ce-amqp through acme 1.0 (one of two messages changed), acme 2.0 (both kept), zeta (one not delivered)."""
    def tr(target, vector, delivered=True, changes=(), spec="ce-amqp", protocol="amqp10"):
        row = {"target": target, "spec": spec, "protocol": protocol, "vector_id": vector, "sent": True,
               "delivered": delivered, "run_id": RUN}
        return {**row, "changes": list(changes), "satisfies_vector": not changes} if delivered else {**row, "why": "refused"}
    return [tr("acme-1.0", "ce.a"), tr("acme-1.0", "ce.b", changes=["header order"]),
            tr("acme-2.0", "ce.a"), tr("acme-2.0", "ce.b"),
            tr("zeta-3.0", "ce.z", spec="ce-zeta", protocol="zeta-wire"),
            tr("zeta-3.0", "ce.y", delivered=False, spec="ce-zeta", protocol="zeta-wire")]


def crossing_rows() -> list[dict]:
    """acme 2.0 from 1.0 to 0-9-1: binary keeps one attribute and truncates a timestamp; structured reads back."""
    base = {"target": "acme-2.0", "direction": "amqp10->amqp091", "run_id": RUN, "delivered": True,
            "body": "kept", "content_type": "kept", "added": []}
    return [{**base, "vector_id": "ce.a", "mode": "binary",
             "fields": {"cloudEvents_id": "kept", "cloudEvents_time": "changed timestamp:truncated to seconds -> timestamp"}},
            {**base, "vector_id": "ce.s", "mode": "structured", "fields": {}, "event_equal": True}]


def measurements() -> dict:
    return {"transit": transit_tables(transit_rows()), "cross_protocol": crossproto_tables(crossing_rows())}


def aggregates() -> model.Aggregates:
    runs = [{"impl": i["name"], "run_id": RUN, "run_started": "2026-11-29T10:00:00Z", "run_us": 1, "kind": i["kind"],
             "version": i["version"], "vectors_digest": "d", "suite_version": "0.1.0", "counts": {"pass": 1}}
            for i in IDENTITIES]
    return model.Aggregates(runs=runs, cells=cells(), level_counts=level_counts(), profile_rows=profile_rows(),
                            fault_rows=fault_rows(), identities=[{"impl": i["name"], "implementation": i} for i in IDENTITIES])


def report(with_measurements: bool = True, with_faults: bool = True) -> dict:
    agg = aggregates()
    if not with_faults:
        agg.fault_rows = []
    return model.build_report(agg, CLAUSES, generated="2026-11-29T10:00:00Z", requirements=REQUIREMENTS,
                              measurements=measurements() if with_measurements else None)
