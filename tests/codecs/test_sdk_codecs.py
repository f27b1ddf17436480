"""sdk_amqp / sdk_rabbitmq: the CloudEvents Python SDK behind the codec interface.

These tests pin what the SDK (cloudevents==2.2.0) actually does, as seen on the
wire. Several assertions record SDK behaviour that departs from the binding
texts; each says so. They are facts about the SDK, not expectations of ours: if
one starts failing after an SDK upgrade, the SDK changed, and the expectations
files should be reviewed.
"""
from __future__ import annotations

import datetime as dt
import json

import pytest
from cloudevents.core.exceptions import BaseCloudEventException, CloudEventValidationError

from fixtures.codecs.base import Codec, CodecLacks, Unsupported
from fixtures.codecs.model import Amqp091Message, AmqpBody, AmqpMessage, Attr, Event, Typed
from fixtures.codecs.sdk_amqp import SdkAmqpCodec
from fixtures.codecs.sdk_common import SDK_REFUSALS
from fixtures.codecs.sdk_rabbitmq import SdkRabbitMQCodec
from fixtures.verdict.outcomes import AdapterLimitation

UTC = dt.UTC
T0 = dt.datetime(2018, 4, 5, 3, 56, 24, tzinfo=UTC)
AMQP, RABBIT = SdkAmqpCodec(), SdkRabbitMQCodec()


def event(data=None, **extra) -> Event:
    attrs = {"specversion": Attr("string", "1.0"), "id": Attr("string", "1"),
             "source": Attr("uri-reference", "/s"), "type": Attr("string", "t")}
    attrs.update(extra)
    return Event(attrs, data)


def S(v):
    return Typed("string", v)


AMQP_REQUIRED = {"cloudEvents_specversion": S("1.0"), "cloudEvents_id": S("1"), "cloudEvents_source": S("/s"),
                 "cloudEvents_type": S("t")}
RABBIT_REQUIRED = {"ce-specversion": S("1.0"), "ce-id": S("1"), "ce-source": S("/s"), "ce-type": S("t")}


def test_identity():
    for codec, binding in ((AMQP, "ce-amqp"), (RABBIT, "ce-rabbitmq")):
        assert isinstance(codec, Codec)
        assert codec.info.name == "cloudevents-sdk-python" and codec.info.binding == binding
        assert codec.info.version == "2.2.0" and codec.info.provenance == {"package": "cloudevents==2.2.0"}


# ---- ce-amqp, encode ------------------------------------------------------------------------

def test_amqp_binary_is_typed_as_proton_sends_it_and_as_the_sdk_documents():
    msg = AMQP.encode(event(b'{"a":1}', time=Attr("timestamp", T0), datacontenttype=Attr("string", "application/json"),
                            flag=Attr("boolean", True), n=Attr("integer", 5), blob=Attr("binary", b"\x00")), "binary")
    assert msg.properties == {"content-type": "application/json"}
    assert msg.application_properties == {
        **AMQP_REQUIRED,
        # `time` is written as a Python int of milliseconds, which to_binary documents as
        # "AMQP timestamp type": sent as the timestamp the SDK says it is; a plain int is a long.
        "cloudEvents_time": Typed("timestamp", 1522900584000),
        "cloudEvents_flag": Typed("boolean", True), "cloudEvents_n": Typed("long", 5),
        "cloudEvents_blob": Typed("binary", b"\x00")}
    assert msg.body == AmqpBody.of_bytes(b'{"a":1}')


def test_amqp_binary_time_can_lose_a_millisecond():
    # Known SDK behaviour: int(datetime.timestamp() * 1000) goes through a float and
    # truncates, so some whole-millisecond times come out 1 ms early.
    t = dt.datetime(1987, 5, 10, 10, 40, 21, 915000, tzinfo=UTC)
    msg = AMQP.encode(event(time=Attr("timestamp", t)), "binary")
    assert msg.application_properties["cloudEvents_time"] == Typed("timestamp", 547641621914)   # not ...915


