"""sdk_event: the SDK is handed exactly the vector's event, and read back as it returned it.

The rule under test: no attribute added, removed or retyped on the way in; what the SDK's API
cannot hold is an adapter error naming the attribute (never a fail or pass of the SDK); on the
way out only the documented, lossless conversions of `attr_of` and `data_to_bytes`.
"""
from __future__ import annotations

import datetime as dt
import json

import proton
import pytest
from cloudevents.core.bindings import amqp as sdk_amqp
from cloudevents.core.bindings import rabbitmq as sdk_rabbitmq
from cloudevents.core.exceptions import CloudEventValidationError
from cloudevents.core.formats.json import JSONFormat
from cloudevents.core.v1.event import CloudEvent

from fixtures.codecs import sdk_event, values
from fixtures.codecs.model import Attr, Event
from fixtures.codecs.sdk_amqp import SdkAmqpCodec
from fixtures.codecs.sdk_event import attr_of, from_sdk_event, held_differences, to_sdk_event
from fixtures.codecs.sdk_rabbitmq import SdkRabbitMQCodec
from fixtures.verdict.outcomes import AdapterLimitation

T0 = dt.datetime(2018, 4, 5, 3, 56, 24, 123000, tzinfo=dt.timezone(dt.timedelta(hours=2)))
BASE = {"specversion": Attr("string", "1.0"), "id": Attr("string", "A1"),
        "source": Attr("uri-reference", "/src"), "type": Attr("string", "t")}
EVERY_ATTRIBUTE = {**BASE, "datacontenttype": Attr("string", "application/json"),
                   "dataschema": Attr("uri", "https://example.com/s.json"), "subject": Attr("string", "sub"),
                   "time": Attr("timestamp", T0), "myint": Attr("integer", -7), "mybool": Attr("boolean", False),
                   "mybin": Attr("binary", b"\x00\xff"), "myuri": Attr("uri", "https://e.com/x"),
                   "myref": Attr("uri-reference", "#frag"), "mystr": Attr("string", "")}


def handed(event: Event) -> tuple[dict, object]:
    ce = to_sdk_event(event)
    return ce.get_attributes(), ce.get_data()


def assert_exactly(event: Event, attributes: dict, data) -> None:
    assert list(attributes) == list(event.attributes)
    for name, attr in event.attributes.items():
        assert type(attributes[name]) is type(attr.value), name   # True is not 1, a str not a datetime
        assert attributes[name] == attr.value, name
        if isinstance(attr.value, dt.datetime):
            assert attributes[name].utcoffset() == attr.value.utcoffset(), name
    assert type(data) is type(event.data) and data == event.data


@pytest.mark.parametrize("data", [None, b"", b'{"a":1}', b"\x00\x80"])
def test_every_attribute_is_handed_over_as_it_is(data):
    event = Event(dict(EVERY_ATTRIBUTE), data)
    assert_exactly(event, *handed(event))


def test_an_event_without_time_is_built_as_a_user_builds_it():
    # The SDK's constructor fills in `time` (now): the event a user gets has it, and the message its
    # binding writes shows it (the vector judges that). The adapter neither refuses nor alters it.
    event = Event(dict(BASE), b"x")
    attributes, data = handed(event)
    assert set(attributes) == set(BASE) | {"time"} and data == b"x"
    [said] = held_differences(to_sdk_event(event), {k: a.value for k, a in BASE.items()}, b"x")
    assert said.startswith("attribute 'time': the event has none, and the SDK's CloudEvent constructor fills one in")


def test_the_sdks_attributes_are_never_altered():
    # get_attributes() hands out the SDK event's own dict: the adapter reads it and never writes it.
    ce = to_sdk_event(Event({**BASE, "time": EVERY_ATTRIBUTE["time"]}, b"x"))
    assert ce.get_attributes() is ce._attributes and set(ce.get_attributes()) == set(BASE) | {"time"}


@pytest.mark.parametrize("name", ["datacontenttype", "dataschema", "subject", "myint", "mybin"])
def test_each_optional_attribute_is_handed_over_beside_time(name):
    event = Event({**BASE, "time": EVERY_ATTRIBUTE["time"], name: EVERY_ATTRIBUTE[name]})
    assert_exactly(event, *handed(event))


