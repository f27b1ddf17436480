"""The OpenMessaging runner's verdicts, with an in-memory binding (pure code, no broker):
levels (REQUIRED without a field fails, OPTIONAL is unsupported / not applicable), who set each
value (a provider-side value only our mapping wrote earns nothing; a client-side one passes as
carried), and step roles (a refused send or a lost message is setup unless the vector names the
clauses it violates; a consumer connection dropped while observing is an observation error)."""
from __future__ import annotations

import json
import time
from types import SimpleNamespace

import pytest

from fixtures.adapters.base import PeerError, Refused, TransportError
from fixtures.openmessaging import pool, runner
from fixtures.openmessaging.binding import (
    PLAIN_BODY,
    Binding,
    Consumer,
    Delivery,
    Destination,
    Lacks,
    SendRefused,
    Sent,
    now_ms,
)
from fixtures.openmessaging.model import OMMessage
from fixtures.verdict.verdicts import decide


class FakeLive:
    def __init__(self, product: str):
        self.target = SimpleNamespace(name=f"{product}-9.9", product=product, protocols=("amqp091", "amqp10"))
        self.product = product
        self.facts = {}
        self.shared = {}

    def alive(self) -> bool:
        return True

    def endpoint(self, protocol):
        return SimpleNamespace(host="127.0.0.1", port=5672)


class FakeConsumer(Consumer):
    def __init__(self, b):
        self.b = b

    def receive(self, timeout):
        if self.b.drop_on_receive:
            raise TransportError("connection reset by the broker")
        if self.b.lose == "values":            # every message but a plain one is lost
            self.b.queue[:] = [n for n in self.b.queue if n["body"] == PLAIN_BODY]
        if not self.b.queue or self.b.lose is True:
            return None
        native = self.b.queue[0] if self.b.redeliver else self.b.queue.pop(0)
        om, meta = self.b.decode(native)

        def settle(how):
            if how == "fail" and self.b.refuse_fail:
                raise TransportError("session closed by the broker with amqp:invalid-field")
            if how == "fail" and self.b.lacks_fail:
                raise Lacks("the API has no negative acknowledgement",
                            later=self.b.lacks_fail if isinstance(self.b.lacks_fail, str) else None)
        return Delivery(om, None, now_ms(), settle, meta, meta.pop("set_by"), meta.pop("notes"))

    def close(self):
        pass


class FakeBinding(Binding):
    """A broker that carries what the mapping writes, adds `broker_headers`, drops `strip`."""

    def __init__(self, broker, protocol="amqp091", *, refuse=False, lose=False, drop_on_receive=False,
                 broker_headers=None, strip=(), redeliver=False, refuse_fail=False, lacks_fail=False,
                 provider_role="reference"):
        self.protocol = protocol
        self.lacks_fail = lacks_fail
        self.provider_role = provider_role
        super().__init__(broker)
        self.redeliver, self.refuse_fail = redeliver, refuse_fail
        self.refuse, self.lose, self.drop_on_receive = refuse, lose, drop_on_receive
        self.broker_headers, self.strip = dict(broker_headers or {}), set(strip)
        self.queue: list = []
        self.n = 0

    def born_host(self):
        return "127.0.0.1"

    def _round_trip(self):
        return 0.001        # the waits' calibration is not what these tests judge: no messages of its own

    def _destination(self, purpose):
        return Destination(topic="q1", queues=["q1"])

    _fanout = _filtered = lambda self, *a: Destination(topic="q1", queues=["q1"])

    def encode(self, om, *, called_ms):
        self.n += 1
        h = {k: v for k, v in om.headers.items() if k not in ("messageId", "bornTimestamp")}
        h.update(messageId=f"tracer-{self.n}", bornTimestamp=called_ms, bornHost=self.born_host())
        return {"headers": h, "properties": dict(om.properties), "body": om.body, "version": om.version}

    def decode(self, native):
        h = {k: v for k, v in native["headers"].items() if k not in self.strip}
        h.update(topic="q1", queue="q1", deliveryCount=0, **self.broker_headers)
        h = {k: v for k, v in h.items() if k not in self.strip}
        set_by = self.set_by_of(h)
        set_by.update({k: "broker" for k in self.broker_headers})
        version = None if "version" in self.strip else native["version"]
        return OMMessage(headers=h, properties=native["properties"], body=native["body"], version=version), {
            "set_by": set_by, "notes": {}}

    def _send(self, dest, om, *, reply_to, tag, routable_only, **kw):
        called = now_ms()
        # refuse: True every message; "values" all but a plain one; a condition: the message, with it
        if self.refuse is True or (self.refuse == "values" and om.body != PLAIN_BODY):
            raise SendRefused("nack")
        if isinstance(self.refuse, str) and self.refuse != "values" and om.body != PLAIN_BODY:
            raise Refused(f"send to {dest.topic!r}", PeerError("request", self.refuse, "no route for the topic"))
        native = self.encode(om, called_ms=called)
        self.queue.append(native)
        return Sent(native["headers"]["messageId"], called, now_ms(), native, om)

    def _send_batch(self, dest, oms):
        return [self._send(dest, om, reply_to=None, tag=None, routable_only=True) for om in oms]

    def _open_consumer(self, dest, index, auto_ack):
        return FakeConsumer(self)



