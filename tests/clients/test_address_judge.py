"""The `address` judge (fixtures/kinds/address_judge.py), pure: a library's address, or its refusal,
against a vector's alternatives, under the client readings of percent-encoding/names-percent-encoded."""
from __future__ import annotations

import re
from urllib.parse import quote, unquote_to_bytes

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fixtures.kinds.address_judge import (
    ENCODING_READINGS,
    canonical,
    judge,
    judge_address,
    read_segment,
    segment_problems,
)

QUEUE = "/queues/{queue}"
KEYED = "/exchanges/{exchange}/{routing_key}"


def python_client_1_0_1(name: str) -> str:
    """What rabbitmq-amqp-python-client 1.0.1's encode_path_segment writes (its behaviour, restated to
    test the judge on it): alphanumerics and -._~ as they stand, any other character as its code point."""
    return "".join(c if c.isalnum() or c in "-._~" else f"%{ord(c):02X}" for c in name)


def test_canonical_is_rfc3986_utf8_octets_with_unreserved_kept():
    assert canonical("my-routing_key/123") == "my-routing_key%2F123"
    assert canonical("a b~ü€🐇") == "a%20b~%C3%BC%E2%82%AC%F0%9F%90%87"
    assert canonical("") == ""


@given(st.text(st.characters(codec="utf-8")))
def test_the_canonical_form_holds_under_every_reading_and_is_urllibs(name):
    assert canonical(name) == quote(name, safe="-._~")          # one RFC 3986 encoder agrees with the other
    assert segment_problems(canonical(name), name) == {}
    assert unquote_to_bytes(canonical(name)) == name.encode("utf-8")


def test_a_segment_reads_its_octets_raw_characters_and_form():
    seg = read_segment("a%2fü%41")
    assert seg.decoded == b"a/" + "ü".encode() + b"A"
    assert (seg.raw, seg.lower_hex, seg.encoded_unreserved) == (("ü",), True, ("A",))
    assert read_segment("100%").decoded is None and read_segment("%zz").decoded is None


def test_code_points_instead_of_utf8_octets_fail_under_every_reading():
    for name in ("§", "€", "🐇"):
        got = python_client_1_0_1(name)
        problems = segment_problems(got, name)
        assert set(problems) == set(ENCODING_READINGS), (name, got)
        assert "not to the name" in problems["encode-all-reserved"]
    assert python_client_1_0_1("€") == "%20AC" and "decodes to ' AC'" in segment_problems("%20AC", "€")["rfc3986-equivalent"]
    assert "(not UTF-8)" in segment_problems("%A7", "§")["encode-path-breaking"]


def test_pchar_left_unencoded_holds_under_encode_path_breaking_only_and_non_ascii_under_neither():
    assert set(segment_problems("a!$&'()*+,;=:@b", "a!$&'()*+,;=:@b")) == {"encode-all-reserved"}
    problems = segment_problems("grüße", "grüße")
    assert set(problems) == {"encode-all-reserved", "encode-path-breaking"}
    assert "'ü', 'ß' written as itself" in problems["encode-all-reserved"] and "gr%C3%BC%C3%9Fe" in problems["encode-all-reserved"]


def test_equivalent_forms_hold_under_rfc3986_equivalent_only():
    assert set(segment_problems("a%2fb", "a/b")) == {"rfc3986-producer-form"}
    assert "lowercase hex" in segment_problems("a%2fb", "a/b")["rfc3986-producer-form"]
    assert "the unreserved 'A' encoded" in segment_problems("%41", "A")["rfc3986-producer-form"]


def test_a_percent_taken_as_an_encoding_or_a_stray_percent_fails():
    assert set(segment_problems("x%2Fy", "x%2Fy")) == set(ENCODING_READINGS)     # decodes to x/y
    assert segment_problems("x%252Fy", "x%2Fy") == {}
    assert "starts no %XX triplet" in segment_problems("100%", "100%")["encode-path-breaking"]


def test_a_raw_slash_cuts_the_name_under_every_reading():
    j = judge_address("/queues/a/b", QUEUE, {"queue": "a/b"}, readings=True)
    assert not j.holds and "3 path segment(s) where '/queues/{queue}' has 2" in j.problems[0]


