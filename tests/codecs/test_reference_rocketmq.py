"""reference_rocketmq: the ce-rocketmq reference codec (string user properties)."""
from __future__ import annotations

import datetime as dt
import json

import pytest

from fixtures.codecs import reference_rocketmq as ref
from fixtures.codecs.base import DecodeError
from fixtures.codecs.model import Attr, Event, RocketMQMessage

UTC = dt.UTC
T0 = dt.datetime(2018, 11, 23, 3, 56, 24, tzinfo=UTC)
REQUIRED = {"CE_specversion": "1.0", "CE_id": "1234-1234-1234", "CE_source": "/mycontext/subcontext",
            "CE_type": "com.example.someevent"}


def event(data=None, **extra) -> Event:
    attrs = {"specversion": Attr("string", "1.0"), "id": Attr("string", "1234-1234-1234"),
             "source": Attr("uri-reference", "/mycontext/subcontext"), "type": Attr("string", "com.example.someevent")}
    attrs.update(extra)
    return Event(attrs, data)


def message(props=None, body=b"payload") -> RocketMQMessage:
    return RocketMQMessage(topic="mytopic", properties={**REQUIRED, **(props or {})}, body=body)


def test_binary_properties_are_canonical_strings():
    ev = event(b"avro", datacontenttype=Attr("string", "application/avro"), time=Attr("timestamp", T0),
               flag=Attr("boolean", True), n=Attr("integer", -2), blob=Attr("binary", b"\xff"))
    msg = ref.to_binary(ev)
    assert msg.properties == {**REQUIRED, "CE_contenttype": "application/avro", "CE_time": "2018-11-23T03:56:24Z",
                              "CE_flag": "true", "CE_n": "-2", "CE_blob": "/w=="}
    assert msg.body == b"avro"


def test_structured():
    msg = ref.to_structured(event(b"x", datacontenttype=Attr("string", "text/plain")))
    assert msg.properties == {"CE_contenttype": "application/cloudevents+json; charset=UTF-8"}
    assert json.loads(msg.body)["data"] == "x"


@pytest.mark.parametrize("key", ["CE_contenttype", "CE_contentType", "CE_datacontenttype"])
def test_every_content_type_spelling_is_read(key):
    assert ref.from_message(message({key: "application/avro"})).get("datacontenttype") == "application/avro"


@pytest.mark.parametrize("key", ["CE_contenttype", "CE_contentType"])
def test_structured_detected_from_either_spelling(key):
    body = json.dumps({"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}).encode()
    msg = RocketMQMessage(properties={key: "application/cloudevents+json; charset=UTF-8"}, body=body)
    assert ref.from_message(msg).get("id") == "1"


def test_conflicting_content_types_are_refused():
    with pytest.raises(DecodeError, match="conflicting"):
        ref.from_message(message({"CE_contenttype": "a/b", "CE_contentType": "c/d"}))


def test_time_is_read_as_timestamp_and_extensions_as_strings():
    ev = ref.from_message(message({"CE_time": "2018-11-23T03:56:24Z", "CE_n": "5"}))
    assert ev.attributes["time"] == Attr("timestamp", T0)
    assert ev.attributes["n"] == Attr("string", "5")


@pytest.mark.parametrize("missing", ["specversion", "id", "source", "type"])
def test_missing_required_is_named(missing):
    msg = message()
    del msg.properties["CE_" + missing]
    with pytest.raises(DecodeError, match=repr(missing)):
        ref.from_message(msg)


def test_cloudevents_0_1_example_values_are_refused():
    # The draft's example carries specversion "0.1" (with quotes in the text); this codec reads 1.0 only.
    with pytest.raises(DecodeError, match="specversion"):
        ref.from_message(message({"CE_specversion": "0.1"}))


def test_bad_time_is_refused():
    with pytest.raises(DecodeError, match="CE_time"):
        ref.from_message(message({"CE_time": "yesterday"}))


def test_unknown_format_is_binary():
    ev = ref.from_message(message({"CE_contenttype": "application/cloudevents+avro"}, body=b"\x00"))
    assert ev.data == b"\x00" and ev.get("datacontenttype") == "application/cloudevents+avro"


@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_round_trip(mode):
    codec = ref.ReferenceRocketMQCodec()
    ev = event(b"\x00\x01", datacontenttype=Attr("string", "application/octet-stream"), time=Attr("timestamp", T0),
               subject=Attr("string", "s"))
    assert codec.decode(codec.encode(ev, mode)) == ev


@pytest.mark.parametrize("value", [Attr("string", ""), Attr("uri-reference", "")])
def test_an_empty_string_attribute_is_refused_in_binary_mode(value):
    # 3.1.3, reading no-blank-property: RocketMQ's client refuses a blank property value
    # ("must not be blank") and 3.1.3.2 asks for values compliant with the RocketMQ format.
    with pytest.raises(ValueError, match="never blank"):
        ref.to_binary(event(b"x", xempty=value))
    assert json.loads(ref.to_structured(event(b"x", xempty=value)).body)["xempty"] == ""   # structured mode carries it
