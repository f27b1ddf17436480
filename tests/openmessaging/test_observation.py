"""Observe, then judge: an OpenMessaging message row's record (fixtures/openmessaging/observation.py)
holds what the judge (checks.py) needs, so the row is judged again from it alone, without a broker,
and the auditor refuses a row whose outcome its record does not give."""
from __future__ import annotations

import json
import math

import pytest

from fixtures.openmessaging import observation, runner
from fixtures.openmessaging.judge import ABSENT
from fixtures.openmessaging.model import OMValue
from fixtures.verdict.verdicts import decide
from reports.gate import audit

from .test_runner import FakeBinding, FakeLive


@pytest.mark.parametrize("value", [
    ABSENT, None, "text", 0, -(2 ** 63), True, b"\x00\xff", 1.5, -0.0, math.inf,
    OMValue("Float", -0.0), OMValue("Double", 2.5), OMValue("Binary", b"\x01"), OMValue("Long", 2 ** 63 - 1),
    OMValue("KeyValue", {"a": OMValue("String", "x"), "b": OMValue("Short", -1)}), {"k": OMValue("Integer", 7)},
])
def test_values_survive_the_record(value):
    back = observation.decode(json.loads(json.dumps(observation.encode(value))))
    if isinstance(value, OMValue):
        assert isinstance(back, OMValue) and value.same_content(back)
    elif isinstance(value, float):
        assert math.copysign(1, back) == math.copysign(1, value) and back == value
    else:
        assert back == value or back is value


def test_nan_keeps_its_bits():
    nan = OMValue("Double", float("nan"))
    assert nan.same_content(observation.decode(json.loads(json.dumps(observation.encode(nan)))))


def _run(om_vectors, monkeypatch, vid, **kw):
    """(the row's verdict from the run, the record the run wrote)."""
    vector = next(v for v in om_vectors.vectors if v.id == vid)
    monkeypatch.setattr(runner, "open_binding", lambda live_, p, mapping=None: FakeBinding(live_, p, **kw))
    try:
        _, found = runner.run_vector(vector, FakeLive("fakemq"), "amqp091", om_vectors.registry)
        return decide(vector, om_vectors.registry, None, found), found.observation
    except Exception as exc:  # noqa: BLE001 - the verdict of what the runner raised
        return decide(vector, om_vectors.registry, exc), getattr(getattr(exc, "findings", None), "observation", None)


def _ctx(om_vectors):
    return audit.Context({v.id: v for v in om_vectors.vectors}, om_vectors.registry)


CASES = [
    ("openmessaging.system-header.message-id-unique", {}),                        # pass
    ("openmessaging.system-header.correlation-id", {"strip": {"correlationId"}}),   # MAY not shown: unsupported
    ("openmessaging.system-header.store-timestamp", {}),                          # a value the broker did not set
    ("openmessaging.system-header.store-timestamp", {"broker_headers": {"storeTimestamp": 1}}),  # set, out of range
    ("openmessaging.type-system.keyvalue-properties", {}),
    ("openmessaging.message-format.four-parts", {"strip": {"version"}}),
]


@pytest.mark.parametrize("vid,kw", CASES)
def test_a_row_is_judged_again_from_its_record_alone(om_vectors, monkeypatch, vid, kw):
    verdict, record = _run(om_vectors, monkeypatch, vid, **kw)
    assert record is not None and record["kind"] == observation.KIND, verdict.message
    record = json.loads(json.dumps(record))                    # as the sidecar keeps it
    if not record.get("complete"):
        pytest.skip(f"decided before sending: {verdict.outcome}")
    again = audit.rejudged({"vector_id": vid}, record, _ctx(om_vectors))
    assert (again.outcome, again.clause_outcomes) == (verdict.outcome, verdict.clause_outcomes), again.message


def test_every_case_is_recorded_whole(om_vectors, monkeypatch):
    outcomes = set()
    for vid, kw in CASES:
        verdict, record = _run(om_vectors, monkeypatch, vid, **kw)
        assert record is not None, (vid, verdict.message)
        outcomes.add(verdict.outcome)
    assert {"pass", "fail", "unsupported"} <= outcomes          # the cases reach each kind of outcome


