"""jsonformat: the CloudEvents JSON event format, both directions."""
from __future__ import annotations

import base64
import datetime as dt
import json

import pytest

from fixtures.codecs import jsonformat
from fixtures.codecs.base import DecodeError
from fixtures.codecs.model import Attr, Event

UTC = dt.UTC
REQUIRED = {"specversion": "1.0", "id": "1", "source": "/s", "type": "t"}


def event(data=None, **extra) -> Event:
    attrs = {"specversion": Attr("string", "1.0"), "id": Attr("string", "1"),
             "source": Attr("uri-reference", "/s"), "type": Attr("string", "t")}
    attrs.update(extra)
    return Event(attrs, data)


def doc_of(ev: Event) -> dict:
    return json.loads(jsonformat.encode_event(ev))


def test_attribute_types_map_to_json_types():
    ev = event(time=Attr("timestamp", dt.datetime(2018, 4, 5, 3, 56, 24, 120000, tzinfo=UTC)),
               flag=Attr("boolean", False), count=Attr("integer", -7), blob=Attr("binary", b"\x00\xff"),
               dataschema=Attr("uri", "https://example.com/s"))
    doc = doc_of(ev)
    assert doc == {**REQUIRED, "time": "2018-04-05T03:56:24.120000Z", "flag": False, "count": -7,
                   "blob": "AP8=", "dataschema": "https://example.com/s"}


def test_timestamp_keeps_its_offset():
    tz = dt.timezone(dt.timedelta(hours=-5, minutes=-30))
    assert doc_of(event(time=Attr("timestamp", dt.datetime(2018, 4, 5, 3, 56, 24, tzinfo=tz))))["time"] == \
        "2018-04-05T03:56:24-05:30"


@pytest.mark.parametrize("content_type, data, member, value", [
    (None, b'{"a": [1, 2]}', "data", {"a": [1, 2]}),                  # absent -> application/json
    ("application/json", b'"just a string"', "data", "just a string"),
    ("application/vnd.x+json; charset=utf-8", b"null", "data", None),  # an explicit null payload
    ("text/json", b"42", "data", 42),
    ("application/json", b"not json", "data_base64", base64.b64encode(b"not json").decode()),
    ("application/json", b'{"a":1,"a":2}', "data_base64", base64.b64encode(b'{"a":1,"a":2}').decode()),
    ("application/json", b"NaN", "data_base64", base64.b64encode(b"NaN").decode()),
    ("text/plain", "héllo".encode(), "data", "héllo"),
    ("text/xml; charset=UTF-8", b"<a/>", "data", "<a/>"),
    ("text/plain; charset=iso-8859-1", b"caf\xe9", "data_base64", base64.b64encode(b"caf\xe9").decode()),
    ("text/plain", b"\xff", "data_base64", "/w=="),
    ("application/octet-stream", b"\x00\x01", "data_base64", "AAE="),
    ("application/xml", b"<a/>", "data_base64", "PGEvPg=="),
])
def test_data_placement(content_type, data, member, value):
    extra = {"datacontenttype": Attr("string", content_type)} if content_type else {}
    doc = doc_of(event(data, **extra))
    assert member in doc and doc[member] == value
    assert ("data" in doc) != ("data_base64" in doc)


def test_no_data_no_member():
    doc = doc_of(event())
    assert "data" not in doc and "data_base64" not in doc


@pytest.mark.parametrize("ev", [
    event(b'{"x": {"y": [true, null, 1.5]}}', datacontenttype=Attr("string", "application/json")),
    event(b"\x00\xff", datacontenttype=Attr("string", "application/octet-stream")),
    event("text ✓".encode(), datacontenttype=Attr("string", "text/plain")),
    event(b"", datacontenttype=Attr("string", "text/plain")),
    event(b"", datacontenttype=Attr("string", "application/json")),
    event(None, time=Attr("timestamp", dt.datetime(2020, 1, 1, tzinfo=UTC)), n=Attr("integer", 2 ** 31 - 1),
          b=Attr("boolean", True), subject=Attr("string", "s")),
])
def test_round_trip(ev):
    back = jsonformat.decode_event(jsonformat.encode_event(ev))
    assert back.attributes == ev.attributes
    if ev.data is not None and (ev.get("datacontenttype") or "").endswith("json") and ev.data:
        assert json.loads(back.data) == json.loads(ev.data)   # the same JSON value, re-serialised
    else:
        assert back.data == ev.data


