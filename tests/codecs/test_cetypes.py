"""cetypes and mediatype: CloudEvents canonical strings, RFC 3339, media type tests."""
from __future__ import annotations

import datetime as dt

import pytest

from fixtures.codecs import cetypes, mediatype
from fixtures.codecs.model import Attr

UTC = dt.UTC


@pytest.mark.parametrize("text, expected", [
    ("2018-04-05T03:56:24Z", dt.datetime(2018, 4, 5, 3, 56, 24, tzinfo=UTC)),
    ("2018-04-05t03:56:24z", dt.datetime(2018, 4, 5, 3, 56, 24, tzinfo=UTC)),
    ("2018-04-05T03:56:24.1234567891+01:30",
     dt.datetime(2018, 4, 5, 3, 56, 24, 123456, tzinfo=dt.timezone(dt.timedelta(hours=1, minutes=30)))),
])
def test_parse_timestamp(text, expected):
    got = cetypes.parse_timestamp(text)
    assert got == expected and got.utcoffset() == expected.utcoffset()


@pytest.mark.parametrize("text", ["2018-04-05", "2018-04-05T03:56:24", "20180405T035624Z", "2018-04-05 03:56:24Z",
                                  "2018-13-05T03:56:24Z", "2018-04-05T03:56:60Z", "2018-04-05T03:56:24+24:00", ""])
def test_parse_timestamp_refuses(text):
    with pytest.raises(ValueError):
        cetypes.parse_timestamp(text)


@pytest.mark.parametrize("attr, text", [
    (Attr("boolean", True), "true"), (Attr("boolean", False), "false"), (Attr("integer", -5), "-5"),
    (Attr("binary", b"\x00\xff"), "AP8="), (Attr("timestamp", dt.datetime(2018, 4, 5, tzinfo=UTC)), "2018-04-05T00:00:00Z"),
    (Attr("uri", "https://x/y"), "https://x/y"), (Attr("string", "é"), "é"),
])
def test_canonical_strings_round_trip(attr, text):
    assert cetypes.to_canonical_string(attr) == text
    assert cetypes.from_canonical_string(attr.type, text) == attr


@pytest.mark.parametrize("ce_type, text", [("boolean", "True"), ("integer", "05"), ("integer", "1.0"),
                                           ("integer", "2147483648"), ("binary", "AP8"), ("uri", "no-scheme")])
def test_non_canonical_strings_refused(ce_type, text):
    with pytest.raises(ValueError):
        cetypes.from_canonical_string(ce_type, text)


def test_millis_are_exact():
    t = dt.datetime(1987, 5, 10, 10, 40, 21, 915000, tzinfo=UTC)
    assert cetypes.to_epoch_millis(t) == 547641621915
    assert cetypes.from_epoch_millis(547641621915) == t


@pytest.mark.parametrize("content_type, fmt", [
    ("application/cloudevents+json", "json"), ("Application/CloudEvents+JSON; charset=UTF-8", "json"),
    ("application/cloudevents+avro", "avro"), ("application/cloudevents", ""),
    ("application/cloudevents-batch+json", "-batch+json"), ("application/json", None), (None, None),
])
def test_structured_format(content_type, fmt):
    assert mediatype.structured_format(content_type) == fmt


def test_structured_format_case_sensitive_option():
    assert mediatype.structured_format("APPLICATION/CLOUDEVENTS+JSON", case_sensitive=True) is None


@pytest.mark.parametrize("content_type, is_json", [
    (None, True), ("application/json", True), ("text/json; charset=utf-8", True), ("application/ld+json", True),
    ("APPLICATION/JSON", True), ("application/jsonx", False), ("text/plain", False), ("application/json-seq", False),
])
def test_is_json(content_type, is_json):
    assert mediatype.is_json(content_type) is is_json
