"""The responsibility rule over every header of vectors/openmessaging/mapping/headers.yaml, and the
broker-profile data (vectors/openmessaging/profile.yaml). Pure code."""
import pytest

from fixtures.openmessaging import profile as om_profile
from fixtures.openmessaging.mapping import default_mapping
from fixtures.openmessaging.responsibility import credited, party_of
from fixtures.vectordata import spectext

# The party the rule gives each header (audited against the sentence of the text; docs/verdicts.md).
EXPECTED = {
    "messageId": "provider", "topic": "client", "queue": "provider", "bornTimestamp": "provider",
    "bornHost": "provider", "storeTimestamp": "server", "storeHost": "server", "priority": "client",
    "durability": "client", "searchKey": "client", "delayTime": "client", "expireTime": "client",
    "traceId": "client", "compression": "provider", "transactionId": "provider", "deliveryCount": "server",
    "correlationId": "client",
}


@pytest.fixture(scope="module")
def mapping():
    return default_mapping()


def test_every_header_gets_its_party_from_the_shape_of_its_sentence(mapping):
    assert set(mapping.headers) == set(EXPECTED)
    for name in mapping.headers:
        r = mapping.responsibles[name]
        assert r.party == EXPECTED[name], name
        if r.because:
            assert party_of(r.because) == r.party, (name, r.because)
            assert spectext.quote_in_spec("openmessaging", r.because), name
        else:
            assert r.silent and party_of(r.silent) in (None, r.party), name


def test_sentences_of_one_shape_give_one_party():
    # the two sentences of issue 25 (messageId, bornTimestamp) and bornHost's have the same shape
    same = ["When a message is sent, messageId is ignored. When the send method returns it contains a "
            "provider-assigned value.",
            "When a message is sent, bornTimestamp is ignored. When the send method returns, the field contains "
            "a time value somewhere in the interval between the call and the return.",
            "When a message is sent, this field will be set with the local host info of client."]
    assert {party_of(s) for s in same} == {"provider"}
    assert party_of("when a message is stored by server, this field will be set with the host info of server.") \
        == "server"
    assert party_of("A client can use the correlationId header field to link one message with another.") == "client"
    assert party_of("An identity of a message logic destination.") is None


def test_a_server_side_value_passes_only_when_the_broker_set_it():
    for role in ("reference", "product"):
        assert credited("server", "broker", role)
        for who in ("mapping", "client-library", "provider", "consumer-context", "nobody"):
            assert not credited("server", who, role), (who, role)


def test_a_provider_side_value_is_the_providers_own_stacks():
    assert credited("provider", "mapping", "reference")          # the reference provider IS our mapping
    assert not credited("provider", "mapping", "product")        # beside a product provider: our adapter
    assert credited("provider", "provider", "product") and not credited("provider", "nobody", "reference")


def test_a_count_derived_from_the_redelivered_bit_is_the_mappings(mapping):
    f = mapping.header("deliveryCount", "amqp091")
    assert f.derived_from and "redelivered" in f.derived_from
    assert "deliver.redelivered" not in f.native and not f.credited("mapping")


def test_headers_the_text_asks_to_act_on_are_offered_only_by_behaviour(mapping):
    acted = {n for n, per in mapping.headers.items() if next(iter(per.values())).honoured_by}
    assert acted == {"priority", "durability", "searchKey", "delayTime", "expireTime"}
    prof = om_profile.default_profile()
    for name in acted:
        h = mapping.header(name, "amqp091").honoured_by
        assert prof.by_id(h.profile).scenario == h.scenario, name


def test_profile_quotes_are_verbatim_and_parties_server_or_provider():
    prof = om_profile.default_profile()
    ids = {r.id for r in prof.requirements}
    assert {"store-timestamp", "store-host", "delivery-count", "redelivery", "durability", "priority", "expiry",
            "delay", "ordering", "at-most-once", "at-least-once", "exactly-once"} <= ids
    assert any(i.startswith("use-case-") for i in ids)
    for r in prof.requirements:
        assert r.party in ("server", "provider"), r.id
        assert spectext.quote_in_spec("openmessaging", r.quote), (r.id, r.quote)