def test_the_vectors_own_events_are_handed_over_exactly():
    # Every encode vector of the SDK's bindings: the event the SDK gets is the vector's event, plus the
    # `time` its constructor stamps on one without it.
    from pathlib import Path

    from fixtures.vectordata.vectors import load_vectors
    vectors = load_vectors(Path(__file__).resolve().parents[2] / "vectors")
    seen = 0
    for spec in ("ce-amqp", "ce-rabbitmq"):
        for vector in vectors.by_spec(spec, "encode"):
            event = values.to_event(vector.input["event"])
            attributes, data = handed(event)
            if "time" not in event.attributes:
                attributes = {k: v for k, v in attributes.items() if k != "time"}
            assert_exactly(event, attributes, data)
            seen += 1
    assert seen > 20


@pytest.mark.parametrize("missing", ["id", "specversion"])
def test_a_required_attribute_the_sdk_fills_in_reaches_the_message(missing):
    # The constructor gives the event an id / a specversion before validating it: the event a user
    # gets has one, and its message carries it, where a vector expecting a refusal of the event
    # judges the SDK (its own xfail where known), never the adapter.
    attrs = dict(BASE)
    del attrs[missing]
    assert missing in to_sdk_event(Event(attrs)).get_attributes()
    for codec, names in ((SdkAmqpCodec(), "application_properties"), (SdkRabbitMQCodec(), "headers")):
        msg = codec.encode(Event({**attrs, "time": EVERY_ATTRIBUTE["time"]}), "binary")
        assert any(k.endswith(missing) for k in getattr(msg, names))


def test_a_value_outside_the_sdks_types_is_an_adapter_error():
    with pytest.raises(AdapterLimitation, match="attribute 'myint'"):
        to_sdk_event(Event({**BASE, "myint": Attr("integer", True)}))
    with pytest.raises(AdapterLimitation, match="attribute 'x'"):
        to_sdk_event(Event({**BASE, "x": Attr("python:float", 1.5)}))


def test_an_event_the_sdk_refuses_stays_the_sdks_refusal():
    # Validation runs on exactly the vector's attributes: its refusal is the SDK's, not the adapter's.
    with pytest.raises(CloudEventValidationError):
        to_sdk_event(Event({**BASE, "BadName": Attr("string", "x")}))
    with pytest.raises(CloudEventValidationError):
        to_sdk_event(Event({k: v for k, v in BASE.items() if k != "source"}))


def test_held_differences_names_each_attribute():
    ce = CloudEvent({"specversion": "1.0", "id": "A1", "source": "/src", "type": "t", "n": 1}, b"x")
    given = {"specversion": "1.0", "id": "A1", "source": "/src", "type": "t", "n": True, "gone": "g"}
    out = held_differences(ce, given, b"y")
    assert any("'time'" in d and "constructor fills one in" in d for d in out)
    assert any("'n'" in d for d in out) and any("'gone'" in d for d in out) and any(d.startswith("data") for d in out)


@pytest.mark.parametrize("mode", ["binary", "structured"])
def test_encoded_messages_carry_no_attribute_the_event_lacks(mode):
    given = {**BASE, "time": EVERY_ATTRIBUTE["time"]}
    event = Event(dict(given), b"x")
    msg = SdkAmqpCodec().encode(event, mode)
    if mode == "binary":
        assert sorted(msg.application_properties) == sorted(f"cloudEvents_{n}" for n in given)
    else:
        assert sorted(k for k in json.loads(msg.body.single_data()) if k != "data_base64") == sorted(given)
    msg = SdkRabbitMQCodec().encode(event, mode)
    if mode == "binary":
        assert sorted(msg.headers) == sorted(f"ce-{n}" for n in given)
    else:
        assert sorted(k for k in json.loads(msg.body) if k != "data_base64") == sorted(given)


# ---- decode: read back as returned -----------------------------------------------------------------