def test_extension_types_are_inferred_from_json_types():
    back = jsonformat.decode_event(json.dumps({**REQUIRED, "b": True, "i": 3, "s": "2018-04-05T03:56:24Z"}).encode())
    assert back.attributes["b"] == Attr("boolean", True)
    assert back.attributes["i"] == Attr("integer", 3)
    assert back.attributes["s"] == Attr("string", "2018-04-05T03:56:24Z")   # a string stays a string


def test_core_attributes_are_read_by_their_type():
    back = jsonformat.decode_event(json.dumps({**REQUIRED, "time": "2018-04-05T03:56:24.5+01:00"}).encode())
    assert back.attributes["time"].type == "timestamp"
    assert back.attributes["time"].value == dt.datetime(2018, 4, 5, 2, 56, 24, 500000, tzinfo=UTC)
    assert back.attributes["source"] == Attr("uri-reference", "/s")


def test_null_attribute_is_unset():
    back = jsonformat.decode_event(json.dumps({**REQUIRED, "subject": None, "ext": None}).encode())
    assert "subject" not in back.attributes and "ext" not in back.attributes


def test_json_string_data_is_a_json_value_not_a_document():
    back = jsonformat.decode_event(json.dumps({**REQUIRED, "data": '{"a":1}'}).encode())
    assert back.data == b'"{\\"a\\":1}"'


def test_text_data_for_non_json_type():
    back = jsonformat.decode_event(json.dumps({**REQUIRED, "datacontenttype": "text/plain", "data": "hi"}).encode())
    assert back.data == b"hi"


@pytest.mark.parametrize("body, match", [
    (b"[1, 2]", "JSON object"),
    (b"\"x\"", "JSON object"),
    (b"{not json", "JSON"),
    (b"\xff", "UTF-8"),
    (json.dumps({"id": "1", "source": "/s", "type": "t"}).encode(), "specversion"),
    (json.dumps({"specversion": "1.0", "source": "/s", "type": "t"}).encode(), "'id'"),
    (json.dumps({"specversion": "1.0", "id": "1", "type": "t"}).encode(), "source"),
    (json.dumps({"specversion": "1.0", "id": "1", "source": "/s"}).encode(), "'type'"),
    (json.dumps({**REQUIRED, "specversion": "0.3"}).encode(), "specversion"),
    (json.dumps({**REQUIRED, "id": ""}).encode(), "empty"),
    (json.dumps({**REQUIRED, "id": 5}).encode(), "JSON string"),
    (json.dumps({**REQUIRED, "time": "2018-04-05 03:56"}).encode(), "RFC 3339"),
    (json.dumps({**REQUIRED, "n": 1.5}).encode(), "integer"),
    (json.dumps({**REQUIRED, "n": 1e3}).encode(), "integer"),
    (json.dumps({**REQUIRED, "n": 2 ** 31}).encode(), "range"),
    (json.dumps({**REQUIRED, "o": {"a": 1}}).encode(), "not a CloudEvents value"),
    (json.dumps({**REQUIRED, "Bad": "x"}).encode(), "attribute name"),
    (json.dumps({**REQUIRED, "data": 1, "data_base64": "AA=="}).encode(), "mutually exclusive"),
    (json.dumps({**REQUIRED, "data_base64": "***"}).encode(), "base64"),
    (json.dumps({**REQUIRED, "datacontenttype": "text/plain", "data": {"a": 1}}).encode(), "string"),
])
def test_decode_errors(body, match):
    with pytest.raises(DecodeError, match=match):
        jsonformat.decode_event(body)


@pytest.mark.parametrize("ev", [
    Event({"id": Attr("string", "1"), "source": Attr("uri-reference", "/s"), "type": Attr("string", "t")}),
    event(time=Attr("string", "2018-04-05T03:56:24Z")),                 # time must be a timestamp
    event(time=Attr("timestamp", dt.datetime(2018, 4, 5))),             # naive
    event(n=Attr("integer", 2 ** 31)),
    event(dataschema=Attr("uri", "relative/ref")),
])
def test_encode_refuses_invalid_events(ev):
    with pytest.raises(ValueError):
        jsonformat.encode_event(ev)