def run(om_vectors, monkeypatch, vector_id, product="fakemq", **kw):
    vector = next(v for v in om_vectors.vectors if v.id == vector_id)
    broker = FakeLive(product)
    monkeypatch.setattr(runner, "open_binding", lambda live_, protocol, mapping=None: FakeBinding(live_, protocol, **kw))
    protocol = kw.pop("protocol", "amqp091")
    try:
        _, found = runner.run_vector(vector, broker, protocol, om_vectors.registry)
        return decide(vector, om_vectors.registry, None, found)
    except Exception as exc:  # noqa: BLE001 - the verdict of what the runner raised
        return decide(vector, om_vectors.registry, exc)


# ---- levels --------------------------------------------------------------------------------

def test_required_header_without_native_field_fails(om_vectors, monkeypatch):
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.store-host")
    assert row.outcome == "fail"
    assert set(row.clause_outcomes.values()) == {"fail"}
    assert "no native field" in row.message and "AMQP 0-9-1 brokers record no store host" in row.message
    assert row.set_by == {"storeHost": "nobody"}   # the header table says "absent", not nothing


def test_required_conditional_field_absent_fails_naming_the_configuration(om_vectors, monkeypatch):
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.store-timestamp", product="rabbitmq")
    assert row.outcome == "fail"
    assert "absent in the default configuration" in row.message and "set_header_timestamp" in row.message
    # the absence fails the REQUIRED clause and the server's duty; the form of a value that is not there is unjudged
    assert row.clause_outcomes == {"openmessaging/system-header/store-timestamp-required": "fail",
                                   "openmessaging/system-header/store-timestamp-set-by-server": "fail"}


def test_nothing_of_the_products_to_judge_is_a_precondition(om_vectors, monkeypatch):
    # beside a product provider, an id our adapter code wrote is nobody's to judge
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.message-id-unique", provider_role="product")
    assert row.outcome == "error" and row.error_kind == "precondition"
    assert "nothing of the product's to judge" in row.message
    # the reference provider's own ids are judged
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.message-id-unique")
    assert row.outcome == "pass", row.message


def test_required_feature_without_field_fails_a_scenario(om_vectors, monkeypatch):
    from fixtures.openmessaging.mapping import Mapping
    monkeypatch.setattr(Mapping, "needs", lambda self, scenario, params=None: ["storeHost"])
    row = run(om_vectors, monkeypatch, "openmessaging.message-format.version")
    assert row.outcome == "fail" and "no native field" in row.message


