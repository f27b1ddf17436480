"""The pure code that judges a message's `to` / `reply-to` and the null target (kind `address`):
fixtures/kinds/address_amqp.py reading a field's AMQP type from a message as a library encoded it, and
fixtures/kinds/address_judge.py's `amqp_type` and `amqp_null` alternatives."""
from __future__ import annotations

import pytest

from fixtures.kinds.address_amqp import Encoded, MalformedMessage, message_field
from fixtures.kinds.address_judge import judge

HEADER = bytes.fromhex("005370c00201 41".replace(" ", ""))            # header: list8 [durable true]
DATA = bytes.fromhex("005375a000")                                     # data: empty binary


def str8(text: str, code: int = 0xA1) -> bytes:
    raw = text.encode("utf-8")
    return bytes([code, len(raw)]) + raw


def properties8(*items: bytes) -> bytes:
    body = bytes([len(items)]) + b"".join(items)
    return bytes([0x00, 0x53, 0x73, 0xC0, len(body)]) + body


def properties32(*items: bytes) -> bytes:
    body = len(items).to_bytes(4, "big") + b"".join(items)
    return bytes([0x00, 0x53, 0x73, 0xD0]) + len(body).to_bytes(4, "big") + body


NULL = b"\x40"


def test_to_and_reply_to_are_read_by_their_place_in_the_properties_list():
    msg = HEADER + properties8(NULL, NULL, str8("/queues/q")) + DATA
    assert message_field(msg, "to") == Encoded("string", "/queues/q")
    assert message_field(msg, "reply-to") == Encoded("null")             # a shorter list: trailing nulls omitted
    msg = properties32(NULL, NULL, NULL, NULL, str8("/queues/r"))
    assert message_field(msg, "to") == Encoded("null")
    assert message_field(msg, "reply-to") == Encoded("string", "/queues/r")


def test_the_type_is_named_as_the_encoding_names_it():
    assert message_field(properties8(NULL, NULL, str8("/queues/q", 0xA3)), "to") == Encoded("symbol", "/queues/q")
    s32 = b"\xb1" + (9).to_bytes(4, "big") + b"/queues/q"
    assert message_field(properties8(NULL, NULL, s32), "to") == Encoded("string", "/queues/q")
    assert message_field(properties8(NULL, NULL, b"\xa0\x01x"), "to") == Encoded("binary")
    assert message_field(HEADER + DATA, "to") == Encoded("null")         # no properties section


def test_sections_are_skipped_by_width_and_a_ulong_descriptor_is_read():
    annotations = bytes.fromhex("005372c1 0702 a301 78 a101 79".replace(" ", ""))  # map8 {x: "y"}
    props = b"\x00\x80" + (0x73).to_bytes(8, "big") + properties8(NULL, NULL, str8("/queues/q"))[3:]
    assert message_field(HEADER + annotations + props + DATA, "to") == Encoded("string", "/queues/q")


@pytest.mark.parametrize("octets", [b"\x53", b"\x00\x53\x73\xc0\x05", b"\x00\x53\x70\x00", b"\x00\x53\x73\xff"])
def test_octets_that_are_no_message_are_said(octets):
    with pytest.raises(MalformedMessage):
        message_field(octets, "to")


def test_amqp_type_needs_the_encoded_field_to_be_that_type_holding_the_address():
    alts = [{"address": "/queues/{queue}", "amqp_type": "string"}]
    names = {"queue": "q"}
    assert judge("/queues/q", None, alts, names, False, Encoded("string", "/queues/q")).passed
    v = judge("/queues/q", None, alts, names, False, Encoded("symbol", "/queues/q"))
    assert not v.passed and "as an AMQP symbol, not a string" in v.detail
    v = judge("/queues/q", None, alts, names, False, Encoded("string", "/queues/other"))
    assert not v.passed and "carries '/queues/other'" in v.detail
    assert not judge("/queues/q", None, alts, names, False, None).passed


def test_the_amqp_null_meets_only_its_own_alternative():
    assert judge(None, None, [{"amqp_null": True}], {}, False).passed
    v = judge("/queues/", None, [{"amqp_null": True}], {}, False)
    assert not v.passed and "expected: the AMQP null" in v.detail
    assert not judge(None, "no", [{"amqp_null": True}], {}, False).passed
    v = judge(None, None, [{"address": "/queues/{queue}"}], {"queue": "q"}, False)
    assert not v.passed and "actual: the AMQP null" in v.detail
