"""The OpenMessaging header mapping: loads, is complete, agrees with the bindings; bad files say where."""
import pytest

from fixtures.openmessaging.mapping import MappingError, load_mapping
from fixtures.openmessaging.model import HEADERS, TYPES
from fixtures.outcomes import AdapterLimitation, Unsupported


@pytest.fixture(scope="module")
def mapping():
    return load_mapping()


def test_every_header_and_type_mapped_for_every_protocol(mapping):
    assert set(mapping.headers) == set(HEADERS)
    assert set(mapping.property_types) == set(TYPES)
    for per in list(mapping.headers.values()) + list(mapping.property_types.values()):
        assert set(per) == set(mapping.protocols)


def test_missing_native_field_is_unsupported_with_reason(mapping):
    with pytest.raises(Unsupported, match="no native field"):
        mapping.header("bornHost", "amqp091").require("rabbitmq")
    assert mapping.header("messageId", "amqp10").require("artemis").native == ("properties.message-id",)


def test_client_library_limit_is_an_adapter_limitation(mapping):
    with pytest.raises(AdapterLimitation, match="pika"):
        mapping.property_type("Double", "amqp091").require(None)


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


def test_bad_file_names_file_line_and_field(tmp_path):
    bad = tmp_path / "headers.yaml"
    bad.write_text("spec: openmessaging\nprotocols: {amqp091: {title: x}}\nproperty_types: {}\n"
                   "headers:\n  messageId:\n    amqp091: {native: [], set_by: broker}\n", encoding="utf-8")
    with pytest.raises(MappingError) as exc:
        load_mapping(bad)
    text = str(exc.value)
    assert "headers.yaml:6" in text and "headers.messageId.amqp091" in text and "reason" in text


def test_unknown_protocol_is_refused(tmp_path):
    bad = tmp_path / "headers.yaml"
    bad.write_text("spec: openmessaging\nprotocols: {amqp091: {title: x}}\nproperty_types: {}\n"
                   "headers:\n  messageId:\n    stomp: {native: [x]}\n", encoding="utf-8")
    with pytest.raises(MappingError, match="protocol not listed"):
        load_mapping(bad)
