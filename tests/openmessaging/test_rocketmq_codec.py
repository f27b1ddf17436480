"""The RocketMQ binding's pure parts: property values as strings and back, reply addresses, mapping agreement."""
import math
import struct

import pytest

from fixtures.openmessaging.mapping import load_mapping
from fixtures.openmessaging.model import OMValue, value_from_data
from fixtures.openmessaging.rocketmq_codec import (
    CORRELATION_ID,
    INTERNAL_PROPERTIES,
    float_text,
    parse_reply_address,
    read_as,
    reply_address,
    value_text,
)

FLT_MAX = struct.unpack(">f", struct.pack(">f", 3.4028234663852886e+38))[0]


@pytest.mark.parametrize("spec", [
    {"float": 1.0e-45}, {"float": 3.4028234663852886e+38}, {"float": 0.1}, {"float": "-0.0"},
    {"float": "NaN"}, {"float": "Infinity"}, {"float": "-Infinity"},
    {"double": 5e-324}, {"double": 1.7976931348623157e+308}, {"double": 0.1}, {"double": "-0.0"},
    {"short": -32768}, {"integer": 2147483647}, {"long": -9223372036854775808}, {"string": "Grüße 消息"},
])
def test_values_survive_as_text(spec):
    sent = value_from_data(spec)
    got = read_as(OMValue("String", value_text(sent)), sent.type)
    assert got.same_content(sent), (value_text(sent), got)


def test_float_text_is_the_shortest_round_trip():
    assert float_text(struct.unpack(">f", struct.pack(">f", 0.1))[0], True) == "0.1"
    assert float_text(FLT_MAX, True) == "3.4028235e+38"     # "3e+38" reads back to another float
    assert float_text(0.1, False) == "0.1"
    assert (float_text(math.nan, True), float_text(-math.inf, False)) == ("nan", "-inf")


def test_text_that_is_not_the_type_stays_a_string():
    assert read_as(OMValue("String", "3.5"), "Integer") == OMValue("String", "3.5")
    assert read_as(OMValue("String", "abc"), "Double") == OMValue("String", "abc")
    assert read_as(OMValue("String", "7"), "String") == OMValue("String", "7")
    assert not read_as(OMValue("String", "7"), "Integer").same_content(OMValue("Integer", 8))


def test_binary_has_no_text_form():
    with pytest.raises(ValueError):
        value_text(OMValue("Binary", b"\x00"))


def test_reply_address_round_trip_and_refusal():
    assert parse_reply_address(reply_address("mqc_om_x_normal", "omabc", "omabc_g0")) == (
        "mqc_om_x_normal", "omabc", "omabc_g0")
    with pytest.raises(ValueError, match="topic/tag/group"):
        parse_reply_address("just-a-queue")


def test_binding_names_agree_with_the_mapping():
    m = load_mapping()
    assert m.header("correlationId", "rocketmq-grpc").carried_in == f"properties.{CORRELATION_ID}"
    assert CORRELATION_ID in INTERNAL_PROPERTIES
    # types the binding writes as text are exactly those the mapping gives a string native form
    textual = {t for t, per in m.property_types.items() if per["rocketmq-grpc"].native == ("string",)}
    assert textual == {"String", "Short", "Integer", "Long", "Float", "Double"}