def test_amqp_encode_maps_only_the_attributes_the_event_has():
    props = AMQP.encode(event(time=Attr("timestamp", T0)), "binary").application_properties
    assert set(props) == set(AMQP_REQUIRED) | {"cloudEvents_time"}
    assert {k: v for k, v in props.items() if k in AMQP_REQUIRED} == AMQP_REQUIRED


def test_an_event_without_time_is_built_as_a_user_builds_it():
    # The SDK's CloudEvent constructor fills in `time` (now): the event a user gets has one, and the
    # message carries it. The adapter hands the SDK the event and reports what it wrote.
    for codec, prefix in ((AMQP, "cloudEvents_"), (RABBIT, "ce-")):
        msg = codec.encode(event(), "binary")
        names = msg.application_properties if codec is AMQP else msg.headers
        assert f"{prefix}time" in names


def test_amqp_binary_without_data_sends_an_empty_data_section():
    # The SDK's application_data is b"" for no data: absent and empty data look alike.
    assert AMQP.encode(event(time=Attr("timestamp", T0)), "binary").body == AmqpBody.of_bytes(b"")


def test_amqp_structured():
    msg = AMQP.encode(event(b'{"a":1}', datacontenttype=Attr("string", "application/json"),
                            time=Attr("timestamp", T0)), "structured")
    assert msg.properties == {"content-type": "application/cloudevents+json"}
    doc = json.loads(msg.body.single_data())
    # Given bytes, the SDK's JSON format always uses data_base64 (JSON format 3.1.1: binary runtime data).
    assert "data" not in doc and doc["data_base64"] == "eyJhIjoxfQ=="
    assert doc["time"] == "2018-04-05T03:56:24Z"


def test_amqp_structured_cannot_write_a_binary_extension():
    # Known SDK behaviour: JSONFormat.write hands bytes to json.dumps (TypeError) instead of
    # writing the base64 string the JSON format's type mapping (2.2) requires. A TypeError is
    # none of the SDK's documented refusals: the verifier counts it as a crash.
    with pytest.raises(TypeError) as info:
        AMQP.encode(event(blob=Attr("binary", b"\x00"), time=Attr("timestamp", T0)), "structured")
    assert not isinstance(info.value, AMQP.refusals)


def test_sdk_validation_errors_are_the_sdks_own_refusal():
    # The adapter no longer turns the SDK's validation error into something else: it reaches the
    # verifier as the SDK raised it, and is a refusal because the SDK documents it.
    with pytest.raises(CloudEventValidationError, match="specversion") as info:
        AMQP.encode(event(specversion=Attr("string", "2.0")), "binary")
    assert isinstance(info.value, AMQP.refusals)


def test_sdk_refusals_are_what_the_sdk_documents():
    # cloudevents.core.exceptions.BaseCloudEventException (and subclasses) and ValueError
    # (formats/base.py ":raises ValueError"), nothing else: never a blanket Exception, and never an
    # exception of the adapter's own (a message the SDK's types cannot hold is never its refusal).
    for codec in (AMQP, RABBIT):
        assert codec.refusals == SDK_REFUSALS == (BaseCloudEventException, ValueError)
        for crash in (TypeError("x"), KeyError("x"), AttributeError("x"), AdapterLimitation("x")):
            assert not isinstance(crash, codec.refusals)


def test_unknown_mode_is_unsupported():
    with pytest.raises(Unsupported):
        AMQP.encode(event(), "batch")
    with pytest.raises(Unsupported):
        RABBIT.encode(event(), "batch")


# ---- ce-amqp, decode ------------------------------------------------------------------------

def amqp_message(app=None, content_type=None, body=b"") -> AmqpMessage:
    props = {"content-type": content_type} if content_type else {}
    return AmqpMessage(properties=props, application_properties={**AMQP_REQUIRED, **(app or {})},
                       body=AmqpBody.of_bytes(body))


@pytest.mark.parametrize("value", [Typed("timestamp", 1522900584000), S("2018-04-05T03:56:24Z")])
def test_amqp_decode_time_both_forms(value):
    assert AMQP.decode(amqp_message({"cloudEvents_time": value})).get("time") == T0


