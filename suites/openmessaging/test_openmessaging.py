"""openmessaging: every vector file of vectors/openmessaging/ (one topic a section of the spec:
message format, system headers, type system, delivery semantics, use cases), over each
protocol binding a target offers (AMQP 0-9-1, AMQP 1.0, RocketMQ gRPC): one test a binding.
"""
import pytest

from .conftest import KINDS, SPEC, run_om


@pytest.mark.targets("amqp091")
@pytest.mark.vectors(SPEC, kind=KINDS)
def test_amqp091(vector, broker, registry, request, om_figures):
    run_om(request, vector, broker, registry, "amqp091", om_figures)


@pytest.mark.targets("amqp10")
@pytest.mark.vectors(SPEC, kind=KINDS)
def test_amqp10(vector, broker, registry, request, om_figures):
    run_om(request, vector, broker, registry, "amqp10", om_figures)


@pytest.mark.targets("rocketmq-grpc")
@pytest.mark.vectors(SPEC, kind=KINDS)
def test_rocketmq(vector, broker, registry, request, om_figures):
    run_om(request, vector, broker, registry, "rocketmq-grpc", om_figures)
