"""Refusal against crash (docs/verdicts.md, "Refusals and crashes"): a codec refuses only with an
exception type its interface documents (`Codec.refusals`); anything else is a crash and fails the
vector ("crashed: TypeError ..."), whatever the vector accepts. Shown through the verifier and the
row verdict, with stand-in codecs and with the codecs under test."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from cloudevents.core.exceptions import BaseCloudEventException

from fixtures.codecs.base import REFERENCE_REFUSALS, CodecInfo, DecodeError
from fixtures.codecs.reference_amqp import ReferenceAmqpCodec
from fixtures.codecs.registry import _CODECS, BINDINGS, codecs_for
from fixtures.codecs.sdk_rabbitmq import SdkRabbitMQCodec
from fixtures.kinds import codec_checks as verify
from fixtures.vectordata.registry import Clause
from fixtures.vectordata.vectors import Vector
from fixtures.verdict.outcomes import VectorFailed
from fixtures.verdict.verdicts import decide

CLAUSE = "ce-rabbitmq/3.1.3/attributes-to-headers"
REGISTRY = SimpleNamespace(clauses={CLAUSE: Clause(id=CLAUSE, spec="ce-rabbitmq", section="3.1.3", level="MUST",
                                                   quote="All CloudEvents attributes with exception of datacontenttype "
                                                         "and data MUST be individually mapped to and from the "
                                                         "RabbitMQ message properties section.")})
REQUIRED = {"ce-specversion": {"string": "1.0"}, "ce-source": {"string": "/x"}, "ce-type": {"string": "com.example.x"}}


def vector(expect: dict, headers=None) -> Vector:
    return Vector(id="ce-rabbitmq.test.refusal", spec="ce-rabbitmq", topic="test", clauses=(CLAUSE,), kind="decode",
                  status="stable", description="a message without id is refused", input={"message": {"headers": headers or REQUIRED}},
                  expect=expect, level="MUST", file=Path("test.yaml"), line=1)


REFUSAL_EXPECTED = {"error": "missing required attribute id"}


class StandIn:
    """A codec that raises what it is told to, and documents DecodeError as its refusal."""
    info = CodecInfo(name="stand-in", version="0", binding="ce-rabbitmq")
    refusals = (DecodeError,)

    def __init__(self, exc: BaseException):
        self.exc = exc

    def encode(self, event, mode):
        raise self.exc

    def decode(self, message):
        raise self.exc


def run(codec, v=None):
    v = v or vector(REFUSAL_EXPECTED)
    try:
        verify.run_decode(v, codec, REGISTRY)
    except Exception as exc:  # noqa: BLE001 - the verdict is what is tested
        return decide(v, REGISTRY, exc), exc
    return decide(v, REGISTRY, None), None


@pytest.mark.parametrize("crash", [TypeError("'NoneType' object is not subscriptable"), KeyError("id"),
                                   AttributeError("'list' object has no attribute 'get'")])
def test_a_crash_fails_a_vector_that_expects_a_refusal(crash):
    verdict, exc = run(StandIn(crash))
    assert isinstance(exc, VectorFailed)
    assert verdict.outcome == "fail"
    assert f"crashed: {type(crash).__name__}" in verdict.message
    assert verdict.clause_outcomes == {CLAUSE: "fail"}
    assert verdict.failed_step["role"] == "check" and verdict.failed_step["clause_ids"] == [CLAUSE]


def test_a_documented_refusal_passes_a_vector_that_expects_one():
    verdict, exc = run(StandIn(DecodeError("missing required attribute 'id'")))
    assert exc is None and verdict.outcome == "pass"
    assert verdict.clause_outcomes == {CLAUSE: "pass"}


def test_a_refusal_the_codec_does_not_document_is_a_crash():
    # ValueError is not in this stand-in's `refusals`: it is a crash here, whatever other codecs document.
    verdict, _ = run(StandIn(ValueError("bad")))
    assert verdict.outcome == "fail" and "crashed: ValueError" in verdict.message


def test_a_crash_fails_a_vector_that_expects_an_event_too():
    v = vector({"event": {"attributes": {"specversion": "1.0", "id": "x", "source": "/x", "type": "com.example.x"}}})
    verdict, _ = run(StandIn(TypeError("boom")), v)
    assert verdict.outcome == "fail" and "crashed: TypeError: boom" in verdict.message


def test_a_documented_refusal_of_a_valid_message_fails_as_a_rejection():
    v = vector({"event": {"attributes": {"specversion": "1.0", "id": "x", "source": "/x", "type": "com.example.x"}}})
    verdict, _ = run(StandIn(DecodeError("no")), v)
    assert verdict.outcome == "fail" and "actual: rejected with DecodeError" in verdict.message
    assert "crashed" not in verdict.message


def test_every_codec_declares_its_refusals():
    # Explicitly, on its own class (no default picked up by the verifier), and never a blanket
    # Exception: a refusal is a type the implementation's interface documents.
    for binding in BINDINGS:
        for cls in _CODECS[binding]:
            assert "refusals" in vars(cls), f"{cls.__name__} declares no `refusals`"
            refusals = cls.refusals
            assert isinstance(refusals, tuple) and refusals
            for t in refusals:
                assert isinstance(t, type) and issubclass(t, BaseException)
                assert t not in (Exception, BaseException), f"{cls.__name__}: {t.__name__} would count any crash as a refusal"
                assert not issubclass(TypeError, t) and not issubclass(KeyError, t) and not issubclass(AttributeError, t)


def test_the_reference_and_sdk_refusals():
    for binding in BINDINGS:
        for codec in codecs_for(binding):
            if codec.info.name == "mqconform-reference":
                assert codec.refusals == REFERENCE_REFUSALS == (DecodeError, ValueError)
            else:
                assert BaseCloudEventException in codec.refusals and ValueError in codec.refusals


@pytest.mark.parametrize("expect", [REFUSAL_EXPECTED, {"event": {"attributes": {
    "specversion": "1.0", "id": "1", "source": "/x", "type": "com.example.x", "time": {"timestamp": "2018-04-05T03:56:24Z"}}}}],
    ids=["expects-refusal", "expects-event"])
def test_a_typed_header_the_sdks_api_does_not_take_is_its_lack(expect):
    # RabbitMQMessage takes "RabbitMQ message headers as string key-value pairs" (dict[str, str]): a
    # native timestamp ce-time, which pika decodes as a datetime, has no place in its API. Handed
    # anyway, the SDK 2.2.0 raised TypeError, a crash of a type it never takes, booked as its MUST
    # failure (review 12); an adapter error booked its own gap to the suite (review 13); a pass credited
    # it with a refusal it never made (review 14). It is the SDK's scope: not_applicable where a reading
    # lets a receiver refuse the input, else a failure saying what the API lacks.
    headers = {**REQUIRED, "ce-id": {"string": "1"}, "ce-time": {"timestamp": 1522900584}}
    verdict, _ = run(SdkRabbitMQCodec(), vector(expect, headers=headers))
    if "error" in expect:
        assert verdict.outcome == "not_applicable" and "does not offer this input" in verdict.message, verdict.message
    else:
        assert verdict.outcome == "fail" and verdict.error_kind is None, verdict.message
        assert "lacks what this needs" in verdict.message and "dict[str, str]" in verdict.message


def test_the_sdks_documented_refusal_is_a_refusal():
    # An event the SDK's CloudEvent constructor refuses (specversion 2.0): CloudEventValidationError,
    # a BaseCloudEventException, reaches the verifier as the SDK's refusal.
    codec = SdkRabbitMQCodec()
    v = Vector(id="ce-rabbitmq.test.refuse-event", spec="ce-rabbitmq", topic="test", clauses=(CLAUSE,), kind="encode",
               status="stable", description="an event the SDK refuses",
               input={"mode": "binary", "event": {"attributes": {"specversion": "2.0", "id": "1", "source": "/x",
                                                                  "type": "com.example.x"}}},
               expect={"error": "unsupported specversion"}, level="MUST", file=Path("test.yaml"), line=1)
    try:
        verify.run_encode(v, codec, REGISTRY)
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"a documented refusal was not taken as one: {exc}")


def test_sdk_decode_of_a_message_without_id_is_not_a_refusal():
    # The SDK fills in a random id (its CloudEvent constructor's documented default): it accepts the
    # message, so a vector that expects a refusal fails with "accepted", not "crashed".
    verdict, _ = run(SdkRabbitMQCodec())
    assert verdict.outcome == "fail" and "actual: accepted" in verdict.message


def test_an_adapter_limitation_inside_a_codec_is_not_judged():
    # pika cannot write an unsigned 32-bit header: our client's limit, an `error` of kind adapter.
    headers = {**REQUIRED, "ce-id": {"string": "1"}, "ce-n": {"uint": 5}}
    verdict, _ = run(SdkRabbitMQCodec(), vector(REFUSAL_EXPECTED, headers=headers))
    assert verdict.outcome == "error" and verdict.error_kind == "adapter"


class OneSeparator:
    """A ce-amqp consumer that reads only the ':' separator (as the Java SDK does), refusing the rest."""
    info = CodecInfo(name="one-separator", version="0", binding="ce-amqp")
    refusals = (DecodeError,)

    def decode(self, message):
        if any(k.startswith("cloudEvents_") for k in message.application_properties):
            raise DecodeError("no cloudEvents:specversion")
        return ReferenceAmqpCodec().decode(message)


def test_a_one_separator_consumer_is_not_judged_on_a_mixed_separator_message():
    # Its refusal of a message mixing '_' and ':' is its want of the SHOULD (it refuses '_' alone
    # too), never a pass of single-separator: not_applicable, naming the SHOULD.
    from fixtures.vectordata.registry import load_registry
    from fixtures.vectordata.vectors import load_vectors
    root = Path(__file__).resolve().parents[2] / "vectors"
    registry = load_registry(root / "clauses")
    v = next(x for x in load_vectors(root).by_spec("ce-amqp", "decode") if x.id == "ce-amqp.binary.reject-mixed-separators")

    def judged(codec):
        try:
            verify.run_decode(v, codec, registry)
        except Exception as exc:  # noqa: BLE001 - the verdict is what is tested
            return decide(v, registry, exc)
        return decide(v, registry, None)

    verdict = judged(OneSeparator())
    assert verdict.outcome == "not_applicable"
    assert "consumer-understands-both-separators" in verdict.message and "'cloudEvents_'" in verdict.message
    assert judged(ReferenceAmqpCodec()).outcome == "pass"   # a consumer of both is judged