def test_the_version_part_is_carried_and_says_so(om_vectors, monkeypatch):
    row = run(om_vectors, monkeypatch, "openmessaging.message-format.version")
    assert row.outcome == "pass", row.message
    assert row.set_by == {"version": "mapping"}
    assert any(n.startswith("version: written by mqconform's mapping") for n in row.notes)
    assert "observe.version: held under reading this-revision" in row.notes
    row = run(om_vectors, monkeypatch, "openmessaging.message-format.version", strip={"version"})
    assert row.outcome == "fail" and row.set_by == {"version": "nobody"}


def test_optional_header_without_field_is_unsupported_in_its_may_vector(om_vectors, monkeypatch):
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.priority-offered", protocol="rocketmq-grpc")
    assert row.outcome == "unsupported", row.message
    assert "priority-optional" in row.message


def test_optional_header_without_field_is_not_applicable_where_it_is_the_optional_feature(om_vectors, monkeypatch):
    for vid in ("openmessaging.system-header.priority-range", "openmessaging.system-header.priority-out-of-range",
                "openmessaging.system-header.priority-best-effort"):
        row = run(om_vectors, monkeypatch, vid, protocol="rocketmq-grpc")
        assert row.outcome == "not_applicable", (vid, row.message)


def test_no_must_vector_can_end_unsupported(om_vectors, monkeypatch):
    for v in om_vectors.vectors:
        if v.level in ("MUST", "MUST NOT") and v.kind == "om-message":
            for protocol in ("amqp091", "amqp10", "rocketmq-grpc"):
                row = run(om_vectors, monkeypatch, v.id, protocol=protocol)
                assert row.outcome != "unsupported", (v.id, protocol, row.message)
                assert row.error_kind != "harness", (v.id, protocol, row.message)


# ---- who set each value -------------------------------------------------------------------

def test_provider_header_set_by_the_reference_provider_is_judged(om_vectors, monkeypatch):
    # the row is the reference provider's: the id our mapping assigned IS its value
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.message-id-assigned")
    assert row.outcome == "pass", row.message
    assert any(n.startswith("messageId: assigned by the reference provider") for n in row.notes), row.notes
    # beside a product provider, an id written by mqconform's adapter code fails the REQUIRED check
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.message-id-assigned", provider_role="product")
    assert row.outcome == "fail" and "provider-assigned" in row.message, row.message


def test_provider_header_set_by_the_broker_passes_and_is_recorded(om_vectors, monkeypatch):
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.store-timestamp", product="rabbitmq",
              broker_headers={"storeTimestamp": now_ms()})
    assert row.outcome == "pass", row.message
    assert row.set_by == {"storeTimestamp": "broker"}


def test_client_header_set_by_the_mapping_passes_as_carried(om_vectors, monkeypatch):
    # bornHost and bornTimestamp have the same shape ("When a message is sent ...", "When the send
    # method returns ..."): provider-side, the reference provider's values
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.born-host")
    assert row.outcome == "pass", row.message
    assert row.set_by == {"bornHost": "mapping"}
    assert any("bornHost: assigned by the reference provider" in n and "carried it intact" in n for n in row.notes)
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.born-timestamp")
    assert row.outcome == "pass", row.message
    assert any(n.startswith("bornTimestamp: assigned by the reference provider") for n in row.notes)


def test_client_header_the_broker_dropped_fails(om_vectors, monkeypatch):
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.born-host", strip={"bornHost"})
    assert row.outcome == "fail" and row.set_by == {"bornHost": "nobody"}


def test_provider_side_optional_header_only_the_mapping_handled_is_not_offered(om_vectors, monkeypatch):
    # the reference provider compresses (the vendor's choice): offered by it
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.compression-offered")
    assert row.outcome == "pass", row.message
    # beside a product provider, compression by mqconform's adapter code is nobody's offer
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.compression-offered", provider_role="product")
    assert row.outcome == "unsupported", row.message
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.compression", provider_role="product")
    assert row.outcome == "not_applicable", row.message