def test_profile_credit_comes_from_observation_only():
    # priorities delivered in arrival order: checked and not seen
    e = om_profile.from_observations("priority-order", {"inversion_rate": 1.0, "not_by_chance": False,
                                                        "better_than_without_priority": False,
                                                        "normal_in_send_order": True}, "x")
    assert e["priority"]["status"] == "absent" and e["ordering"]["status"] == "native"
    e = om_profile.from_observations("priority-order", {"inversion_rate": 0.0, "not_by_chance": True,
                                                        "better_than_without_priority": True}, "x")
    assert e["priority"]["status"] == "native" and "ordering" not in e      # not observed: not written
    # an order the destination gives the same backlog without priorities is not priority handling
    e = om_profile.from_observations("priority-order", {"inversion_rate": 0.18, "not_by_chance": True,
                                                        "better_than_without_priority": False}, "x")
    assert e["priority"]["status"] == "absent"
    # a low inversion rate that a random interleave gives as often is not priority handling
    e = om_profile.from_observations("priority-order", {"inversion_rate": 0.3, "not_by_chance": False,
                                                        "better_than_without_priority": True}, "x")
    assert e["priority"]["status"] == "absent"
    e = om_profile.from_observations("expiry", {"expired_delivered": True, "control_delivered": True}, "x")
    assert e["expiry"]["status"] == "absent"
    # who set a header: the broker's field -> native; nobody -> absent
    assert om_profile.from_set_by({"storeHost": "broker"}, "x")["store-host"]["status"] == "native"
    assert om_profile.from_set_by({"storeHost": "nobody"}, "x")["store-host"]["status"] == "absent"
    # the count, by what it does: one higher each time (native; emulated when our mapping derived it),
    # partial when one step observed was one and the other not, whoever wrote the field (an Artemis crash
    # redelivery uncounted, a failed consumption counted); absent when neither was
    steps = {"count_step_after_crash": 1, "count_step_after_failure": 1}
    broker = {k: ["deliveryCount", ["broker"]] for k in steps}
    mapping = {k: ["deliveryCount", ["mapping"]] for k in steps}
    assert om_profile.from_observations("redelivery", steps, "x", sources=broker)["delivery-count"]["status"] == "native"
    assert om_profile.from_observations("redelivery", steps, "x", sources=mapping)["delivery-count"]["status"] == "emulated"
    crash_uncounted = {**steps, "count_step_after_crash": 0}
    assert om_profile.from_observations("redelivery", crash_uncounted, "x", sources=broker)["delivery-count"]["status"] == "partial"
    uncounted = {"count_step_after_crash": 0, "count_step_after_failure": 0}
    assert om_profile.from_observations("redelivery", uncounted, "x", sources=broker)["delivery-count"]["status"] == "absent"
    # a step that held only on a count our mapping derived (Broker-J over AMQP 0-9-1: the redelivered bit)
    # shows nothing of the broker's: the other step missed, the requirement is absent, never partial
    derived_crash = {"count_step_after_crash": ["deliveryCount", ["mapping"]],
                     "count_step_after_failure": ["deliveryCount", ["broker"]]}
    one_missed = {"count_step_after_crash": 1, "count_step_after_failure": 0}
    assert om_profile.from_observations("redelivery", one_missed, "x", sources=derived_crash)["delivery-count"]["status"] \
        == "absent"
    assert om_profile.from_observations("redelivery", one_missed, "x", sources=broker)["delivery-count"]["status"] \
        == "partial"
    assert "delivery-count" not in om_profile.from_observations("redelivery", {"count_step_after_crash": 1}, "x")


def test_a_whole_second_timestamp_gets_no_allowance():
    from fixtures.openmessaging.judge import Context, matches
    ctx = Context(called_ms=1_700_000_000_400, returned_ms=1_700_000_000_420)
    ok, _ = matches({"within_send_call": {"tolerance_ms": 1}}, 1_700_000_000_000, ctx)   # truncated to the second
    assert not ok
    assert matches({"within_send_call": {"tolerance_ms": 1}}, 1_700_000_000_410, ctx)[0]


def test_the_reference_provider_names_itself_and_its_broker():
    from fixtures.openmessaging.identity import reference_provider
    broker = {"name": "rabbitmq-4.0.5", "kind": "broker", "version": "4.0.5", "provenance": {"image": "x@sha256:1"}}
    ident = reference_provider(broker, "rabbitmq", "amqp091", "0.1.0+gabc")
    assert ident == {"name": "mqconform-om/amqp091@rabbitmq-4.0.5", "kind": "provider", "role": "reference",
                     "version": "0.1.0+gabc",
                     "provenance": {"broker": "rabbitmq-4.0.5", "broker_product": "rabbitmq", "broker_version": "4.0.5",
                                    "protocol": "amqp091", "broker_image": "x@sha256:1"}}


def test_a_protocol_default_is_the_brokers_message_but_no_evidence_of_behaviour():
    """A value the broker's message states by its protocol's definition, with no field of its own
    (AMQP 1.0: no delivery-count is 0; AMQP 0-9-1: redelivered=false), is the broker's message: credited
    for a server-side header, recorded as `by-protocol` (not `broker`), and never a profile cell's evidence."""
    from fixtures.openmessaging.profile import from_set_by
    from fixtures.openmessaging.responsibility import credited

    assert credited("server", "by-protocol") and credited("client", "by-protocol")
    assert not credited("server", "mapping")
    assert from_set_by({"priority": "by-protocol"}, "over amqp10 on x") == {}
    assert from_set_by({"storeHost": "broker/by-protocol"}, "over amqp10 on x")["store-host"]["status"] == "native"
