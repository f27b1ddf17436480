"""The strategies themselves: they draw only what the specs allow, reach the limits the specs
state, and the equality the round-trip properties use tells different events apart."""
from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from fixtures.codecs import cetypes, values, wire_amqp10
from fixtures.codecs.model import Attr, Event, Typed
from fixtures.strategies import ce_integers, ce_strings, events, extension_names, om_properties, om_values, same_om_value
from fixtures.strategies.cevalues import NAME_MAX, allowed_character, ce_timestamps, ce_uri_references, ce_uris
from fixtures.strategies.equality import roundtrip_mismatches, same_json
from fixtures.strategies.notation import event_to_notation
from fixtures.strategies.omvalues import OM_TO_WIRE

# `find` searches until the condition holds: a strategy that cannot reach a limit fails here.
# No shrinking: the example only has to exist.
_FIND = settings(max_examples=3000, database=None, derandomize=True, phases=[Phase.generate],
                 suppress_health_check=list(HealthCheck))


@given(event=events())
def test_drawn_events_are_valid_cloudevents(event):
    cetypes.validate_event(event)


@given(event=events())
def test_vector_notation_gives_the_event_back(event):
    again = values.to_event(event_to_notation(event))
    assert roundtrip_mismatches(event, again, "ce-amqp", "structured") == []
    assert {n: a.type for n, a in again.attributes.items()} == {n: a.type for n, a in event.attributes.items()}


@given(text=ce_strings(max_size=60))
def test_strings_hold_only_allowed_characters(text):
    assert all(allowed_character(c) for c in text)
    text.encode("utf-8")  # no lone surrogates


@given(name=extension_names())
def test_extension_names_follow_the_naming_rule(name):
    assert name.isascii() and name.isalnum() and name == name.lower() and 1 <= len(name) <= NAME_MAX


@given(uri=ce_uris(), ref=ce_uri_references())
def test_uris_are_absolute_and_ascii(uri, ref):
    assert uri.isascii() and ref.isascii()
    cetypes.check_value(Attr("uri", uri))


@pytest.mark.parametrize("strategy,condition", [
    (ce_integers(), lambda v: v == cetypes.INT_MIN),
    (ce_integers(), lambda v: v == cetypes.INT_MAX),
    (extension_names(), lambda n: len(n) == NAME_MAX),
    (extension_names(), lambda n: len(n) == 1),
    (ce_strings(), lambda s: any(ord(c) > 0xFFFF for c in s)),     # astral: a surrogate pair in UTF-16
    (ce_timestamps(), lambda t: t.microsecond % 1000 != 0),          # finer than an AMQP timestamp
    (ce_timestamps(), lambda t: t.utcoffset() != dt.timedelta(0)),
    (events(), lambda e: e.data is not None and len(e.data) > 100_000),
    (events(), lambda e: e.data == b""),
    (events(), lambda e: {a.type for a in e.attributes.values()} >= {"boolean", "binary"}),
    (om_values("Long"), lambda v: v.value == 2 ** 63 - 1),
    (om_values("Short"), lambda v: v.value == -(2 ** 15)),
    (om_values("Double"), lambda v: v.value != v.value),            # NaN
    (om_values("Float"), lambda v: str(v.value) == "-0.0"),
    (om_values("KeyValue"), lambda v: any(x.type == "map" for x in v.value.values())),
], ids=["int-min", "int-max", "name-20", "name-1", "astral", "sub-ms", "offset", "large-data", "empty-data",
        "typed-extensions", "long-max", "short-min", "double-nan", "float-neg-zero", "nested-keyvalue"])
def test_strategies_reach_the_limits(strategy, condition):
    find(strategy, condition, settings=_FIND)


@given(props=om_properties())
def test_openmessaging_values_survive_amqp10_encoding(props):
    # OpenMessaging types on AMQP 1.0 (OM_TO_WIRE): proton must keep type and bits, NaN and -0.0 included.
    for key, value in props.items():
        assert value.type in OM_TO_WIRE.values()
        back = wire_amqp10.from_proton(wire_amqp10.to_proton(value))
        assert same_om_value(value, back), f"{key}: sent {value!r}, got {back!r}"


@pytest.mark.parametrize("a,b,same", [
    (Typed("double", 0.0), Typed("double", -0.0), False),
    (Typed("double", float("nan")), Typed("double", float("nan")), True),
    (Typed("int", 1), Typed("long", 1), False),
    (Typed("map", {"k": Typed("float", 1.5)}), Typed("map", {"k": Typed("float", 1.5)}), True),
])
def test_om_equality_is_bit_exact(a, b, same):
    assert same_om_value(a, b) is same


_BASE = {"specversion": Attr("string", "1.0"), "id": Attr("string", "1"), "source": Attr("uri-reference", "/s"),
         "type": Attr("string", "t")}


@pytest.mark.parametrize("changed,mode,expected_kind", [
    (Event({**_BASE, "n": Attr("string", "5")}), "structured", "type"),     # JSON keeps Integer
    (Event({**_BASE, "n": Attr("integer", 6)}), "binary", "value"),
    (Event({**_BASE}), "binary", "missing"),
    (Event({**_BASE, "n": Attr("integer", 5), "x": Attr("boolean", True)}), "binary", "added"),
    (Event({**_BASE, "n": Attr("integer", 5)}, b"1.0"), "binary", "data"),   # JSON 1 is not 1.0... as bytes
])
def test_equality_tells_events_apart(changed, mode, expected_kind):
    original = Event({**_BASE, "n": Attr("integer", 5)}, b"1" if expected_kind == "data" else None)
    kinds = [m.kind for m in roundtrip_mismatches(original, changed, "ce-amqp", mode)]
    if expected_kind == "data":
        # 1 and 1.0 are the same JSON number, so that data is equal; text data is not.
        assert kinds == []
        kinds = [m.kind for m in roundtrip_mismatches(Event(original.attributes, b"1"),
                                                      Event(original.attributes, b"2"), "ce-amqp", mode)]
    assert expected_kind in kinds


def test_equality_allows_only_what_the_carrier_loses():
    ev = Event({**_BASE, "n": Attr("integer", 5)})
    as_string = Event({**_BASE, "n": Attr("string", "5")})
    assert roundtrip_mismatches(ev, as_string, "ce-amqp", "binary") == []      # 3.1.3.2 canonical string
    assert roundtrip_mismatches(ev, as_string, "ce-amqp", "structured") != []  # JSON has numbers
    assert same_json([1, True], [1, True]) and not same_json(True, 1) and not same_json({"a": 1}, {"a": "1"})


@settings(max_examples=5)
@given(st.just(None))
def test_profile_is_loaded(_):
    from hypothesis import settings as current
    assert current.get_current_profile_name() in ("quick", "thorough")