def test_amqp_decode_native_types():
    ev = AMQP.decode(amqp_message({"cloudEvents_flag": Typed("boolean", True), "cloudEvents_n": Typed("long", 5),
                                   "cloudEvents_blob": Typed("binary", b"\x01")}, "application/json", b'{"a": 1}'))
    assert ev.attributes["flag"] == Attr("boolean", True)
    assert ev.attributes["n"] == Attr("integer", 5)
    assert ev.attributes["blob"] == Attr("binary", b"\x01")
    assert json.loads(ev.data) == {"a": 1}


def test_amqp_decode_timestamp_extension_keeps_the_amqp_type():
    # The SDK converts only `time`; a native AMQP timestamp in an extension reaches the application as
    # the client's proton.timestamp, passed through: it is read as the Timestamp it is.
    ev = AMQP.decode(amqp_message({"cloudEvents_when": Typed("timestamp", 1000)}))
    assert ev.attributes["when"] == Attr("timestamp", dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC))


def test_amqp_decode_invents_missing_id_and_time():
    # Known SDK behaviour: a binary message without cloudEvents_id is accepted and given
    # a random id; a `time` is added too. ce-amqp 3.1.3 maps attributes "to and from" the
    # application properties; the message carried neither.
    msg = amqp_message()
    del msg.application_properties["cloudEvents_id"]
    ev = AMQP.decode(msg)
    assert ev.get("id") and ev.get("id") != "1"
    assert "time" in ev.attributes


def test_amqp_decode_accepts_mixed_separators():
    # Known SDK behaviour: ce-amqp 3.1.3.1 "Any single message MUST use the same separator
    # for all CloudEvents attributes" is not checked on receipt.
    ev = AMQP.decode(amqp_message({"cloudEvents:ext": S("x")}))
    assert ev.get("ext") == "x"


def test_amqp_decode_accepts_specversion_0_3():
    # The SDK also implements CloudEvents 0.3 and picks it from specversion.
    assert AMQP.decode(amqp_message({"cloudEvents_specversion": S("0.3")})).get("specversion") == "0.3"


def test_amqp_decode_refuses_unknown_format():
    # application/cloudevents+avro is read as structured JSON and fails with the JSON parser's
    # ValueError, a documented refusal (refusing is allowed; the MAY is unused).
    with pytest.raises(ValueError):
        AMQP.decode(amqp_message(content_type="application/cloudevents+avro", body=b"\x00"))


def test_amqp_decode_structured_case_insensitive():
    body = json.dumps({"specversion": "1.0", "id": "9", "source": "/s", "type": "t"}).encode()
    ev = AMQP.decode(AmqpMessage(properties={"content-type": "Application/CloudEvents+JSON"}, body=AmqpBody.of_bytes(body)))
    assert ev.get("id") == "9"


def test_amqp_decode_structured_null_attribute_crashes():
    # Known SDK behaviour: JSON format 2.2 "When decoding attributes and a null value is
    # encountered, it MUST be treated as the equivalent of unset or omitted." The SDK hands the
    # null `time` to dateutil's isoparse, which raises TypeError: a crash, not a refusal.
    body = json.dumps({"specversion": "1.0", "id": "9", "source": "/s", "type": "t", "time": None}).encode()
    with pytest.raises(TypeError) as info:
        AMQP.decode(AmqpMessage(properties={"content-type": "application/cloudevents+json"}, body=AmqpBody.of_bytes(body)))
    assert not isinstance(info.value, AMQP.refusals)


@pytest.mark.parametrize("body", [AmqpBody("value", value=Typed("binary", b"{}")), AmqpBody("data", (b"{", b"}"))],
                         ids=["amqp-value", "two-data-sections"])
def test_amqp_decode_body_the_sdk_message_cannot_hold_is_never_its_refusal(body):
    # The SDK's AMQPMessage takes application_data as one bytes value: a message with another body
    # cannot be given to it. That is its API's limit (an adapter error naming it), never a refusal
    # answered on the SDK's behalf, and not `unsupported`.
    msg = amqp_message()
    msg.body = body
    with pytest.raises(AdapterLimitation, match="AMQPMessage") as info:
        AMQP.decode(msg)
    assert not isinstance(info.value, AMQP.refusals)


