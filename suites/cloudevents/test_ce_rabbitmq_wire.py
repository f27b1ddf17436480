"""ce-rabbitmq over the wire: every ce-rabbitmq vector's message through every broker that speaks AMQP 0-9-1.

The message (the reference codec's encoding of an encode vector's event, or a
decode vector's own message) goes to a fresh queue and comes back; it must be
unchanged in bytes and AMQP 0-9-1 field types and still satisfy the vector (fixtures/wire.py).
"""
import pytest

from fixtures import wire
from fixtures.plugin import findings


@pytest.mark.targets("amqp091")
@pytest.mark.vectors("ce-rabbitmq", kind="encode")
def test_encode_through_broker(vector, broker, registry, request):
    findings(request.node).merge(wire.run_encode(vector, broker, registry))


@pytest.mark.targets("amqp091")
@pytest.mark.vectors("ce-rabbitmq", kind="decode")
def test_decode_through_broker(vector, broker, registry, request):
    findings(request.node).merge(wire.run_decode(vector, broker, registry))