def test_a_row_its_record_contradicts_is_refused(om_vectors, monkeypatch):
    verdict, record = _run(om_vectors, monkeypatch, "openmessaging.system-header.store-timestamp",
                           broker_headers={"storeTimestamp": 1})
    assert verdict.outcome == "fail"
    row = {"run_id": "0" * 32, "run_started": "2026-11-28T18:00:00Z", "spec": "openmessaging", "test_id": "t::x",
           "vector_id": "openmessaging.system-header.store-timestamp", "outcome": "pass", "protocol": "amqp091",
           "clause_outcomes": {c: "pass" for c in verdict.clause_outcomes},
           "implementation": {"name": "mqconform-om/amqp091@fakemq-9.9", "kind": "provider", "role": "reference"}}
    ctx = _ctx(om_vectors)
    ctx.observations = {("0" * 32, "t::x"): json.loads(json.dumps(record))}
    [b] = audit.recomputed([audit.Row(row, "results.jsonl:1")], ctx)
    assert b.invariant == "recomputed" and "fail" in b.why
    honest = dict(row, outcome="fail", clause_outcomes=verdict.clause_outcomes, profile=verdict.profile)
    assert audit.recomputed([audit.Row(honest, "results.jsonl:1")], ctx) == []
    as_known = dict(honest, outcome="xfail", clause_outcomes={c: o.replace("fail", "xfail")
                                                             for c, o in verdict.clause_outcomes.items()})
    assert audit.recomputed([audit.Row(as_known, "results.jsonl:1")], ctx) == []
    # a profile cell the record does not give (issue 41: a cell contradicting its evidence) is refused too
    forged = dict(honest, profile={**verdict.profile, "durability": {"status": "native", "evidence": "said so"}})
    [b] = audit.recomputed([audit.Row(forged, "results.jsonl:1")], ctx)
    assert "profile cells durability" in b.why


@pytest.mark.parametrize("refuse, outcome", [("values", "fail"), ("TOPIC_NOT_FOUND", "error")])
def test_a_refused_sends_row_is_judged_again_from_its_record(om_vectors, monkeypatch, refuse, outcome):
    """A refused send's record (om-not-carried) gives its row again; a row saying fail where the record says
    the destination refused for itself (a topic with no route yet) is refused by the audit."""
    vid = "openmessaging.type-system.integer-limits"
    verdict, record = _run(om_vectors, monkeypatch, vid, refuse=refuse)
    assert verdict.outcome == outcome and record["kind"] == "om-not-carried"
    row = {"run_id": "0" * 32, "run_started": "2026-11-28T18:00:00Z", "spec": "openmessaging", "test_id": "t::x",
           "vector_id": vid, "outcome": verdict.outcome, "protocol": "amqp091",
           "clause_outcomes": verdict.clause_outcomes, "profile": verdict.profile,
           "implementation": {"name": "mqconform-om/amqp091@fakemq-9.9", "kind": "provider", "role": "reference"}}
    ctx = _ctx(om_vectors)
    ctx.observations = {("0" * 32, "t::x"): json.loads(json.dumps(record))}
    assert audit.recomputed([audit.Row(row, "results.jsonl:1")], ctx) == []
    if outcome == "error":
        forged = dict(row, outcome="fail", clause_outcomes={"openmessaging/type-system/integer-range": "fail"})
        [b] = audit.recomputed([audit.Row(forged, "results.jsonl:1")], ctx)
        assert "error" in b.why


def test_a_bundle_check_reads_the_sidecar(om_vectors, monkeypatch, tmp_path):
    verdict, record = _run(om_vectors, monkeypatch, "openmessaging.system-header.store-timestamp",
                           broker_headers={"storeTimestamp": 1})
    results = tmp_path / "results.jsonl"
    results.write_text("")
    side = tmp_path / ("results.jsonl" + audit.OBSERVATIONS)
    side.write_text(json.dumps({"run_id": "r", "test_id": "t", "vector_id": "v", "protocol": "amqp091",
                                "observation": record}) + "\n" + "not json\n")
    with pytest.raises(ValueError, match=r"openmessaging-observations.jsonl:2"):
        audit.read_observations(results)


