"""The optional-feature rule, one for every kind (fixtures/openmessaging/offered.py), with the
in-memory binding of test_runner.py (pure code, no broker): a feature is offered where its
`*-offered` vector holds on the target over the protocol, observed once and shared; its gated
vectors are `not_applicable` where it does not hold (message and scenario vectors alike) and
judged where it does; the behaviour the text asks of the header never decides "offered"."""
from __future__ import annotations

import json

import pytest

from fixtures.openmessaging import observation, offered, runner
from fixtures.openmessaging.binding import ReceiveFailed
from fixtures.verdict.outcomes import Unsupported
from fixtures.verdict.verdicts import decide
from reports.gate import audit

from .test_runner import FakeBinding, FakeLive


def _vector(om_vectors, vid):
    return next(v for v in om_vectors.vectors if v.id == vid)


def _run(om_vectors, monkeypatch, broker, vid, protocol="amqp091", **kw):
    vector = _vector(om_vectors, vid)
    monkeypatch.setattr(runner, "open_binding", lambda live_, p, mapping=None: FakeBinding(live_, p, **kw))
    try:
        _, found = runner.run_vector(vector, broker, protocol, om_vectors.registry)
        return decide(vector, om_vectors.registry, None, found)
    except Exception as exc:  # noqa: BLE001 - the verdict of what the runner raised
        return decide(vector, om_vectors.registry, exc)


def test_every_gated_vector_has_one_witness(om_vectors):
    gated = [v for v in om_vectors.vectors if v.optional_feature]
    assert gated
    for v in gated:
        w = offered.witness_of(v, om_vectors.registry)
        assert w is not None and v.optional_feature in w.clauses, v.id
        assert offered.is_witness(w, om_vectors.registry)


def test_a_header_not_carried_leaves_message_and_scenario_vectors_not_applicable(om_vectors, monkeypatch):
    broker = FakeLive("fakemq")
    witness = _run(om_vectors, monkeypatch, broker, "openmessaging.system-header.expire-time-offered",
                   strip={"expireTime"})
    assert witness.outcome == "unsupported", witness.message
    for vid in ("openmessaging.system-header.expire-time-epoch-millis",    # om-message
                "openmessaging.system-header.expire-time"):                # om-scenario: the rule is the same
        row = _run(om_vectors, monkeypatch, broker, vid, strip={"expireTime"})
        assert row.outcome == "not_applicable", (vid, row.message)
        assert "expire-time-offered does not hold" in row.message
        assert not row.blamed


def test_a_carried_header_has_its_gated_vectors_judged(om_vectors, monkeypatch):
    broker = FakeLive("fakemq")
    witness = _run(om_vectors, monkeypatch, broker, "openmessaging.system-header.expire-time-offered")
    assert witness.outcome == "pass", witness.message
    row = _run(om_vectors, monkeypatch, broker, "openmessaging.system-header.expire-time-epoch-millis")
    assert row.outcome in ("pass", "fail"), row.message     # judged: never "not offered" beside a passing witness


def test_the_witness_is_observed_once_per_target_and_protocol(om_vectors, monkeypatch):
    calls = []
    real = runner._run_message_timed
    monkeypatch.setattr(runner, "_run_message_timed", lambda v, b, r: calls.append((v.id, b.protocol)) or real(v, b, r))
    broker = FakeLive("fakemq")
    for vid in ("openmessaging.system-header.priority-range", "openmessaging.system-header.priority-out-of-range",
                "openmessaging.system-header.priority-offered"):
        _run(om_vectors, monkeypatch, broker, vid)
    _run(om_vectors, monkeypatch, broker, "openmessaging.system-header.priority-offered", protocol="amqp10")
    witness = [c for c in calls if c[0] == "openmessaging.system-header.priority-offered"]
    assert witness == [("openmessaging.system-header.priority-offered", "amqp091"),
                       ("openmessaging.system-header.priority-offered", "amqp10")]


def test_a_witness_lost_in_transit_is_observed_again(om_vectors, monkeypatch):
    broker = FakeLive("fakemq")
    row = _run(om_vectors, monkeypatch, broker, "openmessaging.system-header.priority-range", drop_on_receive=True)
    assert row.outcome == "error", row.message
    assert "priority-offered" in row.message
    again = _run(om_vectors, monkeypatch, broker, "openmessaging.system-header.priority-range")
    assert again.outcome != "error", again.message


def test_the_behaviour_never_decides_offered(om_vectors):
    """The `*-offered` vectors check only that the header is carried; a vector that checks what the
    text asks the implementation to do with it is a gated one, judged at its own level. A mode's
    witness (om-scenario) cites that MAY clause alone: what it shows is the mode itself."""
    modes = 0
    for v in om_vectors.vectors:
        if not offered.is_witness(v, om_vectors.registry):
            continue
        assert not v.optional_feature, v.id
        if v.kind == "om-scenario":
            modes += 1
            [clause] = v.clauses
            assert om_vectors.registry.clauses[clause].level == "MAY", v.id
            continue
        assert v.kind == "om-message", v.id
        assert any(c["of"].startswith("header.") for c in v.expect["checks"]), v.id
        assert not any(c["of"].startswith("observe.") for c in v.expect["checks"]), v.id
    assert modes == 3                                  # the three delivery guarantees


