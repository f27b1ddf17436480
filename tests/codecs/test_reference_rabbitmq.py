"""reference_rabbitmq: the ce-rabbitmq reference codec (AMQP 0-9-1)."""
from __future__ import annotations

import datetime as dt
import json

import pytest

from fixtures.codecs import reference_rabbitmq as ref
from fixtures.codecs import wire_amqp091
from fixtures.codecs.base import DecodeError
from fixtures.codecs.model import Amqp091Message, Attr, Event, Typed

UTC = dt.UTC
T0 = dt.datetime(2018, 4, 5, 3, 56, 24, tzinfo=UTC)


def event(data=None, **extra) -> Event:
    attrs = {"specversion": Attr("string", "1.0"), "id": Attr("string", "12341234"),
             "source": Attr("uri-reference", "example/source.uri"), "type": Attr("string", "com.example.someevent")}
    attrs.update(extra)
    return Event(attrs, data)


def S(v):
    return Typed("string", v)


REQUIRED = {"ce-specversion": S("1.0"), "ce-id": S("12341234"), "ce-source": S("example/source.uri"),
            "ce-type": S("com.example.someevent")}


def message(headers=None, content_type=None, body=b"data") -> Amqp091Message:
    props = {"content-type": content_type} if content_type else {}
    return Amqp091Message(properties=props, headers={**REQUIRED, **(headers or {})}, body=body)


def test_binary_headers_and_content_type():
    ev = event(b"avro!", datacontenttype=Attr("string", "application/avro"), time=Attr("timestamp", T0),
               extension=Attr("string", "test extension value"), flag=Attr("boolean", True),
               n=Attr("integer", 7), blob=Attr("binary", b"\x00"))
    msg = ref.to_binary(ev)
    assert msg.properties == {"content-type": "application/avro"}
    assert msg.headers == {**REQUIRED, "ce-time": S("2018-04-05T03:56:24Z"), "ce-extension": S("test extension value"),
                           "ce-flag": Typed("boolean", True), "ce-n": Typed("long", 7), "ce-blob": Typed("binary", b"\x00")}
    assert "ce-datacontenttype" not in msg.headers       # 3.1.3: datacontenttype is not a header
    assert msg.body == b"avro!"


def test_binary_headers_are_writable_by_pika():
    msg = ref.to_binary(event(n=Attr("integer", 1), flag=Attr("boolean", False), time=Attr("timestamp", T0)))
    props, body = wire_amqp091.message_to_pika(msg)
    assert wire_amqp091.message_from_pika(wire_amqp091.properties_from_bytes(wire_amqp091.properties_to_bytes(props)),
                                          body) == msg


def test_structured():
    msg = ref.to_structured(event(b"<a/>", datacontenttype=Attr("string", "application/xml")))
    assert msg.properties == {"content-type": "application/cloudevents+json"}
    assert msg.headers == {}
    assert json.loads(msg.body)["id"] == "12341234"


def test_spec_example_with_ce_datacontenttype_header_is_accepted():
    msg = message({"ce-extension": S("test extension value"), "ce-datacontenttype": S("application/avro")},
                  content_type="application/avro")
    ev = ref.from_message(msg)
    assert ev.get("datacontenttype") == "application/avro"
    assert ev.get("extension") == "test extension value"


def test_ce_datacontenttype_header_alone_is_used():
    assert ref.from_message(message({"ce-datacontenttype": S("text/plain")})).get("datacontenttype") == "text/plain"


@pytest.mark.parametrize("value", [S("2018-04-05T03:56:24Z"), Typed("timestamp", 1522900584)])
def test_time_native_seconds_or_string(value):
    assert ref.from_message(message({"ce-time": value})).get("time") == T0


@pytest.mark.parametrize("value, expected", [
    (Typed("long", 5), Attr("integer", 5)), (Typed("int", -5), Attr("integer", -5)),
    (Typed("boolean", False), Attr("boolean", False)), (Typed("binary", b"\x01"), Attr("binary", b"\x01")),
    (S("x"), Attr("string", "x")),
])
def test_extension_native_types(value, expected):
    assert ref.from_message(message({"ce-ext": value})).attributes["ext"] == expected


@pytest.mark.parametrize("value", [Typed("double", 1.0), Typed("map", {}), Typed("null", None)])
def test_extension_without_cloudevents_type_is_refused(value):
    with pytest.raises(DecodeError, match="ce-ext"):
        ref.from_message(message({"ce-ext": value}))


@pytest.mark.parametrize("missing", ["specversion", "id", "source", "type"])
def test_missing_required_is_named(missing):
    msg = message()
    del msg.headers["ce-" + missing]
    with pytest.raises(DecodeError, match=repr(missing)):
        ref.from_message(msg)


def test_bad_specversion():
    with pytest.raises(DecodeError, match="specversion"):
        ref.from_message(message({"ce-specversion": S("0.3")}))


@pytest.mark.parametrize("content_type", ["application/cloudevents+json", "APPLICATION/CLOUDEVENTS+JSON"])
def test_structured_detection_accepts_both_cases(content_type):
    body = json.dumps({"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}).encode()
    assert ref.from_message(Amqp091Message(properties={"content-type": content_type}, body=body)).get("id") == "1"


def test_unknown_format_is_binary():
    ev = ref.from_message(message(content_type="application/cloudevents+avro", body=b"\x00"))
    assert ev.get("datacontenttype") == "application/cloudevents+avro" and ev.data == b"\x00"


def test_empty_body_is_no_data():
    assert ref.from_message(message(body=b"")).data is None


@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_round_trip(mode):
    codec = ref.ReferenceRabbitMQCodec()
    ev = event(b'{"a":1}', datacontenttype=Attr("string", "application/json"),
               time=Attr("timestamp", T0.replace(microsecond=250000)), n=Attr("integer", 3))
    back = codec.decode(codec.encode(ev, mode))
    assert back.attributes == ev.attributes
    assert json.loads(back.data) == {"a": 1}