def test_consumer_context_is_credited_and_recorded(om_vectors, monkeypatch):
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.topic-and-queue")
    assert row.outcome == "pass"
    assert row.set_by == {"topic": "broker", "queue": "consumer-context"}


def test_a_failed_check_blames_only_its_clauses(om_vectors, monkeypatch):
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.topic-and-queue", strip={"topic"})
    assert row.outcome == "fail"
    assert row.clause_outcomes == {
        "openmessaging/system-header/topic-required": "fail", "openmessaging/system-header/topic-non-empty-string": "fail",
        "openmessaging/system-header/queue-required": "pass", "openmessaging/system-header/queue-non-empty-string": "pass"}
    assert row.failed_step["role"] == "check" and row.failed_step["index"] == 1
    assert row.failed_step["clause_ids"] == ["openmessaging/system-header/topic-required",
                                             "openmessaging/system-header/topic-non-empty-string"]


def test_readings_that_held_are_noted(om_vectors, monkeypatch):
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.delivery-count-present")
    assert row.outcome == "pass"
    assert "header.deliveryCount: held under reading first-is-zero" in row.notes
    assert row.set_by == {"deliveryCount": "broker"}


# ---- step roles ----------------------------------------------------------------------------

def test_a_refused_send_is_a_precondition_where_delivery_is_setup(om_vectors, monkeypatch):
    row = run(om_vectors, monkeypatch, "openmessaging.message-format.four-parts", refuse=True)
    assert row.outcome == "error" and row.error_kind == "precondition"
    assert row.failed_step["role"] == "setup"


def test_a_refused_send_fails_the_delivery_judges(om_vectors, monkeypatch):
    row = run(om_vectors, monkeypatch, "openmessaging.message-format.no-body", refuse="values")
    assert row.outcome == "unsupported"            # a MAY not shown (docs/verdicts.md)
    assert row.failed_step["action"] == "send" and row.failed_step["role"] == "check"
    row = run(om_vectors, monkeypatch, "openmessaging.message-format.all-byte-values", lose="values")
    assert row.outcome == "fail"
    assert row.blamed == ["openmessaging/message-type/bytes-message"]


def run_raw(om_vectors, monkeypatch, vector_id, **kw):
    """What run_vector raises (its record in the findings), and the vector."""
    vector = next(v for v in om_vectors.vectors if v.id == vector_id)
    monkeypatch.setattr(runner, "open_binding", lambda live_, protocol, mapping=None: FakeBinding(live_, protocol, **kw))
    with pytest.raises(Exception) as info:
        runner.run_vector(vector, FakeLive("fakemq"), "amqp091", om_vectors.registry)
    return vector, info.value


@pytest.mark.parametrize("refuse, outcome, said", [
    ("values", "fail", "a plain message sent right after to the same destination was carried"),
    (True, "error", "a plain message sent right after to the same destination was not carried either"),
    ("TOPIC_NOT_FOUND", "error", "the broker refused it for its destination (TOPIC_NOT_FOUND)"),
    ("amqp:not-found", "error", "the broker refused it for its destination (amqp:not-found)"),
])
def test_a_refusal_judges_the_message_only_when_the_destination_takes_a_plain_one(om_vectors, monkeypatch, refuse,
                                                                                   outcome, said):
    """A refused send fails the vector's delivery_judges only when it was the message that was refused:
    the broker did not name the destination, and the same destination took a plain message right after.
    A destination the suite made that takes nothing (a RocketMQ topic with no route yet) judges nothing.
    The row's record (om-not-carried) gives the same outcome again without a broker (audit)."""
    from fixtures.openmessaging import checks
    vector, exc = run_raw(om_vectors, monkeypatch, "openmessaging.type-system.integer-limits", refuse=refuse)
    row = decide(vector, om_vectors.registry, exc)
    assert row.outcome == outcome and said in str(exc)
    if outcome == "error":
        assert row.error_kind == "precondition" and exc.transient       # tried once more by the pool
    else:
        assert row.blamed == ["openmessaging/type-system/integer-range"]
    record = exc.findings.observation
    assert record["kind"] == checks.NOT_CARRIED_KIND and record["complete"]
    assert json.loads(json.dumps(record)) == record                     # the sidecar's line, as written
    with pytest.raises(Exception) as again:
        checks.judge_not_carried(vector, record, None, om_vectors.registry)
    assert decide(vector, om_vectors.registry, again.value).outcome == outcome


