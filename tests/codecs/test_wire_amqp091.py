"""wire_amqp091: header values typed by what pika writes, and what pika reads back."""
from __future__ import annotations

import datetime as dt
import struct
from decimal import Decimal

import pika
import pika.compat
import pika.data
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fixtures.codecs import wire_amqp091 as w
from fixtures.codecs.model import Amqp091Message, Typed

UTC = dt.UTC


@pytest.mark.parametrize("value, expected", [
    ("é", Typed("string", "é")),
    (b"\xff", Typed("binary", b"\xff")),
    (True, Typed("boolean", True)),
    (5, Typed("int", 5)),                               # a plain int that fits: I
    (2 ** 40, Typed("long", 2 ** 40)),                  # one that does not: l
    (pika.compat.long(5), Typed("long", 5)),            # pika's marker class: l
    (Decimal("1.25"), Typed("decimal", Decimal("1.25"))),
    (dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC), Typed("timestamp", 1700000000)),
    (None, Typed("null", None)),
    ([1, "a"], Typed("list", [Typed("int", 1), Typed("string", "a")])),
    ({"k": b"v"}, Typed("map", {"k": Typed("binary", b"v")})),
])
def test_from_pika_reads_the_octet_pika_writes(value, expected):
    assert w.from_pika(value) == expected


@pytest.mark.parametrize("value", [1.5, Decimal("NaN"), Decimal("1E+20"), 2 ** 64, object(),
                                   dt.datetime(1960, 1, 1, tzinfo=UTC)])
def test_values_pika_cannot_write_are_refused(value):
    with pytest.raises(ValueError):
        w.from_pika(value)


@pytest.mark.parametrize("typed", [Typed(t, 1) for t in ("byte", "ubyte", "short", "ushort", "uint", "ulong")]
                         + [Typed("float", 1.0), Typed("double", 1.0), Typed("symbol", "s"), Typed("int", 2 ** 31),
                            Typed("timestamp", -1), Typed("timestamp", 253402300800)])
def test_types_pika_never_writes_are_refused(typed):
    with pytest.raises(ValueError):
        w.to_pika(typed)


WRITABLE = st.recursive(st.one_of(
    st.text(max_size=20).map(lambda v: Typed("string", v)),
    st.binary(max_size=20).map(lambda v: Typed("binary", v)),
    st.booleans().map(lambda v: Typed("boolean", v)),
    st.integers(-2 ** 31, 2 ** 31 - 1).map(lambda v: Typed("int", v)),
    st.integers(-2 ** 63, 2 ** 63 - 1).map(lambda v: Typed("long", v)),
    st.integers(0, 253402300799).map(lambda v: Typed("timestamp", v)),
    st.builds(lambda raw, places: Typed("decimal", Decimal(raw).scaleb(-places)),
              st.integers(-2 ** 31, 2 ** 31 - 1), st.integers(0, 9)),
    st.just(Typed("null", None)),
), lambda inner: st.one_of(
    st.lists(inner, max_size=4).map(lambda v: Typed("list", v)),
    st.dictionaries(st.text(max_size=8), inner, max_size=4).map(lambda v: Typed("map", v))), max_leaves=10)
HEADERS = st.dictionaries(st.text(max_size=20), WRITABLE, max_size=6)


def _decimal_equal(a: Typed, b: Typed) -> bool:
    """pika normalises decimals (1.50 -> 1.5): same number, maybe another exponent."""
    if a.type != b.type:
        return False
    if a.type == "list":
        return len(a.value) == len(b.value) and all(map(_decimal_equal, a.value, b.value))
    if a.type == "map":
        return a.value.keys() == b.value.keys() and all(_decimal_equal(a.value[k], b.value[k]) for k in a.value)
    return a.value == b.value


@settings(max_examples=200, deadline=None, database=None)
@given(HEADERS)
def test_writable_types_round_trip_through_pika(headers):
    encoded = w.encode_table(headers)
    decoded, _ = pika.data.decode_table(encoded, 0)
    for read in (w.headers_from_pika(decoded), w.headers_from_table(encoded)):
        assert read.keys() == headers.keys()
        assert all(_decimal_equal(read[k], headers[k]) for k in headers)


