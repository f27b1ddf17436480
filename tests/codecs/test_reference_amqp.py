"""reference_amqp: the ce-amqp reference codec, encode and decode, including refusals."""
from __future__ import annotations

import datetime as dt
import json
import uuid

import pytest

from fixtures.codecs import reference_amqp as ref
from fixtures.codecs import wire_amqp10
from fixtures.codecs.base import Codec, DecodeError, Unsupported
from fixtures.codecs.model import AmqpBody, AmqpMessage, Attr, Event, Typed

UTC = dt.UTC
T0 = dt.datetime(2018, 4, 5, 3, 56, 24, tzinfo=UTC)


def event(data=None, **extra) -> Event:
    attrs = {"specversion": Attr("string", "1.0"), "id": Attr("string", "1234-1234-1234"),
             "source": Attr("uri-reference", "/mycontext/subcontext"), "type": Attr("string", "com.example.someevent")}
    attrs.update(extra)
    return Event(attrs, data)


def S(v):
    return Typed("string", v)


def required(prefix="cloudEvents_"):
    return {prefix + "specversion": S("1.0"), prefix + "id": S("1234-1234-1234"),
            prefix + "source": S("/mycontext/subcontext"), prefix + "type": S("com.example.someevent")}


def binary_message(app=None, content_type=None, body=b"{}", prefix="cloudEvents_") -> AmqpMessage:
    props = {"content-type": content_type} if content_type else {}
    return AmqpMessage(properties=props, application_properties={**required(prefix), **(app or {})},
                       body=AmqpBody.of_bytes(body))


# ---- encode ---------------------------------------------------------------------------

def test_binary_uses_native_types_and_the_underscore_prefix():
    ev = event(b'{"a":1}', time=Attr("timestamp", T0), datacontenttype=Attr("string", "application/json"),
               flag=Attr("boolean", True), n=Attr("integer", 42), blob=Attr("binary", b"\x01"),
               dataschema=Attr("uri", "https://example.com/schema"))
    msg = ref.to_binary(ev)
    assert msg.properties == {"content-type": "application/json"}
    assert msg.application_properties == {
        **required(), "cloudEvents_time": Typed("timestamp", 1522900584000), "cloudEvents_flag": Typed("boolean", True),
        "cloudEvents_n": Typed("long", 42), "cloudEvents_blob": Typed("binary", b"\x01"),
        "cloudEvents_dataschema": S("https://example.com/schema")}
    assert "cloudEvents_datacontenttype" not in msg.application_properties
    assert msg.body == AmqpBody("data", (b'{"a":1}',))


def test_binary_data_bytes_are_untouched_and_absent_data_is_an_empty_section():
    assert ref.to_binary(event(b'{ "a" : 1 }')).body.data == (b'{ "a" : 1 }',)
    # AMQP 1.0 core 3.2: a bare message has a body section; RabbitMQ 4.0.5 ends the session otherwise.
    assert ref.to_binary(event()).body == AmqpBody("data", (b"",))


def test_sub_millisecond_time_is_sent_as_canonical_string():
    msg = ref.to_binary(event(time=Attr("timestamp", T0.replace(microsecond=123456))))
    assert msg.application_properties["cloudEvents_time"] == S("2018-04-05T03:56:24.123456Z")


def test_binary_message_survives_proton():
    msg = ref.to_binary(event(b"\x00", time=Attr("timestamp", T0), n=Attr("integer", -1),
                              datacontenttype=Attr("string", "application/octet-stream")))
    assert wire_amqp10.message_from_bytes(wire_amqp10.message_to_bytes(msg)) == msg


def test_structured_is_json_with_the_cloudevents_media_type():
    msg = ref.to_structured(event(b'{"a":1}', datacontenttype=Attr("string", "application/json")))
    assert msg.properties == {"content-type": "application/cloudevents+json; charset=utf-8"}
    assert msg.application_properties == {}
    doc = json.loads(msg.body.single_data())
    assert doc["specversion"] == "1.0" and doc["data"] == {"a": 1}


@pytest.mark.parametrize("ev", [
    Event({"id": Attr("string", "1"), "source": Attr("uri-reference", "/s"), "type": Attr("string", "t")}),
    event(datacontenttype=Attr("string", "text/plain; name=é")),   # content-type is an ASCII symbol
    event(n=Attr("integer", 2 ** 31)),
])
def test_encode_refuses_invalid_events(ev):
    with pytest.raises(ValueError):
        ref.to_binary(ev)


def test_codec_modes():
    codec = ref.ReferenceAmqpCodec()
    assert isinstance(codec, Codec)
    assert codec.info.name == "mqconform-reference" and codec.info.binding == "ce-amqp"
    assert codec.encode(event(), "binary") == ref.to_binary(event())
    with pytest.raises(Unsupported):
        codec.encode(event(), "batch")


# ---- decode ---------------------------------------------------------------------------

@pytest.mark.parametrize("prefix", ["cloudEvents_", "cloudEvents:"])
def test_binary_either_separator(prefix):
    ev = ref.from_message(binary_message(content_type="application/json", prefix=prefix))
    assert ev.attributes["id"] == Attr("string", "1234-1234-1234")
    assert ev.attributes["source"] == Attr("uri-reference", "/mycontext/subcontext")
    assert ev.attributes["datacontenttype"] == Attr("string", "application/json")
    assert ev.data == b"{}"


def test_mixed_separators_are_refused():
    msg = binary_message({"cloudEvents:ext": S("x")})
    with pytest.raises(DecodeError, match="same separator"):
        ref.from_message(msg)