def test_an_undelivered_message_is_a_precondition_where_delivery_is_setup(om_vectors, monkeypatch):
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.born-host", lose=True)
    assert row.outcome == "error" and row.error_kind == "precondition"


def test_an_undelivered_value_fails_the_type_it_carries(om_vectors, monkeypatch):
    """A type-system vector judges its clauses by the delivery too (delivery_judges): a value the
    provider could not get through is the provider's failure to carry the type, not setup."""
    row = run(om_vectors, monkeypatch, "openmessaging.type-system.binary-value", lose="values")
    assert row.outcome == "fail" and row.failed_step["action"] == "receive"
    assert set(row.clause_outcomes.values()) == {"fail"}
    assert "a plain message through a fresh destination, sent and received right after was carried" in row.message
    # every message lost, a plain one through a fresh destination too: the loss says nothing of the value
    row = run(om_vectors, monkeypatch, "openmessaging.type-system.binary-value", lose=True)
    assert row.outcome == "error" and row.error_kind == "precondition", row.message
    assert "was not carried either" in row.message


def test_a_dropped_consumer_connection_is_an_observation_error(om_vectors, monkeypatch):
    row = run(om_vectors, monkeypatch, "openmessaging.message-format.four-parts", drop_on_receive=True)
    assert row.outcome == "error" and row.error_kind == "observation"


def test_scenario_setup_that_fails_is_a_precondition(om_vectors, monkeypatch):
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.delivery-count-counts", lose=True)
    assert row.outcome == "error" and row.error_kind == "precondition"
    # a scenario's lost message judges its delivery_judges only where a plain one came through a fresh
    # destination (the witness), as a message vector's does
    row = run(om_vectors, monkeypatch, "openmessaging.delivery-semantics.at-least-once", lose="values")
    assert row.outcome == "unsupported" and row.failed_step["action"] == "receive"
    row = run(om_vectors, monkeypatch, "openmessaging.delivery-semantics.at-least-once", lose=True)
    assert row.outcome == "error" and row.error_kind == "precondition"


def test_no_redelivery_after_a_crash_leaves_the_failed_consumption_unjudged(om_vectors, monkeypatch):
    # Under reading consumer-sends-back of failed-consumption-redelivered a dead consumer sends
    # nothing back: the redelivery after the crash is setup there, and at-least-once judges it.
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.delivery-count-counts")
    assert row.outcome == "error" and row.error_kind == "precondition"
    assert "consumer died" in row.message
    row = run(om_vectors, monkeypatch, "openmessaging.delivery-semantics.at-least-once")
    assert row.outcome == "unsupported"


def test_a_refused_failure_signal_fails_the_failed_consumption_like_a_lacked_one(om_vectors, monkeypatch):
    """The provider's signal refused by the broker leaves the provider unable to give the message back:
    judged as its lack is (the counts after it not observed), never booked as setup."""
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.delivery-count-counts", redeliver=True,
              refuse_fail=True)
    assert row.outcome == "fail", row.message
    assert row.clause_outcomes["openmessaging/system-header/failed-consumption-redelivered"] == "fail"
    assert "the broker refused the failure signal" in row.message
    assert "count_step_after_failure" not in row.message


