"""Decoders against malformed messages (fixtures/strategies/malformed.py), every codec of every binding.

A decoder passes when it refuses with an error its interface documents (one of
its `refusals`, with a message; AdapterLimitation for a message our client cannot
carry) or, where the defect allows a lenient reading, returns a valid event. It
fails on a crash (any other exception: the codecs pass the implementation's
exceptions on as they are) and on a silently wrong event: one returned for a message that must be refused, or one that is
not a valid CloudEvent. SDK behaviour already recorded in expectations/ is
tolerated through fixtures/strategies/deviations.py, never skipped.
"""
from __future__ import annotations

import pytest
from cloudevents.core.exceptions import BaseCloudEventException
from hypothesis import given
from hypothesis import strategies as st

from fixtures.codecs import cetypes
from fixtures.codecs.base import CodecLacks
from fixtures.codecs.model import Amqp091Message, AmqpBody, AmqpMessage, Typed
from fixtures.codecs.registry import BINDINGS, codecs_for
from fixtures.codecs.sdk_amqp import SdkAmqpCodec
from fixtures.codecs.sdk_common import SDK_REFUSALS
from fixtures.codecs.sdk_rabbitmq import SdkRabbitMQCodec
from fixtures.strategies.deviations import Context, Outcome, known_deviation
from fixtures.strategies.malformed import malformed_messages
from fixtures.strategies.notation import message_to_notation
from fixtures.verdict.outcomes import AdapterLimitation

# What the SDK documents as a refusal (fixtures/codecs/sdk_common.py): its validation errors and
# ValueError (json.JSONDecodeError, UnicodeDecodeError, dateutil's ParserError, binascii.Error are
# ValueErrors), and its message type refusing a message.
assert BaseCloudEventException in SDK_REFUSALS and ValueError in SDK_REFUSALS


def _crash(codec, exc: BaseException) -> BaseException | None:
    """`exc` when it is none of the refusals the codec documents, else None."""
    return None if isinstance(exc, codec.refusals) else exc


# The SDK's crashes met by this fuzzer: (binding, defect kind, exception type) -> the strict xfail test
# below that pins it. A crash is no conformance result (the message is refused either way, so no
# vector can see it); it is a defect of the error the SDK documents, kept visible here.
KNOWN_SDK_CRASHES = {
    ("ce-amqp", "not-object", "AttributeError"): "test_sdk_crash_structured_body_not_an_object",
    ("ce-rabbitmq", "not-object", "AttributeError"): "test_sdk_crash_structured_body_not_an_object",
    ("ce-amqp", "member-time", "TypeError"): "test_sdk_crash_structured_time_not_a_string",
    ("ce-rabbitmq", "member-time", "TypeError"): "test_sdk_crash_structured_time_not_a_string",
}


def _known_crash(spec, codec, kind, crash) -> bool:
    return codec.info.name == "cloudevents-sdk-python" and (spec, kind, type(crash).__name__) in KNOWN_SDK_CRASHES


CASES = [pytest.param(spec, codec, id=f"{spec}-{codec.info.name}") for spec in BINDINGS for codec in codecs_for(spec)]


@pytest.mark.parametrize("spec,codec", CASES)
@given(data=st.data())
def test_decoder_refuses_or_reads_validly(spec, codec, data):
    # The strategy depends on the binding, hence st.data() (the drawn case is printed on failure).
    judge(spec, codec, data.draw(malformed_messages(spec), label="malformed"))