@pytest.mark.parametrize("missing", ["specversion", "id", "source", "type"])
def test_missing_required_attribute_is_named(missing):
    msg = binary_message()
    del msg.application_properties["cloudEvents_" + missing]
    with pytest.raises(DecodeError, match=repr(missing)):
        ref.from_message(msg)


@pytest.mark.parametrize("version", ["0.3", "1", "2.0", ""])
def test_other_specversions_are_refused(version):
    with pytest.raises(DecodeError, match="specversion"):
        ref.from_message(binary_message({"cloudEvents_specversion": S(version)}))


@pytest.mark.parametrize("value, expected", [
    (Typed("timestamp", 1522900584000), T0),
    (S("2018-04-05T03:56:24Z"), T0),
    (S("2018-04-05T05:56:24+02:00"), T0),
])
def test_time_native_or_canonical_string(value, expected):
    assert ref.from_message(binary_message({"cloudEvents_time": value})).get("time") == expected


@pytest.mark.parametrize("value", [S("2018-04-05"), S("20180405T035624Z"), Typed("long", 1522900584000),
                                   Typed("boolean", True)])
def test_time_in_another_form_is_refused(value):
    with pytest.raises(DecodeError, match="time"):
        ref.from_message(binary_message({"cloudEvents_time": value}))


@pytest.mark.parametrize("value, expected", [
    (Typed("boolean", True), Attr("boolean", True)),
    (Typed("long", 5), Attr("integer", 5)),
    (Typed("int", 5), Attr("integer", 5)),          # relaxed: any AMQP integer type
    (Typed("ubyte", 5), Attr("integer", 5)),
    (Typed("binary", b"\x00"), Attr("binary", b"\x00")),
    (Typed("timestamp", 1522900584000), Attr("timestamp", T0)),
    (S("true"), Attr("string", "true")),             # an extension's string form cannot say its type
    (Typed("symbol", "s"), Attr("string", "s")),     # relaxed: a symbol is a string
])
def test_extension_takes_the_type_of_its_amqp_value(value, expected):
    assert ref.from_message(binary_message({"cloudEvents_ext": value})).attributes["ext"] == expected


@pytest.mark.parametrize("value", [Typed("double", 1.0), Typed("null", None), Typed("list", []),
                                   Typed("long", 2 ** 31), Typed("uuid", uuid.UUID(int=1))])
def test_extension_values_without_a_cloudevents_type_are_refused(value):
    with pytest.raises(DecodeError, match="ext"):
        ref.from_message(binary_message({"cloudEvents_ext": value}))


def test_non_cloudevents_properties_are_ignored():
    ev = ref.from_message(binary_message({"x-other": S("y"), "cloudevents_lower": S("z")}))
    assert set(ev.attributes) == {"specversion", "id", "source", "type"}


@pytest.mark.parametrize("content_type", ["application/cloudevents+json", "application/cloudevents+json; charset=utf-8",
                                          "Application/CloudEvents+JSON; charset=UTF-8"])
def test_structured_prefix_is_case_insensitive(content_type):
    body = json.dumps({"specversion": "1.0", "id": "1", "source": "/s", "type": "t", "data": {"a": 1}}).encode()
    ev = ref.from_message(AmqpMessage(properties={"content-type": content_type}, body=AmqpBody.of_bytes(body)))
    assert ev.get("id") == "1" and json.loads(ev.data) == {"a": 1}


def test_unknown_format_is_treated_as_binary():
    ev = ref.from_message(binary_message(content_type="application/cloudevents+avro", body=b"\x00avro"))
    assert ev.get("datacontenttype") == "application/cloudevents+avro"
    assert ev.data == b"\x00avro" and ev.get("id") == "1234-1234-1234"


def test_structured_json_errors_are_decode_errors():
    for body in (b"[]", b"{", json.dumps({"id": "1", "source": "/s", "type": "t"}).encode()):
        with pytest.raises(DecodeError):
            ref.from_message(AmqpMessage(properties={"content-type": "application/cloudevents+json"},
                                         body=AmqpBody.of_bytes(body)))


@pytest.mark.parametrize("body", [AmqpBody("value", value=Typed("binary", b"{}")), AmqpBody("data", (b"a", b"b")),
                                  AmqpBody("sequence", value=Typed("list", []))])
def test_application_data_must_be_one_data_section(body):
    msg = binary_message()
    msg.body = body
    with pytest.raises(DecodeError, match="data section"):
        ref.from_message(msg)


def test_no_data_section_means_no_data():
    msg = binary_message()
    msg.body = AmqpBody("data", ())
    assert ref.from_message(msg).data is None


def test_content_type_wins_over_a_stray_datacontenttype_property():
    ev = ref.from_message(binary_message({"cloudEvents_datacontenttype": S("text/plain")}, content_type="application/json"))
    assert ev.get("datacontenttype") == "application/json"
    ev = ref.from_message(binary_message({"cloudEvents_datacontenttype": S("text/plain")}))
    assert ev.get("datacontenttype") == "text/plain"


@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_round_trip(mode):
    codec = ref.ReferenceAmqpCodec()
    ev = event(b"\x00\x01", time=Attr("timestamp", T0), datacontenttype=Attr("string", "application/octet-stream"),
               flag=Attr("boolean", False), n=Attr("integer", 3), subject=Attr("string", "sub"))
    assert codec.decode(codec.encode(ev, mode)) == ev