def test_every_scenario_row_with_a_record_is_judged_again_from_it_alone(om_vectors, monkeypatch):
    """om-scenario rows too (and om-fault rows, which share the record): whatever the outcome, the
    record gives it again. The fake binding reaches pass, fail and unsupported among them."""
    seen = set()
    for vector in om_vectors.vectors:
        if vector.kind != "om-scenario":
            continue
        verdict, record = _run(om_vectors, monkeypatch, vector.id)
        if record is None or not record.get("complete"):
            continue                                  # decided before the scenario observed anything
        assert record["kind"] == observation.SCENARIO_KIND
        again = audit.rejudged({"vector_id": vector.id}, json.loads(json.dumps(record)), _ctx(om_vectors))
        assert (again.outcome, again.clause_outcomes) == (verdict.outcome, verdict.clause_outcomes), vector.id
        seen.add(verdict.outcome)
    assert {"pass", "fail", "unsupported"} <= seen


def test_a_feature_with_no_native_field_is_absent_in_the_witness_rows_profile(om_vectors, monkeypatch):
    """The profile cell comes from the row's own record (its `unavailable`), also where the row is
    unsupported for it: a missing field is evidence of absence, recomputed by the audit."""
    verdict, record = _run(om_vectors, monkeypatch, "openmessaging.system-header.search-key-offered")
    assert verdict.outcome == "unsupported" and "searchKey" in record["unavailable"], verdict.message
    assert verdict.profile["search-index"]["status"] == "absent"
    assert "no native field" in verdict.profile["search-index"]["evidence"]


def test_an_absence_every_check_accepts_is_not_observed_when_nothing_could_be_sent():
    """`any_of: [sent, absent]` (plain words) accepts the absence as `{is: absent}` does; a check
    without `judges` is read too (fixtures/openmessaging/checks.py absence_unobserved). Nothing sent
    is nothing observed: not judged, never a pass."""
    from types import SimpleNamespace

    from fixtures.openmessaging.checks import absence_unobserved
    from fixtures.verdict.outcomes import AdapterLimitation, PreconditionFailed

    v = SimpleNamespace(expect={"checks": [{"of": "property.x", "any_of": ["sent", "absent"], "judges": ["c/1"]},
                                           {"of": "header.compression", "any_of": [{"is": "absent", "reading": "r"}]}]})
    exc = absence_unobserved(v, "over p on t", "no field")
    assert isinstance(exc, AdapterLimitation) and "not observed" in str(exc)     # the reference's own stack
    assert isinstance(absence_unobserved(v, "over p on t", "no key", "product"), PreconditionFailed)
    assert absence_unobserved(SimpleNamespace(expect={"checks": [{"of": "x", "any_of": ["sent"], "judges": []}]}),
                              "w", "e") is None


@pytest.mark.parametrize("kw,status", [({}, "absent"), ({"provider_limit": True}, "unknown"),
                                       ({"implicit": "every message is stored"}, "unknown")])
def test_a_missing_field_makes_its_requirement_absent_only_where_that_says_something_of_the_broker(om_vectors, kw, status):
    """Issue 41 class 8: RocketMQ has no durability field because it stores every message (`implicit`),
    and the reference provider's own limit (`provider_limit`) says nothing of the broker either."""
    from fixtures.openmessaging.mapping import FieldMapping, HonouredBy
    from fixtures.openmessaging.profile import of_row

    vector = next(v for v in om_vectors.vectors if v.id == "openmessaging.system-header.durability-offered")
    fm = FieldMapping(name="durability", protocol="p", native=(), honoured_by=HonouredBy(
        "durability-restart", "survived_restart", {"equals": True}, "durability", {}), **kw)
    record = {"kind": observation.KIND, "protocol": "p", "target": "t", "sent_headers": ["durability"],
              "unavailable": {"durability": "no field"}, "deliveries": []}
    assert of_row(vector, record, {}, lambda name: fm)["durability"]["status"] == status