def judge(spec, codec, case) -> None:
    impl = codec.info.name
    ctx = Context(spec, "fuzz", None)
    shown = f"defect: {case.defect}\nmessage: {message_to_notation(case.message)}"
    try:
        event = codec.decode(case.message)
    except (AdapterLimitation, CodecLacks):
        return   # our AMQP client cannot carry this message, or the implementation's API excludes it: nothing judged
    except Exception as exc:  # noqa: BLE001 - a documented refusal, or a crash
        crash = _crash(codec, exc)
        if crash is not None and not _known_crash(spec, codec, case.kind, crash):
            raise AssertionError(f"{impl} crashed: {type(crash).__name__}: {crash}\n{shown}") from None
        assert crash is not None or str(exc).strip(), f"{impl} refused without saying why\n{shown}"
        return
    if case.must_reject and not known_deviation(impl, ctx, Outcome("accepted", case.kind, event)):
        raise AssertionError(f"{impl} accepted a message it must refuse\n{shown}\ndecoded: {event}")
    try:
        cetypes.validate_event(event)
    except ValueError as exc:
        if not known_deviation(impl, ctx, Outcome("invalid", case.kind, exc)):
            raise AssertionError(f"{impl} returned an event that is not a valid CloudEvent ({exc})\n{shown}") from None


# ---- the SDK's known crashes, pinned (strict: when the SDK is fixed they turn red, and the entry goes) ----

def _sdk_refusal(codec, message):
    with pytest.raises(Exception) as info:  # noqa: PT011 - which exception is what the caller looks at
        codec.decode(message)
    return info.value


@pytest.mark.xfail(strict=True, reason="cloudevents 2.2.0 JSONFormat.read calls .get on whatever json.loads returned: "
                                       "a JSON body that is not an object raises AttributeError, not a validation error")
@pytest.mark.parametrize("body", [b"null", b"[]", b"true"])
@pytest.mark.parametrize("codec", [SdkAmqpCodec(), SdkRabbitMQCodec()], ids=["ce-amqp", "ce-rabbitmq"])
def test_sdk_crash_structured_body_not_an_object(codec, body):
    ct = {"content-type": "application/cloudevents+json"}
    message = (AmqpMessage(properties=ct, body=AmqpBody.of_bytes(body)) if isinstance(codec, SdkAmqpCodec)
               else Amqp091Message(properties=ct, body=body))
    assert _crash(codec, _sdk_refusal(codec, message)) is None


@pytest.mark.xfail(strict=True, reason="cloudevents 2.2.0 JSONFormat.read passes the `time` member to dateutil's isoparse "
                                       "whatever its JSON type: a number or boolean raises TypeError")
@pytest.mark.parametrize("value", [5, 1.5, True])
@pytest.mark.parametrize("codec", [SdkAmqpCodec(), SdkRabbitMQCodec()], ids=["ce-amqp", "ce-rabbitmq"])
def test_sdk_crash_structured_time_not_a_string(codec, value):
    import json
    body = json.dumps({"specversion": "1.0", "id": "1", "source": "/s", "type": "t", "time": value}).encode()
    ct = {"content-type": "application/cloudevents+json"}
    message = (AmqpMessage(properties=ct, body=AmqpBody.of_bytes(body)) if isinstance(codec, SdkAmqpCodec)
               else Amqp091Message(properties=ct, body=body))
    assert _crash(codec, _sdk_refusal(codec, message)) is None


def test_a_typed_time_header_is_outside_the_sdks_api_never_handed_to_it():
    # RabbitMQMessage takes "RabbitMQ message headers as string key-value pairs": a boolean ce-time,
    # which a pika consumer hands out as a bool, has no place in its API. It is the SDK's lack
    # (CodecLacks), never handed to it to crash on, never an adapter's limit, never a refusal for it.
    headers = {"ce-specversion": Typed("string", "1.0"), "ce-id": Typed("string", "1"), "ce-source": Typed("string", "/s"),
               "ce-type": Typed("string", "t"), "ce-time": Typed("boolean", True)}
    codec = SdkRabbitMQCodec()
    with pytest.raises(CodecLacks) as info:
        codec.decode(Amqp091Message(headers=headers))
    assert not isinstance(info.value, (AdapterLimitation, *codec.refusals)), info.value


def test_crash_detection_can_fail():
    # The oracle itself: a TypeError is a crash, a documented refusal is not.
    for codec in (SdkAmqpCodec(), SdkRabbitMQCodec()):
        assert isinstance(_crash(codec, TypeError("boom")), TypeError)
        assert _crash(codec, ValueError("bad")) is None
        assert _crash(codec, BaseCloudEventException("bad")) is None