def test_decode_keeps_what_the_sdk_returned():
    ce = CloudEvent({"specversion": "1.0", "id": "A1", "source": "/src", "type": "t", "time": T0,
                     "n": proton.timestamp(1000), "sym": proton.symbol("s"), "b": True, "blob": memoryview(b"\x01"), "none": None,
                     "f": 1.5}, b"\x00")
    event = from_sdk_event(ce, "binary")
    # An AMQP timestamp the SDK passed through keeps its type (the instant of its milliseconds); the
    # model's forms (int, str) of the client's other int / str subclasses: same values.
    assert event.attributes["n"] == Attr("timestamp", dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=dt.UTC))
    assert event.attributes["sym"] == Attr("string", "s") and type(event.attributes["sym"].value) is str
    assert event.attributes["b"] == Attr("boolean", True)
    assert event.attributes["blob"] == Attr("binary", b"\x01")
    assert event.attributes["time"] == Attr("timestamp", T0)
    assert event.attributes["source"] == Attr("uri-reference", "/src")
    assert event.attributes["f"] == Attr("python:float", 1.5)
    assert "none" not in event.attributes   # None is the SDK's "unset" (its getters' None)
    assert event.data == b"\x00"


def test_a_str_time_is_not_labelled_a_timestamp():
    assert attr_of("time", "2018-04-05T03:56:24Z") == Attr("string", "2018-04-05T03:56:24Z")
    assert attr_of("dataschema", "https://x") == Attr("uri", "https://x")


def test_decode_adds_nothing_of_ours():
    # What the SDK's own decoder returns, attribute for attribute: nothing dropped, nothing added by us.
    msg = sdk_amqp.AMQPMessage(properties={"content-type": "text/plain"},
                               application_properties={"cloudEvents_specversion": "1.0", "cloudEvents_id": "A1",
                                                       "cloudEvents_source": "/src", "cloudEvents_type": "t"},
                               application_data=b"hi")
    ce = sdk_amqp.from_amqp(msg, JSONFormat())
    assert set(from_sdk_event(ce, "binary").attributes) == {k for k, v in ce.get_attributes().items() if v is not None}
    rmsg = sdk_rabbitmq.RabbitMQMessage(headers={"ce-specversion": "1.0", "ce-id": "A1", "ce-source": "/src",
                                                 "ce-type": "t"}, content_type=None, body=b"")
    ce = sdk_rabbitmq.from_rabbitmq(rmsg, JSONFormat())
    assert set(from_sdk_event(ce, "binary").attributes) == set(ce.get_attributes())


@pytest.mark.parametrize("data,ctype,mode,want", [
    (None, "application/json", "binary", None),
    (b"\x00", None, "binary", b"\x00"),
    ("abc", "application/json", "binary", b"abc"),          # the SDK's str as its write_data sends it: text
    ("abc", "application/json", "structured", b'"abc"'),
    ("abc", "text/plain", "structured", b"abc"),
    ({"a": [1, 2.5, None]}, "application/json", "binary", b'{"a":[1,2.5,null]}'),
])
def test_data_conversion_is_documented_and_lossless(data, ctype, mode, want):
    got = sdk_event.data_to_bytes(data, ctype, mode)
    assert got == want
    if not isinstance(data, (str, bytes, type(None))):
        assert json.loads(got) == data   # the SDK's JSON value, whole


def test_the_data_is_never_read_again_from_the_received_bytes():
    # A shim translates, nothing more: the SDK's str abc (which its JSONFormat.read_data gives for the
    # JSON body "abc" and for the text body abc alike) is its text, whatever bytes it was handed; the
    # conversion takes no received bytes at all.
    import inspect
    assert list(inspect.signature(sdk_event.data_to_bytes).parameters) == ["data", "datacontenttype", "mode"]
    assert list(inspect.signature(from_sdk_event).parameters) == ["ce", "mode"]
    assert sdk_event.data_to_bytes("abc", "application/json", "binary") == b"abc"


def test_the_verifier_hands_an_event_without_id_to_the_sdk():
    # verify.call_codec hands the SDK the event as a user builds it: the constructor's id is the SDK's,
    # and what the SDK wrote is judged; no adapter error stands between.
    from types import SimpleNamespace

    from fixtures.kinds import codec_checks as verify
    attrs = {k: v for k, v in BASE.items() if k != "id"}
    codec = SdkAmqpCodec()
    status, msg = verify.call_codec(SimpleNamespace(spec="ce-amqp", clauses=()), codec, codec.encode, Event(attrs),
                                    "binary")
    assert status == "ok" and "cloudEvents_id" in msg.application_properties
