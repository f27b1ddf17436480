"""openmessaging, the use cases: P2P, publish/subscribe, broadcast, partitions, streaming, filter, routing, RPC, batch.

One test per protocol binding (AMQP 0-9-1, AMQP 1.0, RocketMQ gRPC) (h2spec style: one module per spec section); every
vector of vectors/openmessaging/use-cases.yaml runs over each protocol a target offers.
"""
import pytest

from .conftest import KINDS, SPEC, run_om

TOPIC = "use-cases"


@pytest.mark.targets("amqp091")
@pytest.mark.vectors(SPEC, kind=KINDS, topic=TOPIC)
def test_use_cases_amqp091(vector, broker, registry, request, om_figures):
    run_om(request, vector, broker, registry, "amqp091", om_figures)


@pytest.mark.targets("amqp10")
@pytest.mark.vectors(SPEC, kind=KINDS, topic=TOPIC)
def test_use_cases_amqp10(vector, broker, registry, request, om_figures):
    run_om(request, vector, broker, registry, "amqp10", om_figures)


@pytest.mark.targets("rocketmq-grpc")
@pytest.mark.vectors(SPEC, kind=KINDS, topic=TOPIC)
def test_use_cases_rocketmq(vector, broker, registry, request, om_figures):
    run_om(request, vector, broker, registry, "rocketmq-grpc", om_figures)
