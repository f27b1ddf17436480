"""jsonforms: the codec protocol's JSON forms <-> the typed model, both ways, and its errors."""
from __future__ import annotations

import datetime as dt
import json
import math
import uuid
from decimal import Decimal

import pytest

from fixtures.codecs import jsonforms as jf
from fixtures.codecs.model import Amqp091Message, AmqpBody, AmqpMessage, Attr, Event, RocketMQMessage, Typed

EVERY_TYPE = [
    Typed("null", None), Typed("boolean", True), Typed("boolean", False),
    Typed("byte", -128), Typed("short", 32767), Typed("int", -2 ** 31), Typed("long", 2 ** 63 - 1),
    Typed("ubyte", 255), Typed("ushort", 0), Typed("uint", 2 ** 32 - 1), Typed("ulong", 2 ** 64 - 1),
    Typed("float", 1.5), Typed("double", -0.25), Typed("double", math.inf), Typed("float", -math.inf),
    Typed("timestamp", 1522900584000), Typed("timestamp", -1), Typed("string", "é\u0000x"),
    Typed("symbol", "application/json"), Typed("binary", b""), Typed("binary", b"\x00\xff"),
    Typed("uuid", uuid.UUID("12345678-1234-5678-1234-567812345678")), Typed("decimal", Decimal("-1.50")),
    Typed("list", [Typed("int", 1), Typed("list", [])]),
    Typed("map", {"a": Typed("map", {"b": Typed("string", "c")}), "": Typed("null", None)}),
]


@pytest.mark.parametrize("typed", EVERY_TYPE, ids=repr)
def test_every_wire_type_round_trips_through_json_text(typed):
    text = json.dumps(jf.typed_to_json(typed), allow_nan=False)   # strict JSON: no NaN literals
    assert jf.typed_from_json(json.loads(text), "v") == typed


def test_nan_is_a_string_and_reads_back_as_nan():
    form = jf.typed_to_json(Typed("double", math.nan))
    assert form == {"double": "NaN"}
    assert math.isnan(jf.typed_from_json(form, "v").value)


def test_float_accepts_a_json_integer():
    assert jf.typed_from_json({"double": 2}, "v") == Typed("double", 2.0)


@pytest.mark.parametrize("form, problem", [
    ({"ulong": 2 ** 64}, "v.ulong: 18446744073709551616 is outside the range of ulong"),
    ({"ubyte": -1}, "v.ubyte: -1 is outside the range of ubyte"),
    ({"int": True}, "v.int: int must be a JSON integer, got True"),
    ({"long": 1.0}, "v.long: long must be a JSON integer"),
    ({"timestamp": "2018-04-05T03:56:24Z"}, "v.timestamp: timestamp must be a JSON integer"),
    ({"binary": "not base64!"}, "v.binary: binary must be base64"),
    ({"uuid": "1234"}, "v.uuid: uuid must be a canonical UUID string"),
    ({"uuid": "{12345678-1234-5678-1234-567812345678}"}, "v.uuid: uuid must be in the canonical form"),
    ({"decimal": "one"}, "v.decimal: decimal must be a decimal number string"),
    ({"double": "nan"}, "v.double: double must be a JSON number"),
    ({"null": 0}, "v.null: null holds null"),
    ({"bool": True}, "v: unknown wire type 'bool'"),
    ({"string": "a", "symbol": "b"}, "v: a one-key object"),
    ({"list": [{"int": 1}, {"int": "2"}]}, "v.list[1].int: int must be a JSON integer"),
    ({"map": {"k": {"map": {"j": {"ushort": 70000}}}}}, "v.map.k.map.j.ushort: 70000 is outside"),
])
def test_typed_errors_name_the_field_path(form, problem):
    with pytest.raises(jf.FormError) as err:
        jf.typed_from_json(form, "v")
    assert str(err.value).startswith(problem)


# ---- events

T_OFFSET = dt.datetime(2018, 4, 5, 3, 56, 24, 123456, tzinfo=dt.timezone(dt.timedelta(hours=-5)))