def test_a_lacked_failure_signal_fails_only_what_it_observes(om_vectors, monkeypatch):
    """An implementation with no way to signal a failed consumption fails the failed consumption's
    redelivery; the count after it was never observed and is not judged, so the counts are judged
    on the deliveries that came (the fake broker's count stays 0, which fails the step after the crash)."""
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.delivery-count-counts", redeliver=True,
              lacks_fail=True, provider_role="product")
    assert row.outcome == "fail", row.message
    assert row.clause_outcomes["openmessaging/system-header/failed-consumption-redelivered"] == "fail"
    assert "lacks what this needs: the API has no negative acknowledgement" in row.message
    assert "count_step_after_crash: 0 (expected 1)" in row.message
    assert "count_step_after_failure" not in row.message          # not observed: judges nothing


@pytest.mark.parametrize("vid,outcome", [("openmessaging.type-system.float-finite", "fail"),
                                         ("openmessaging.system-header.trace-id-offered", "unsupported"),
                                         ("openmessaging.system-header.trace-id", "not_applicable")])
def test_the_reference_providers_client_limits_are_its_own(om_vectors, monkeypatch, vid, outcome):
    # pika cannot write a float field; rocketmq-python-client cannot set a trace: the reference
    # provider lacks them, judged by the level (a MUST fails, a MAY is not shown, a clause of the
    # feature does not bind), never an adapter error of the suite.
    protocol = "amqp091" if "float" in vid else "rocketmq-grpc"
    row = run(om_vectors, monkeypatch, vid, protocol=protocol)
    assert row.outcome == outcome and row.error_kind is None, row.message


def test_what_the_implementations_own_stack_lacks_is_judged_by_level(om_vectors, monkeypatch):
    from fixtures.openmessaging.binding import Lacks

    def lacking(*a, **k):
        raise Lacks("no batch send in this client")
    monkeypatch.setattr(FakeBinding, "_send_batch", lacking)
    row = run(om_vectors, monkeypatch, "openmessaging.use-cases.highway-batch")      # MAY only
    assert row.outcome == "unsupported" and "lacks it: no batch send" in row.message, row.message
    monkeypatch.setattr(FakeBinding, "_send", lacking)
    row = run(om_vectors, monkeypatch, "openmessaging.message-format.four-parts")      # MUST
    assert row.outcome == "fail" and "lacks what this needs" in row.message, row.message


# ---- the pool ----------------------------------------------------------------------------------

class _Item:
    """A collected test as pool.start() and the collection order read it."""

    def __init__(self, nodeid, vector=None, target=None, protocol=None):
        self.nodeid = nodeid
        self.callspec = SimpleNamespace(params={"vector": vector, "target": target})
        self._marker = SimpleNamespace(args=(protocol,)) if protocol else None
        self.user_properties = []

    def get_closest_marker(self, name):
        return self._marker if name == "targets" else None


def test_the_pool_takes_the_longest_vectors_first_and_says_what_each_took(om_vectors, tmp_path, monkeypatch):
    from fixtures.openmessaging.faults import is_fault
    from fixtures.run import scopetimes
    from fixtures.run.scopetimes import JOB_PROPERTY
    vectors = [v for v in om_vectors.vectors if not is_fault(v)][:4]   # OpenMessaging clauses describe every product
    broker = FakeLive("fakemq")
    broker.version = "9.9"
    items = [_Item(f"t.py::test_amqp091[{v.id}::fakemq-9.9]", v, broker.target, "amqp091") for v in vectors]
    prior = tmp_path / "prior.json"
    prior.write_text(json.dumps({"jobs": {items[2].nodeid: 5, items[1].nodeid: 9}}))
    monkeypatch.setattr(scopetimes, "PRIOR", prior)
    stash = {scopetimes.JOB_TIMES: scopetimes.known(None, "jobs")}   # what the plugin puts there on reach
    ran = []
    monkeypatch.setattr(runner, "run_vector", lambda v, b, p, r: ran.append(v.id) or ({}, "found"))
    monkeypatch.setattr(pool, "WORKERS", 1)           # one thread: jobs run in the order submitted
    session = SimpleNamespace(items=items, config=SimpleNamespace(getoption=lambda name: None, stash=stash))
    try:
        pool.start(session, broker, om_vectors.registry)
        request = SimpleNamespace(session=session, node=items[0])
        assert pool.result(request, vectors[0], broker, "amqp091", om_vectors.registry) == ({}, "found")
    finally:
        pool.shutdown()
    assert ran == [vectors[1].id, vectors[2].id, vectors[0].id, vectors[3].id]   # known longest first, then as collected
    [(key, seconds)] = items[0].user_properties
    assert key == JOB_PROPERTY and seconds >= 0


