"""Shared verifier details that no codec currently exercises."""
from fixtures.bindings import PROFILES
from fixtures.codecs.model import Amqp091Message, AmqpBody, AmqpMessage, Typed
from fixtures.verify import message_mismatches

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
