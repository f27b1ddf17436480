"""The auditor (reports/gate/audit.py): each invariant catches the contradiction it names, seeded into
rows that are otherwise sound, and lets the sound rows through."""
from __future__ import annotations

import io
import json

import pytest

from reports.gate import audit, audit_facts
from reports.gate.audit import Row

RUN = "0" * 32
EXPIRE_OFFERED = "openmessaging.system-header.expire-time-offered"
EXPIRE_GATED = "openmessaging.system-header.expire-time"
FEATURE = "openmessaging/system-header/expire-time-optional"


@pytest.fixture(scope="module")
def ctx():
    return audit.context()


def rec(vector_id, outcome, impl="rocketmq-openmessaging-5.5.0@rocketmq-5.5.0", protocol="rocketmq-remoting",
        message="", clause_outcomes=None, role="product", kind="provider", provenance=None, set_by=None,
        spec="openmessaging", version="5.5.0"):
    return {"run_id": RUN, "run_started": "2026-11-28T18:00:00Z", "spec": spec, "vector_id": vector_id,
            "clause_ids": [], "outcome": outcome, "message": message, "protocol": protocol,
            "clause_outcomes": clause_outcomes or {}, "set_by": set_by or {},
            "implementation": {"name": impl, "kind": kind, "role": role, "version": version,
                               "provenance": provenance or {"broker": "rocketmq-5.5.0", "broker_product": "rocketmq",
                                                            "broker_version": "5.5.0"}}}


def rows(*recs):
    return [Row(r, f"results.jsonl:{n}") for n, r in enumerate(recs, 1)]


def names(breaches):
    return sorted(b.invariant for b in breaches)


def not_offered(vector_id=EXPIRE_GATED, **kw):
    return rec(vector_id, "not_applicable", message=f"binds only where the optional feature of {FEATURE} is offered "
                                                    "(...); not offered here: ...", **kw)


def test_sound_rows_pass(ctx):
    sound = rows(rec(EXPIRE_OFFERED, "pass", clause_outcomes={FEATURE: "pass"}),
                 rec(EXPIRE_GATED, "xfail", clause_outcomes={"openmessaging/system-header/expire-time-discard": "xfail"}))
    assert audit.audit(sound, ctx) == []


def test_a_feature_not_offered_is_never_failed(ctx):
    """The issue's class 1: expire-time xfail at MUST while expire-time-offered is unsupported."""
    seeded = rows(rec(EXPIRE_OFFERED, "unsupported", clause_outcomes={FEATURE: "unsupported"}),
                  rec(EXPIRE_GATED, "xfail", clause_outcomes={"openmessaging/system-header/expire-time-discard": "xfail"}))
    [b] = audit.not_offered_not_failed(seeded, ctx)
    assert b.invariant == "not-offered-not-failed" and "results.jsonl:1" in b.rows[0] and "results.jsonl:2" in b.rows[1]


def test_not_offered_by_a_gated_row_counts_too(ctx):
    seeded = rows(not_offered("openmessaging.system-header.expire-time-epoch-millis"),
                  rec(EXPIRE_GATED, "fail", clause_outcomes={"openmessaging/system-header/expire-time-discard": "fail"}))
    assert names(audit.not_offered_not_failed(seeded, ctx)) == ["not-offered-not-failed"]


def test_another_protocol_or_implementation_is_another_fact(ctx):
    apart = rows(rec(EXPIRE_OFFERED, "unsupported", protocol="amqp091", impl="mqconform-om/amqp091@x", role="reference"),
                 rec(EXPIRE_GATED, "xfail", clause_outcomes={"openmessaging/system-header/expire-time-discard": "xfail"}))
    assert audit.not_offered_not_failed(apart, ctx) == []


def test_offered_and_not_offered_contradict(ctx):
    """The issue's class 2: one row shows the feature offered, another calls it not offered."""
    seeded = rows(rec(EXPIRE_OFFERED, "pass", clause_outcomes={FEATURE: "pass"}), not_offered())
    assert names(audit.offered_or_not(seeded, ctx)) == ["offered-or-not"]


def test_one_key_one_outcome_in_any_order(ctx):
    a = rec(EXPIRE_OFFERED, "pass")
    b = rec(EXPIRE_OFFERED, "fail")
    for order in ((a, b), (b, a)):
        assert names(audit.one_outcome_per_key(rows(*order), ctx)) == ["one-outcome-per-key"]
    assert audit.one_outcome_per_key(rows(a, dict(a)), ctx) == []      # the same row twice decides the same


def test_a_reason_naming_a_fact_the_vector_does_not_require_is_refused(ctx):
    """Issue 42's forgery: failing rows rewritten as not_applicable "needs amqp_address_v1='denied'"."""
    vid = "rabbitmq-address@4.0.target-v2.null-to-missing-queue"
    endpoint = {"endpoint": "amqp://u:***@h:5672", "product": "rabbitmq", "stated_amqp_address_v1": "permitted"}
    forged = rows(rec(vid, "not_applicable", impl="mine", kind="broker", protocol="amqp10", spec="rabbitmq-address@4.0",
                      version="4.3.6", provenance=endpoint,
                      message="needs amqp_address_v1='denied'; mine has amqp_address_v1 'permitted'"))
    [b] = audit.reason_given(forged, ctx)
    assert "does not require" in b.why


