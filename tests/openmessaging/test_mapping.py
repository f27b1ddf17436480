"""The OpenMessaging header mapping: loads, is complete, states the text's constraints and who is
responsible (with the sentence), agrees with the bindings; bad files say where."""
import pytest

from fixtures.openmessaging.mapping import MappingError, NoNativeField, load_mapping
from fixtures.openmessaging.model import HEADERS, TYPES
from fixtures.vectordata import spectext
from fixtures.verdict.outcomes import Unsupported


@pytest.fixture(scope="module")
def mapping():
    return load_mapping()


@pytest.fixture(scope="module")
def clauses(om_registry):
    return om_registry.specs["openmessaging"]


def test_every_header_and_type_mapped_for_every_protocol(mapping):
    assert set(mapping.headers) == set(HEADERS)
    assert set(mapping.property_types) == set(TYPES)
    for per in list(mapping.headers.values()) + list(mapping.property_types.values()):
        assert set(per) == set(mapping.protocols)


def test_every_header_states_its_constraint_and_the_clause_that_sets_it(mapping, clauses):
    levels = {c.id: c.level for c in clauses.clauses}
    for name in HEADERS:
        c = mapping.constraints[name]
        want = "-required" if c.level == "REQUIRED" else "-optional"
        assert c.clause.endswith(want), (name, c)
        assert levels[c.clause] == ("MUST" if c.level == "REQUIRED" else "MAY"), (name, c)
    assert mapping.constraints["bornHost"].level == "REQUIRED"
    assert mapping.constraints["storeHost"].level == "REQUIRED"
    assert mapping.constraints["storeTimestamp"].level == "REQUIRED"
    assert mapping.constraints["priority"].clause == "openmessaging/system-header/priority-optional"


def test_responsibility_is_quoted_verbatim_or_explained(mapping):
    for name in list(HEADERS) + ["version"]:
        r = mapping.responsibles[name]
        assert r.party in ("client", "server", "provider")
        if r.because:
            assert spectext.quote_in_spec("openmessaging", r.because), (name, r.because)
        else:
            assert r.silent and len(r.silent) > 40, name
    # one rule: sentences of the same shape give the same party
    assert mapping.responsibles["messageId"].party == "provider"
    assert mapping.responsibles["bornTimestamp"].party == "provider"
    assert mapping.responsibles["bornHost"].party == "provider"
    assert {mapping.responsibles[h].party for h in ("storeTimestamp", "storeHost", "deliveryCount")} == {"server"}


def test_required_without_native_field_is_a_no_native_field_failure(mapping):
    with pytest.raises(NoNativeField, match="no native field") as exc:
        mapping.header("storeHost", "amqp091").require("rabbitmq")
    assert exc.value.constraint.level == "REQUIRED"
    with pytest.raises(NoNativeField, match="Broker-J adds no arrival time"):
        mapping.header("storeTimestamp", "amqp091").require("qpid-broker-j")
    with pytest.raises(NoNativeField):
        mapping.header("storeHost", "amqp10").require("artemis")
    # the version part: client-side, carried where no protocol has a field
    assert mapping.feature("version", "rocketmq-grpc").require("rocketmq").carried_in == "properties.om_version"


def test_optional_without_native_field_is_unsupported_naming_its_may_clause(mapping):
    with pytest.raises(Unsupported) as exc:
        mapping.header("priority", "rocketmq-grpc").require("rocketmq")
    assert exc.value.feature == "openmessaging/system-header/priority-optional"
    with pytest.raises(Unsupported) as exc:
        mapping.feature("settled-delivery", "rocketmq-grpc").require("rocketmq")
    assert exc.value.feature == "openmessaging/delivery-semantics/at-most-once"


def test_client_side_required_header_is_carried_by_the_mapping(mapping):
    for proto in ("amqp091", "amqp10"):
        f = mapping.header("bornHost", proto)
        assert f.native == () and f.carried_in and f.set_by == "mapping"
        assert f.require("rabbitmq") is f
    # never for a server-side header, nor for one whose text asks the provider to act on it
    for name, per in mapping.headers.items():
        for f in per.values():
            if f.carried_in:
                assert mapping.responsibles[name].party != "server", name
                assert f.honoured_by is None, name