def _fault_record(lost: int, duplicated: int, held: dict | None) -> dict:
    obs = {"lost": lost, "duplicated": duplicated, "sent": 20, "confirmed": 20, "delivered": 20 - lost + duplicated,
           "survived_restart": lost == 0}
    return json.loads(json.dumps({
        "kind": observation.SCENARIO_KIND, "protocol": "amqp091", "product": "fakemq", "target": "fakemq-9.9",
        "role": "reference", "observed": observation.encode(obs), "figures": observation.encode({}), "sources": {},
        "set_by": {}, "complete": True, **({"offered": held} if held else {})}))


@pytest.mark.parametrize("vid,lost,duplicated", [("openmessaging.faults.at-least-once.kill", 3, 0),
                                                  ("openmessaging.faults.exactly-once.restart", 0, 2),
                                                  ("openmessaging.faults.at-most-once.pause", 0, 1)])
def test_a_mode_shown_offered_binds_its_fault_rows(om_vectors, vid, lost, duplicated):
    """A fault row is gated on its semantics' own vector: where that holds (the record's `offered`),
    a loss or duplicate under the fault is a fail (the mode is offered and its guarantee does not
    hold); a record without it (the mode's vector not consulted) leaves the MAY not shown."""
    vector = _vector(om_vectors, vid)
    feature = vector.optional_feature
    assert feature in vector.clauses and feature.rsplit("/", 1)[1] == vid.split(".")[2]
    ctx = audit.Context({v.id: v for v in om_vectors.vectors}, om_vectors.registry)
    witness = offered.witness_of(vector, om_vectors.registry)
    held = {"feature": feature, "witness": witness.id}
    bound = audit.rejudged({"vector_id": vid}, _fault_record(lost, duplicated, held), ctx)
    assert bound.outcome == "fail", bound.message
    assert witness.id in " ".join(bound.notes)
    free = audit.rejudged({"vector_id": vid}, _fault_record(lost, duplicated, None), ctx)
    assert free.outcome == "unsupported", free.message
    kept = audit.rejudged({"vector_id": vid}, _fault_record(0, 0, held), ctx)
    assert kept.outcome == "pass", kept.message


def test_a_fault_row_is_not_applicable_where_its_mode_is_not_offered(om_vectors):
    """The exactly-once fault rows of an implementation whose exactly-once vector is `unsupported`
    (no de-duplication: the retry came twice) are not judged: no row passes or fails a mode another
    row says is not offered."""
    broker = FakeLive("fakemq")
    vector = _vector(om_vectors, "openmessaging.faults.exactly-once.kill")

    def not_shown(w):
        assert w.id == "openmessaging.delivery-semantics.exactly-once"
        raise Unsupported("the retried send was delivered twice", feature=w.clauses[0])
    b = FakeBinding(broker, "amqp091")
    b.profile = {}
    with pytest.raises(Unsupported) as info:
        offered.require(vector, b, om_vectors.registry, not_shown, 5.0)
    assert "openmessaging.delivery-semantics.exactly-once does not hold" in str(info.value)
    assert decide(vector, om_vectors.registry, info.value).outcome == "not_applicable"


@pytest.mark.parametrize("exc", [ReceiveFailed("gone")])
def test_a_binding_error_of_the_witness_is_a_transient_precondition(om_vectors, monkeypatch, exc):
    broker = FakeLive("fakemq")
    vector = _vector(om_vectors, "openmessaging.system-header.priority-range")

    def boom(w):
        raise exc
    b = FakeBinding(broker, "amqp091")
    b.profile = {}
    with pytest.raises(Exception) as info:
        offered.require(vector, b, om_vectors.registry, boom, 5.0)
    assert getattr(info.value, "transient", False) and "priority-offered" in str(info.value)
    assert not [k for k in broker.shared if k[0] == "om-offered"]      # nothing kept: the next asks again


def test_a_witness_that_fails_on_a_value_the_implementation_set_is_a_fail_and_the_feature_is_offered(
        om_vectors, monkeypatch):
    # The priority sent (7) comes back as another value the implementation set: the MAY was taken
    # and its result does not hold (a fail, never "not shown"), and the gated MUSTs are judged.
    broker = FakeLive("fakemq")
    witness = _run(om_vectors, monkeypatch, broker, "openmessaging.system-header.priority-offered",
                   broker_headers={"priority": 3})
    assert witness.outcome == "fail", witness.message
    assert "the permitted (MAY) behaviour was taken" in witness.message
    gated = _run(om_vectors, monkeypatch, broker, "openmessaging.system-header.priority-range",
                 broker_headers={"priority": 3})
    assert gated.outcome == "fail", gated.message


def test_a_witness_that_fails_on_nothing_produced_is_not_shown(om_vectors, monkeypatch):
    broker = FakeLive("fakemq")
    witness = _run(om_vectors, monkeypatch, broker, "openmessaging.system-header.priority-offered", strip={"priority"})
    assert witness.outcome == "unsupported", witness.message
    gated = _run(om_vectors, monkeypatch, broker, "openmessaging.system-header.priority-range", strip={"priority"})
    assert gated.outcome == "not_applicable", gated.message


def test_a_witnessed_clause_is_judged_by_its_witness_and_gated_rows_only(om_vectors):
    """Two rows judging one MAY clause apart could say it both offered and not (an exactly-once fault
    row passing beside an exactly-once vector unsupported): every vector citing a clause some vector
    witnesses is that witness or gated on it."""
    witnessed = {f: w.id for f, w in offered._of(om_vectors.registry).items()}
    loose = [(v.id, c) for v in om_vectors.vectors for c in v.clauses
             if c in witnessed and v.id != witnessed[c] and v.optional_feature != c]
    assert loose == []