# ---- ce-rabbitmq ------------------------------------------------------------------------------

def test_rabbitmq_binary_headers_are_all_python_str():
    msg = RABBIT.encode(event(b"x", datacontenttype=Attr("string", "text/plain"), time=Attr("timestamp", T0),
                              flag=Attr("boolean", True), n=Attr("integer", 5), blob=Attr("binary", b"\x00")), "binary")
    assert msg.properties == {"content-type": "text/plain"}
    assert msg.headers == {
        **RABBIT_REQUIRED, "ce-time": S("2018-04-05T03:56:24Z"), "ce-n": S("5"),
        # Known SDK behaviour: str() of the Python value, not the CloudEvents canonical
        # string forms ("true", base64): a boolean becomes "True", bytes their repr.
        "ce-flag": S("True"), "ce-blob": S("b'\\x00'")}
    assert msg.body == b"x"


def test_rabbitmq_structured():
    msg = RABBIT.encode(event(b"x", datacontenttype=Attr("string", "text/plain"), time=Attr("timestamp", T0)),
                        "structured")
    assert msg.properties == {"content-type": "application/cloudevents+json"}
    assert json.loads(msg.body)["data_base64"] == "eA=="


def rabbit_message(headers=None, content_type=None, body=b"") -> Amqp091Message:
    props = {"content-type": content_type} if content_type else {}
    return Amqp091Message(properties=props, headers={**RABBIT_REQUIRED, **(headers or {})}, body=body)


@pytest.mark.parametrize("typed", [Typed("long", 5), Typed("boolean", True), Typed("binary", b"\x01"),
                                   Typed("timestamp", 1522900584)], ids=lambda t: t.type)
def test_rabbitmq_decode_a_typed_header_is_the_sdks_lack(typed):
    # RabbitMQMessage takes "RabbitMQ message headers as string key-value pairs": a header pika decodes
    # typed (an int, a bool, bytes, a datetime) has no place in its API. It is never handed to the SDK
    # (2.2.0 kept some as they were and crashed on a datetime: answers to an input its API excludes).
    with pytest.raises(CodecLacks, match="dict\\[str, str\\]"):
        RABBIT.decode(rabbit_message({"ce-x": typed}))


def test_rabbitmq_decode_lowercases_header_names():
    ev = RABBIT.decode(Amqp091Message(headers={k.upper(): v for k, v in RABBIT_REQUIRED.items()}))
    assert ev.get("id") == "1"


def test_rabbitmq_decode_invents_missing_id():
    # Known SDK behaviour, as for AMQP: a missing required attribute is filled in.
    msg = rabbit_message()
    del msg.headers["ce-id"]
    assert RABBIT.decode(msg).get("id")


def test_rabbitmq_header_pika_cannot_send_is_an_adapter_limitation():
    # pika (our client) has no writer for an unsigned 32-bit field: an `error` of kind adapter.
    with pytest.raises(AdapterLimitation):
        RABBIT.decode(rabbit_message({"ce-n": Typed("uint", 5)}))


def test_rabbitmq_decode_text_and_json_data():
    assert RABBIT.decode(rabbit_message(content_type="text/plain", body=b"hello")).data == b"hello"
    assert json.loads(RABBIT.decode(rabbit_message(content_type="application/json", body=b'[1, "a"]')).data) == [1, "a"]


@pytest.mark.parametrize("codec", [AMQP, RABBIT], ids=["ce-amqp", "ce-rabbitmq"])
def test_a_binary_mode_json_string_is_reported_as_the_sdk_gives_it_without_its_quotes(codec):
    # Known SDK behaviour: JSONFormat.read_data parses the JSON body "abc" into the str abc, the same
    # str it gives for the text body abc. The adapter reports that str as the SDK's write_data sends
    # it (its text), and never re-reads the received body to put the quotes back.
    for body in (b'"abc"', b"abc"):
        if codec is AMQP:
            msg = amqp_message(content_type="application/json", body=body)
        else:
            msg = rabbit_message(content_type="application/json", body=body)
        assert codec.decode(msg).data == b"abc"