def _table(*fields: tuple[str, bytes]) -> bytes:
    body = b"".join(struct.pack("B", len(k)) + k.encode() + v for k, v in fields)
    return struct.pack(">I", len(body)) + body


OTHER_SENDERS = [  # octets another client may send though pika never writes them
    ("b", b"b" + struct.pack(">b", -1), Typed("byte", -1)),
    ("B", b"B" + struct.pack(">B", 255), Typed("ubyte", 255)),
    ("s", b"s" + struct.pack(">h", -2), Typed("short", -2)),
    ("U", b"U" + struct.pack(">h", -3), Typed("short", -3)),
    ("u", b"u" + struct.pack(">H", 65535), Typed("ushort", 65535)),
    ("i", b"i" + struct.pack(">I", 2 ** 32 - 1), Typed("uint", 2 ** 32 - 1)),
    ("L", b"L" + struct.pack(">q", -5), Typed("long", -5)),
    ("f", b"f" + struct.pack(">f", 1.5), Typed("float", 1.5)),
    ("d", b"d" + struct.pack(">d", 2.25), Typed("double", 2.25)),
    ("A", b"A" + struct.pack(">I", 9) + b"d" + struct.pack(">d", 0.5), Typed("list", [Typed("double", 0.5)])),
    ("T", b"T" + struct.pack(">Q", 2 ** 40), Typed("timestamp", 2 ** 40)),   # past year 9999
    ("F", b"F" + _table(("x", b"f" + struct.pack(">f", 2.0))), Typed("map", {"x": Typed("float", 2.0)})),
]


@pytest.mark.parametrize("key, raw, expected", OTHER_SENDERS, ids=[o[0] for o in OTHER_SENDERS])
def test_headers_from_table_keeps_every_wire_type(key, raw, expected):
    assert w.headers_from_table(_table((key, raw))) == {key: expected}


def test_pika_truncates_received_floats_to_integers():
    # Known pika behaviour: f and d are decoded with long(...), so 1.5 arrives as 1.
    decoded, _ = pika.data.decode_table(_table(("f", b"f" + struct.pack(">f", 1.5))), 0)
    assert w.headers_from_pika(decoded) == {"f": Typed("long", 1)}


def test_long_string_that_is_not_utf8_is_typed_binary():
    raw = _table(("k", b"S" + struct.pack(">I", 1) + b"\xff"))
    decoded, _ = pika.data.decode_table(raw, 0)
    assert decoded == {"k": b"\xff"}            # pika hands bytes over
    assert w.headers_from_pika(decoded) == {"k": Typed("binary", b"\xff")}
    assert w.headers_from_table(raw) == {"k": Typed("binary", b"\xff")}


def test_timestamps_are_whole_seconds():
    assert w.to_pika(Typed("timestamp", 1700000000)) == dt.datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
    assert w.from_pika(dt.datetime(2023, 11, 14, 22, 13, 20, 999999, tzinfo=UTC)) == Typed("timestamp", 1700000000)


def test_message_round_trips_through_basic_properties():
    msg = Amqp091Message(
        properties={"content-type": "application/json", "content-encoding": "gzip", "delivery-mode": 2,
                    "priority": 5, "correlation-id": "c", "reply-to": "r", "expiration": "60000",
                    "message-id": "m", "timestamp": 1700000000, "type": "t", "user-id": "guest", "app-id": "a"},
        headers={"ce-id": Typed("string", "1"), "n": Typed("long", 3)}, body=b"\x00body")
    props, body = w.message_to_pika(msg)
    received = w.properties_from_bytes(w.properties_to_bytes(props))
    assert w.message_from_pika(received, body) == msg


def test_unknown_basic_property_is_refused():
    with pytest.raises(ValueError):
        w.message_to_pika(Amqp091Message(properties={"content_type": "x"}))