def test_event_round_trips_every_cloudevents_type():
    event = Event({"specversion": Attr("string", "1.0"), "id": Attr("string", "A1"),
                   "source": Attr("uri-reference", "/ctx"), "type": Attr("string", "t"),
                   "time": Attr("timestamp", T_OFFSET), "myint": Attr("integer", -2 ** 31),
                   "mybool": Attr("boolean", False), "mybin": Attr("binary", b""), "myuri": Attr("uri", "http://x/")},
                  b'{"a":1}')
    form = json.loads(json.dumps(jf.event_to_json(event)))
    back = jf.event_from_json(form)
    assert back == event and back.attributes["time"].value.utcoffset() == dt.timedelta(hours=-5)


def test_absent_data_and_empty_data_differ():
    base = {"specversion": Attr("string", "1.0")}
    assert jf.event_to_json(Event(base, None))["data"] is None
    assert jf.event_to_json(Event(base, b""))["data"] == ""
    assert jf.event_from_json({"attributes": {}}).data is None
    assert jf.event_from_json({"attributes": {}, "data": None}).data is None
    assert jf.event_from_json({"attributes": {}, "data": ""}).data == b""


def test_utc_timestamps_are_written_with_z():
    t = dt.datetime(2018, 4, 5, 3, 56, 24, tzinfo=dt.UTC)
    assert jf.attr_to_json("time", Attr("timestamp", t)) == {"timestamp": "2018-04-05T03:56:24Z"}


def test_a_decoded_time_without_offset_is_kept_naive():
    a = jf.attr_from_json({"timestamp": "2018-04-05T03:56:24"}, "event.attributes.time")
    assert a == Attr("timestamp", dt.datetime(2018, 4, 5, 3, 56, 24))


def test_other_values_read_as_other_types():
    a = jf.attr_from_json({"other": {"api_type": "float", "value": 1.5}}, "p")
    assert a == Attr("other:float", 1.5)


@pytest.mark.parametrize("form, problem", [
    ({"attributes": {"time": {"timestamp": 12}}},
     "event.attributes.time.timestamp: timestamp (an RFC 3339 date-time) must be a string, got 12"),
    ({"attributes": {"time": {"timestamp": "yesterday"}}}, "event.attributes.time.timestamp: timestamp must be an RFC 3339"),
    ({"attributes": {"n": {"integer": "5"}}}, "event.attributes.n.integer: integer must be a JSON integer"),
    ({"attributes": {"n": {"long": 5}}}, "event.attributes.n: unknown CloudEvents type 'long'"),
    ({"attributes": {"b": {"boolean": 1}}}, "event.attributes.b.boolean: boolean must be true or false"),
    ({"attributes": {}, "data": "***"}, "event.data: data must be base64"),
    ({"attributes": [], "data": None}, "event.attributes: an object is expected"),
    ({"attributes": {}, "extensions": {}}, "event: unknown field 'extensions'"),
    ({"attributes": {"x": {"other": {"value": 1}}}}, "event.attributes.x.other.api_type: api_type must be a string"),
])
def test_event_errors_name_the_field_path(form, problem):
    with pytest.raises(jf.FormError) as err:
        jf.event_from_json(form)
    assert str(err.value).startswith(problem)


@pytest.mark.parametrize("attr", [Attr("integer", "5"), Attr("timestamp", "2018-04-05T03:56:24Z"),
                                  Attr("boolean", 1), Attr("timestamp", dt.datetime(2018, 1, 1)),
                                  Attr("duration", 5)])
def test_an_attribute_not_of_its_type_is_unrepresentable(attr):
    with pytest.raises(jf.Unrepresentable, match=r"^event\.attributes\.x: "):
        jf.attr_to_json("x", attr)


# ---- messages

AMQP = AmqpMessage(
    properties={"message-id": 7, "correlation-id": uuid.UUID(int=1), "user-id": b"u", "to": "q",
                "content-type": "application/json", "creation-time": 1522900584000, "group-sequence": 2 ** 32 - 1},
    application_properties={"cloudEvents_id": Typed("string", "A1"), "cloudEvents_time": Typed("timestamp", 0),
                            "cloudEvents_n": Typed("ulong", 2 ** 64 - 1)},
    body=AmqpBody("data", (b"", b"\x00")), header={"durable": True, "priority": 9, "ttl": 1000},
    message_annotations={"x-opt-foo": Typed("symbol", "v")})