def test_a_fault_vector_runs_after_every_pooled_job_of_its_target_in_the_fault_stage(om_vectors, monkeypatch):
    from fixtures.openmessaging import faults
    plain = [v for v in om_vectors.vectors if not faults.is_fault(v)][:2]
    fault = next(v for v in om_vectors.vectors if faults.is_fault(v))
    broker = FakeLive("fakemq")
    broker.version = "9.9"
    items = [_Item(f"t.py::test_amqp091[{v.id}::fakemq-9.9]", v, broker.target, "amqp091") for v in [*plain, fault]]
    ran = []

    def run_vector(v, b, p, r):
        time.sleep(0.2 if v in plain else 0)
        ran.append((v.id, b.shared.get(faults.FAULT_STAGE, False)))
        return {}, "found"
    monkeypatch.setattr(runner, "run_vector", run_vector)
    session = SimpleNamespace(items=items, config=SimpleNamespace(getoption=lambda name: None, stash={}))
    try:
        pool.start(session, broker, om_vectors.registry)
        request = SimpleNamespace(session=session, node=items[2])
        assert pool.result(request, fault, broker, "amqp091", om_vectors.registry) == ({}, "found")
    finally:
        pool.shutdown()
    assert sorted(ran[:2]) == sorted((v.id, False) for v in plain)      # the pool never runs a fault vector
    assert ran[2] == (fault.id, True)


def test_targets_fault_stages_begin_when_the_process_moves_on_and_run_side_by_side(om_vectors, monkeypatch):
    # leave() begins a target's fault stage in the background; two targets' stages overlap (each fault
    # run of one waits, bounded, until the other's has begun), and the fault tests get their results.
    import threading

    from fixtures.openmessaging import faults
    fault = next(v for v in om_vectors.vectors if faults.is_fault(v))
    brokers = [FakeLive("fakemq"), FakeLive("othermq")]
    for b in brokers:
        b.version = "9.9"
    items = [_Item(f"t.py::test_amqp091[{fault.id}::{b.target.name}]", fault, b.target, "amqp091") for b in brokers]
    begun = {b.target.name: threading.Event() for b in brokers}

    def run_vector(v, b, p, r):
        begun[b.target.name].set()
        other = next(n for n in begun if n != b.target.name)
        return {"saw_the_other": begun[other].wait(10)}, "found"
    monkeypatch.setattr(runner, "run_vector", run_vector)
    session = SimpleNamespace(items=items, config=SimpleNamespace(getoption=lambda name: None, stash={}))
    try:
        for b in brokers:
            pool.start(session, b, om_vectors.registry)
        for b in brokers:
            pool.leave(session, b.target.name)
        for b, item in zip(brokers, items, strict=True):
            request = SimpleNamespace(session=session, node=item)
            assert pool.result(request, fault, b, "amqp091", om_vectors.registry) == ({"saw_the_other": True}, "found")
    finally:
        pool.shutdown()
    assert all(b.shared.get(faults.FAULT_STAGE) for b in brokers)