def test_who_set_decides_credit(mapping):
    # provider-side: the reference provider's own stack (our mapping) counts; beside a product
    # provider, our adapter code does not
    mid = mapping.header("messageId", "amqp091")
    assert mid.credited("mapping") and mid.credited("client-library") and mid.credited("broker")
    assert not mid.credited("mapping", "product") and mid.credited("provider", "product")
    assert mapping.header("queue", "amqp091").credited("consumer-context")
    assert mapping.header("bornTimestamp", "amqp091").credited("mapping")
    # server-side: only the broker, for any provider
    for who in ("mapping", "client-library", "provider", "nobody"):
        assert not mapping.header("deliveryCount", "amqp091").credited(who)
        assert not mapping.header("deliveryCount", "amqp091").credited(who, "product")
    assert mapping.header("deliveryCount", "amqp091").credited("broker")


def test_a_limit_of_the_reference_providers_client_library_is_its_lack(mapping):
    # pika and rocketmq-python-client are what the reference provider is built on: what they cannot do,
    # that provider lacks, by the constraint (a type the type system requires: its checks fail; an
    # OPTIONAL header: not offered). Never the suite's adapter error.
    with pytest.raises(NoNativeField, match="pika"):
        mapping.property_type("Double", "amqp091").require(None)
    with pytest.raises(Unsupported, match="rocketmq-python-client") as info:
        mapping.header("traceId", "rocketmq-grpc").require("rocketmq")
    assert info.value.feature == "openmessaging/system-header/trace-id-optional"


def test_scenario_needs(mapping):
    assert mapping.needs("delay") == ["delayTime"]
    assert mapping.needs("expiry", {"unset_only": True}) == []
    assert mapping.needs("expiry", {}) == ["expireTime"]


def test_per_product_facts(mapping):
    expire = mapping.header("expireTime", "amqp091")
    assert expire.product_fact("qpid-broker-j", "encoding") == "absolute-ms"
    assert expire.support("rabbitmq") is None and expire.product_fact("rabbitmq", "encoding") is None
    assert mapping.header("bornTimestamp", "amqp091").unit == "seconds"
    assert mapping.queue_args("rabbitmq", "counting") == {"x-queue-type": "quorum"}


def test_lossy_seconds_mappings_say_so(mapping):
    for proto in ("amqp091", "rocketmq-grpc"):
        f = mapping.header("bornTimestamp", proto)
        assert f.unit == "seconds" and f.lossy


HEADER_TEXT = ("spec: openmessaging\nprotocols: {amqp091: {title: x}}\nproperty_types: {}\nheaders:\n  messageId:\n"
               "    constraint: {level: REQUIRED, clause: openmessaging/system-header/message-id-required}\n"
               "    responsible: {party: provider, because: \"When the send method returns it contains a value.\"}\n")


def test_bad_file_names_file_line_and_field(tmp_path):
    bad = tmp_path / "headers.yaml"
    bad.write_text(HEADER_TEXT + "    amqp091: {native: [], set_by: broker}\n", encoding="utf-8")
    with pytest.raises(MappingError) as exc:
        load_mapping(bad)
    text = str(exc.value)
    assert "headers.yaml:" in text and "headers.messageId.amqp091" in text


def test_a_header_without_constraint_is_refused(tmp_path):
    bad = tmp_path / "headers.yaml"
    bad.write_text("spec: openmessaging\nprotocols: {amqp091: {title: x}}\nproperty_types: {}\n"
                   "headers:\n  messageId:\n    amqp091: {native: [x]}\n", encoding="utf-8")
    with pytest.raises(MappingError, match="constraint"):
        load_mapping(bad)


def test_unknown_protocol_is_refused(tmp_path):
    bad = tmp_path / "headers.yaml"
    bad.write_text(HEADER_TEXT + "    stomp: {native: [x]}\n    amqp091: {native: [x]}\n", encoding="utf-8")
    with pytest.raises(MappingError, match="protocol not listed"):
        load_mapping(bad)