def test_a_fact_reason_the_stated_fact_meets_is_refused(ctx):
    v = next(v for v in ctx.vectors.values() if isinstance(v.input.get("requires"), dict)
             and v.input["requires"].get("amqp_address_v1") == "denied")
    endpoint = {"endpoint": "amqp://u:***@h:5672", "product": "rabbitmq", "stated_amqp_address_v1": "denied"}
    r = rec(v.id, "not_applicable", impl="mine", kind="broker", protocol="amqp10", spec=v.spec, version="4.3.6",
            provenance=endpoint, message="needs amqp_address_v1='denied'; mine has amqp_address_v1 'permitted'")
    [b] = audit.reason_given(rows(r), ctx)
    assert "states amqp_address_v1='denied'" in b.why
    honest = dict(r, implementation=dict(r["implementation"], provenance=dict(endpoint, stated_amqp_address_v1="permitted")))
    assert audit.reason_given(rows(honest), ctx) == []


def test_a_reason_of_no_known_form_or_a_foreign_feature_is_refused(ctx):
    odd = rows(rec(EXPIRE_GATED, "not_applicable", message="the vendor says so"),
               rec(EXPIRE_GATED, "not_applicable",
                   message="binds only where the optional feature of openmessaging/system-header/priority-optional is offered"))
    assert names(audit.reason_given(odd, ctx)) == ["reason-given", "reason-given"]
    assert audit.reason_given(rows(not_offered()), ctx) == []


def test_a_text_reason_needs_a_text_that_does_not_describe_the_implementation(ctx):
    vid = next(v.id for v in ctx.vectors.values() if v.spec == "rabbitmq-address@4.0")
    says = "the text describes brokers rabbitmq >=4.0 (...); this is broker rabbitmq 3.10.8"
    old = rec(vid, "not_applicable", impl="rabbitmq-3.10.8", kind="broker", protocol="amqp10", spec="rabbitmq-address@4.0",
              version="3.10.8", provenance={"product": "rabbitmq"}, message=says)
    assert audit.reason_given(rows(old), ctx) == []
    forged = dict(old, implementation=dict(old["implementation"], name="rabbitmq-4.0.5", version="4.0.5"))
    assert names(audit.reason_given(rows(forged), ctx)) == ["reason-given"]


def test_a_product_never_passes_on_a_value_our_mapping_set(ctx):
    seeded = rows(rec("openmessaging.system-header.message-id-unique", "pass", set_by={"messageId": "mapping"}),
                  rec("openmessaging.system-header.message-id-unique", "pass", impl="mqconform-om/amqp091@x", role="reference",
                      set_by={"messageId": "mapping"}))
    [b] = audit.product_credit(seeded, ctx)
    assert "results.jsonl:1" in b.rows[0]


def test_the_command_names_breaches_and_exits_1(ctx, tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (rec(EXPIRE_OFFERED, "pass"), rec(EXPIRE_OFFERED, "fail"))))
    out = io.StringIO()
    assert audit.run([str(path)], out=out, ctx=ctx) == audit.EXIT_BREACH
    assert f"{path}:1" in out.getvalue() and f"{path}:2" in out.getvalue() and "one-outcome-per-key" in out.getvalue()
    path.write_text(json.dumps(rec(EXPIRE_OFFERED, "pass")) + "\n")
    assert audit.run([str(path)], out=io.StringIO(), ctx=ctx) == audit.EXIT_OK


