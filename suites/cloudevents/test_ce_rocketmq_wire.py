"""ce-rocketmq over the wire: every ce-rocketmq vector's message through every RocketMQ target.

The message (the reference codec's encoding of an encode vector's event, or a
decode vector's own message) is sent with the official gRPC client to a topic
of the target and consumed back; its user properties (the `CE_` attributes and
the content type), tag, keys and body bytes must come back unchanged, and the
received message must still satisfy the vector (fixtures/wire.py).
"""
import pytest

from fixtures import wire
from fixtures.plugin import findings


@pytest.mark.targets("rocketmq-grpc")
@pytest.mark.vectors("ce-rocketmq", kind="encode")
def test_encode_through_broker(vector, broker, registry, request):
    findings(request.node).merge(wire.run_encode(vector, broker, registry))


@pytest.mark.targets("rocketmq-grpc")
@pytest.mark.vectors("ce-rocketmq", kind="decode")
def test_decode_through_broker(vector, broker, registry, request):
    findings(request.node).merge(wire.run_decode(vector, broker, registry))
