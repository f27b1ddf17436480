"""Shared verifier details that no codec currently exercises."""
from fixtures.codecs.bindings import PROFILES
from fixtures.codecs.model import Amqp091Message, AmqpBody, AmqpMessage, Typed
from fixtures.kinds.codec_match import message_mismatches

DOC = b'{"specversion":"1.0","id":"1","source":"/s","type":"t","time":"2018-04-05T03:56:24Z"}'
PATTERN = {"consistent_headers": True, "structured": {"attributes": {"specversion": "1.0", "id": "1", "source": "/s", "type": "t",
                                                                     "time": {"timestamp": "2018-04-05T03:56:24Z"}}}}


def test_repeated_time_header_is_compared_in_the_protocols_unit():
    # AMQP 0-9-1 timestamps count seconds, AMQP 1.0 ones milliseconds (ce-amqp / ce-rabbitmq 3.2.3).
    rabbit = Amqp091Message(headers={"ce-time": Typed("timestamp", 1522900584)}, body=DOC)
    amqp = AmqpMessage(application_properties={"cloudEvents_time": Typed("timestamp", 1522900584000)}, body=AmqpBody.of_bytes(DOC))
    assert message_mismatches(PATTERN, rabbit, PROFILES["ce-rabbitmq"]) == []
    assert message_mismatches(PATTERN, amqp, PROFILES["ce-amqp"]) == []


def test_disagreeing_repeated_header_is_reported():
    rabbit = Amqp091Message(headers={"ce-time": Typed("timestamp", 1522900585)}, body=DOC)
    assert any("disagrees" in m for m in message_mismatches(PATTERN, rabbit, PROFILES["ce-rabbitmq"]))


def _vector(clauses, props, spec="ce-amqp"):
    from types import SimpleNamespace
    return SimpleNamespace(spec=spec, clauses=tuple(clauses), input={"message": {"application_properties": props}})


def test_a_decode_message_is_also_judged_under_the_other_separator():
    # ce-amqp/3.1.3.1: consumers SHOULD understand both separators, so a vector about something else
    # judges each form the consumer decodes; prefixed keys change, every other key stays.
    from fixtures.kinds.codec_checks import separator_twin
    v = _vector(["ce-amqp/3.1.3.2/interpret-both-forms"], {"cloudEvents_id": {"string": "A"}, "other_x": {"int": 1}})
    assert separator_twin(v)["application_properties"] == {"cloudEvents:id": {"string": "A"}, "other_x": {"int": 1}}
    back = _vector(["ce-amqp/3.1.3.2/interpret-both-forms"], {"cloudEvents:id": {"string": "A"}})
    assert list(separator_twin(back)["application_properties"]) == ["cloudEvents_id"]


def test_separator_vectors_mixed_messages_and_other_specs_have_no_twin():
    from fixtures.kinds.codec_checks import separator_twin
    props = {"cloudEvents_id": {"string": "A"}}
    assert separator_twin(_vector(["ce-amqp/3.1.3.1/prefix"], props)) is None
    assert separator_twin(_vector(["ce-amqp/3.1.3.1/consumer-understands-both-separators"], props)) is None
    assert separator_twin(_vector(["x"], {"cloudEvents_id": {"string": "A"}, "cloudEvents:type": {"string": "t"}})) is None
    assert separator_twin(_vector(["x"], {"plain": {"string": "A"}})) is None
    assert separator_twin(_vector(["x"], props, spec="ce-rabbitmq")) is None