def test_an_address_holding_under_some_readings_passes_and_says_which():
    j = judge_address("/exchanges/ex%2F1/k%2F1%20!", KEYED, {"exchange": "ex/1", "routing_key": "k/1 !"}, readings=True)
    assert j.holds and len(j.notes) == 1
    assert j.notes[0].startswith("holds under reading encode-path-breaking, rfc3986-equivalent, rfc3986-producer-form")
    assert "routing_key 'k/1 !'" in j.notes[0]


def test_a_raw_non_ascii_character_is_percent_encoded_under_no_reading():
    # RFC 3986: a URI is ASCII, and a path segment holds only `pchar` as itself
    j = judge_address("/queues/grüße", QUEUE, {"queue": "grüße"}, readings=True)
    assert not j.holds and "outside RFC 3986 `pchar`" in " ".join(j.problems)


def test_readings_of_each_pair_must_meet_in_one_address():
    # raw ü (not under encode-all-reserved) and lowercase hex (not under the producer form): still one
    # reading of each pair holds
    assert judge_address("/queues/%2f!", QUEUE, {"queue": "/!"}, readings=True).holds
    j = judge_address("/queues/%A7", QUEUE, {"queue": "§"}, readings=True)
    assert not j.holds and j.problems[0].startswith("under every reading: queue '§'")


def test_without_the_encoding_clause_a_name_is_compared_as_its_canonical_form():
    assert judge_address("/queues/orders", QUEUE, {"queue": "orders"}, readings=False).holds
    j = judge_address("/queues/%6Frders", QUEUE, {"queue": "orders"}, readings=False)
    assert not j.holds and "not 'orders'" in j.problems[0]


def test_a_literal_address_compares_hex_digits_without_case():
    lit = "/exchanges/amq.direct/my-routing_key%2F123"
    assert judge_address("/exchanges/amq.direct/my-routing_key%2f123", lit, {}, readings=False).holds
    j = judge_address("/exchange/amq.direct/my-routing_key%2F123", lit, {}, readings=False)
    assert not j.holds and "'exchange' where the format has 'exchanges'" in j.problems[0]


def test_empty_names_and_a_trailing_slash():
    names = {"exchange": "logs", "routing_key": ""}
    alts = [{"address": "/exchanges/{exchange}"}, {"address": "/exchanges/{exchange}/"}]
    assert judge("/exchanges/logs", None, alts, names, readings=False).passed
    assert judge("/exchanges/logs/", None, alts, names, readings=False).passed
    assert not judge("/exchanges/logs//", None, alts, names, readings=False).passed
    assert judge_address("/queues/", QUEUE, {"queue": ""}, readings=True).holds


def test_a_refusal_meets_only_a_refusal_and_an_address_only_an_address():
    alts = [{"refused": "any", "reading": "builder-refuses"},
            {"address": "/exchanges/{exchange}", "reading": "builder-may-build"}]
    refused = judge(None, "IllegalArgumentException: The default exchange is not allowed", alts, {"exchange": ""}, False)
    assert refused.passed and refused.notes == ["the library refused [reading: builder-refuses]: "
                                                "IllegalArgumentException: The default exchange is not allowed"]
    built = judge("/exchanges/", None, alts, {"exchange": ""}, False)
    assert built.passed and built.notes == ["the address [reading: builder-may-build] '/exchanges/'"]
    wrong = judge("/queues/", None, alts, {"exchange": ""}, False)
    assert not wrong.passed
    assert wrong.detail.splitlines() == [
        "expected [reading: builder-refuses]: a refusal",
        "expected [reading: builder-may-build]: '/exchanges/' ('queues' where the format has 'exchanges')",
        "actual: '/queues/'"]


def test_a_refusal_where_an_address_is_owed_states_both():
    v = judge(None, "ValueError: no", [{"address": QUEUE}], {"queue": "q"}, readings=False)
    assert not v.passed and v.detail == "expected: '/queues/q'\nactual: refused: ValueError: no"


@pytest.mark.parametrize("name", ["a/b %c?d#e[f]", "x%2Fy", "grüße-日本-٣", "€✋🐇𝄞", "a b\tc\0d\x7fe", ""])
def test_rfc3986_encodings_of_any_name_pass(name):
    assert judge("/queues/" + quote(name, safe="-._~"), None, [{"address": QUEUE}], {"queue": name}, True).passed
    lower_hex = re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), quote(name, safe="-._~"))
    v = judge("/queues/" + lower_hex, None, [{"address": QUEUE}], {"queue": name}, True)   # RFC 3986 2.1: equivalent
    assert v.passed and (not v.notes or "not under rfc3986-producer-form: queue" in v.notes[0])