def test_an_invalid_record_is_a_usage_error_naming_its_line(ctx, tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text(json.dumps(rec(EXPIRE_OFFERED, "pass")) + "\n{\"run_id\": 1}\n" + json.dumps(rec(EXPIRE_OFFERED, "pass")) + "\n")
    err = io.StringIO()
    assert audit.run([str(path)], out=io.StringIO(), err=err, ctx=ctx) == audit.EXIT_USAGE
    assert f"{path}:2" in err.getvalue()


def test_a_receiver_vector_citing_a_senders_may_says_nothing_of_it(ctx):
    """A codec that does not repeat the binary-mode properties in structured mode (unsupported, MAY)
    and reads a message that does (pass) offers and lacks nothing: the MAY is no gated feature."""
    both = rows(rec("ce-amqp.structured.decode-disagreeing-properties", "pass", impl="sdk", kind="codec",
                    protocol=None, spec="ce-amqp"),
                rec("ce-amqp.structured.application-properties-agree", "unsupported", impl="sdk", kind="codec",
                    protocol=None, spec="ce-amqp"))
    assert audit.audit(both, ctx) == []


def test_a_reason_of_users_not_made_needs_a_vector_with_users_and_an_endpoint(ctx):
    with_users = next(v for v in ctx.vectors.values() if v.input.get("users"))
    without = next(v for v in ctx.vectors.values() if v.spec == with_users.spec and not v.input.get("users"))
    says = ("needs a user with chosen permissions; mine is an endpoint and the certifier did not allow the suite to "
            "make users there (--allow-users)")
    endpoint = {"endpoint": "amqp://u:***@h:5672", "product": "rabbitmq"}
    row = lambda vid, prov: rec(vid, "not_applicable", impl="mine", kind="broker", protocol="amqp10",  # noqa: E731
                                spec=with_users.spec, version="4.3.6", provenance=prov, message=says)
    assert audit.reason_given(rows(row(with_users.id, endpoint)), ctx) == []
    assert names(audit.reason_given(rows(row(without.id, endpoint)), ctx)) == ["reason-given"]
    assert names(audit.reason_given(rows(row(with_users.id, {"product": "rabbitmq"})), ctx)) == ["reason-given"]


def test_a_protocol_not_offered_must_be_the_vectors_and_one_the_target_lacks(ctx):
    """An endpoint that speaks only AMQP 0-9-1 gets not_applicable rows for the AMQP 1.0 vectors
    (fixtures/plugin/targets.py `broker`); a row claiming so where the target offers AMQP 1.0 is forged."""
    v = next(v for v in ctx.vectors.values() if v.spec == "rabbitmq-address@4.0" and v.kind == "behaviour")
    says = "mine does not offer amqp10, which this vector speaks (the protocols it offers: amqp091)"
    prov = {"endpoint": "amqp://u:***@h:5672", "protocols": "amqp091"}
    row = lambda prov, message=says: rec(v.id, "not_applicable", impl="mine", kind="broker",  # noqa: E731
                                         protocol="amqp10", spec=v.spec, version="4.3.6", provenance=prov,
                                         message=message)
    assert audit.reason_given(rows(row(prov)), ctx) == []
    [b] = audit.reason_given(rows(row({**prov, "protocols": "amqp091,amqp10"})), ctx)
    assert "provenance says it offers amqp091,amqp10" in b.why
    [b] = audit.reason_given(rows(row(prov, says.replace("amqp10,", "amqp091,"))), ctx)
    assert "speaks amqp10" in b.why


def test_an_error_names_its_kind_and_what_broke(ctx):
    v = next(v for v in ctx.vectors.values() if v.spec == "rabbitmq-address@4.0" and v.kind == "behaviour")
    ok = rec(v.id, "error", impl="mine", kind="broker", protocol="amqp10", spec=v.spec, message="setup: refused")
    ok["error_kind"] = "precondition"
    assert audit.reason_given(rows(ok), ctx) == []
    assert names(audit.reason_given(rows(dict(ok, error_kind=None), dict(ok, message="")), ctx)) == \
        ["reason-given", "reason-given"]


DC_PRESENT = "openmessaging.system-header.delivery-count-present"
DC_REQUIRED = "openmessaging/system-header/delivery-count-required"


def _dc_record(protocol, set_by, unavailable=None):
    value = {"got": 0, "want": {"$absent": True}, "set_by": set_by, "note": None}
    return {"kind": "om-message", "protocol": protocol, "product": "rabbitmq", "target": "rabbitmq-4.3.6",
            "role": "reference", "complete": True, "sent_headers": [], "unavailable": unavailable or {},
            "deliveries": [{"sent": {"message_id": "m", "called_ms": 1, "returned_ms": 2}, "received_ms": 3,
                            "message_id": "m", "values": {"header.deliveryCount": value}}]}


def _over(protocol, outcome, n):
    r = rec(DC_PRESENT, outcome, impl=f"mqconform-om/{protocol}@rabbitmq-4.3.6", protocol=protocol, role="reference",
            clause_outcomes={DC_REQUIRED: outcome})
    r["test_id"] = f"t::{n}"
    return r


@pytest.mark.parametrize("set_by,unavailable,breach", [
    ("broker", None, True),                    # the broker's own value, failed over one protocol only
    ("by-protocol", None, True),               # stated by the protocol's definition: still the broker's
    ("mapping", None, False),                  # our mapping's reading over that protocol: not the broker's fact
    ("nobody", {"deliveryCount": "no field"}, False),   # the protocol has no field for it
])
def test_one_broker_fact_gets_one_verdict_over_every_protocol(ctx, set_by, unavailable, breach):
    """Issue 41 class 6: no counter on a first delivery, xfail over one protocol and pass over the other."""
    seeded = rows(_over("amqp10", "pass", 1), _over("amqp091", "xfail", 2))
    ctx.observations = {(RUN, "t::1"): _dc_record("amqp10", "by-protocol"),
                        (RUN, "t::2"): _dc_record("amqp091", set_by, unavailable)}
    try:
        found = audit_facts.one_fact_per_broker(seeded, ctx)
    finally:
        ctx.observations = {}
    assert names(found) == (["one-fact-per-broker"] if breach else []), [b.shown() for b in found]
    if breach:
        assert "held over amqp10, failed over amqp091" in found[0].why