@pytest.mark.parametrize("msg", [
    AMQP,
    AmqpMessage(body=AmqpBody("data", ())),
    AmqpMessage(body=AmqpBody("value", value=Typed("map", {"a": Typed("list", [Typed("null", None)])}))),
    AmqpMessage(body=AmqpBody("sequence", value=Typed("list", [Typed("int", 1), Typed("binary", b"")]))),
    Amqp091Message(properties={"content-type": "application/json", "delivery-mode": 2, "timestamp": 1522900584},
                   headers={"ce-id": Typed("string", "A1"), "ce-n": Typed("long", -1), "t": Typed("timestamp", 5)},
                   body=b"\x00"),
    Amqp091Message(),
    RocketMQMessage(topic="t", properties={"CE_id": "A1"}, body=b"{}", tag="x", keys=("k1", "k2")),
    RocketMQMessage(),
], ids=lambda m: type(m).__name__)
def test_messages_round_trip_through_json_text(msg):
    text = json.dumps(jf.message_to_json(msg), allow_nan=False)
    assert jf.message_from_json(json.loads(text)) == msg


def test_amqp_properties_are_typed_with_their_amqp_type():
    form = jf.message_to_json(AMQP)
    assert form["properties"]["message-id"] == {"ulong": 7}
    assert form["properties"]["content-type"] == {"symbol": "application/json"}
    assert form["properties"]["creation-time"] == {"timestamp": 1522900584000}
    assert form["header"]["priority"] == {"ubyte": 9}
    assert form["body"] == {"data": ["", "AA=="]}


@pytest.mark.parametrize("form, problem", [
    ({"protocol": "amqp"}, "message.protocol: one of amqp10, amqp091, rocketmq is expected, got 'amqp'"),
    ({"protocol": "amqp10", "properties": {"content-type": {"string": "a/b"}}},
     "message.properties.content-type: the AMQP type of this field is symbol, got string"),
    ({"protocol": "amqp10", "properties": {"content_type": {"symbol": "a/b"}}},
     "message.properties.content_type: not an AMQP 1.0 property"),
    ({"protocol": "amqp10", "header": {"priority": {"ubyte": 256}}}, "message.header.priority.ubyte: 256 is outside"),
    ({"protocol": "amqp10", "body": {"data": "AA=="}}, "message.body.data: data must be a JSON array"),
    ({"protocol": "amqp10", "body": {"data": ["%%"]}}, "message.body.data[0]: data section must be base64"),
    ({"protocol": "amqp10", "body": {"amqp-value": {"int": 1}}}, "message.body: a body is"),
    ({"protocol": "amqp10", "application_properties": {"cloudEvents_time": {"timestamp": "x"}}},
     "message.application_properties.cloudEvents_time.timestamp: timestamp must be a JSON integer"),
    ({"protocol": "amqp10", "applicationProperties": {}}, "message: unknown field 'applicationProperties'"),
    ({"protocol": "amqp091", "properties": {"timestamp": "2018"}}, "message.properties.timestamp: timestamp must be"),
    ({"protocol": "amqp091", "properties": {"content-type": 5}}, "message.properties.content-type: content-type must be a string"),
    ({"protocol": "amqp091", "properties": {"headers": {}}}, "message.properties.headers: not an AMQP 0-9-1 basic property"),
    ({"protocol": "amqp091", "headers": {"ce-id": "A1"}}, "message.headers.ce-id: an object is expected"),
    ({"protocol": "rocketmq", "properties": {"CE_id": 1}}, "message.properties.CE_id: a RocketMQ property must be a string"),
    ({"protocol": "rocketmq", "keys": "k"}, "message.keys: keys must be a JSON array"),
])
def test_message_errors_name_the_field_path(form, problem):
    with pytest.raises(jf.FormError) as err:
        jf.message_from_json(form)
    assert str(err.value).startswith(problem)


def test_two_sequence_sections_are_the_models_limit():
    with pytest.raises(jf.Unrepresentable, match="holds exactly one"):
        jf.message_from_json({"protocol": "amqp10", "body": {"sequence": [[], []]}})


def test_a_property_value_not_of_its_amqp_type_is_unrepresentable():
    with pytest.raises(jf.Unrepresentable, match=r"^message\.properties\.content-type: "):
        jf.message_to_json(AmqpMessage(properties={"content-type": 5}))
    with pytest.raises(jf.Unrepresentable, match=r"^message\.properties\.delivery-mode: "):
        jf.message_to_json(Amqp091Message(properties={"delivery-mode": "2"}))
