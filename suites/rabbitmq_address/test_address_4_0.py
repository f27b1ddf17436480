"""rabbitmq-address@4.0: the address formats and outcomes RabbitMQ 4.0 shipped (vectors/rabbitmq-address@4.0/).

Behaviour vectors over AMQP 1.0 links, on both amqp_address_v1 configurations of RabbitMQ
4.0; the clause file applies them to RabbitMQ from 4.0 (other brokers and versions are not
applicable, with the sentence that says so). One test per section
of the document (the h2spec layout); each vector carries its clause ids and the
failure message quotes them.
"""
import pytest

from .conftest import run_address_vector

SPEC = "rabbitmq-address@4.0"


@pytest.mark.targets("amqp10")
@pytest.mark.vectors(SPEC, kind="behaviour", topic="feature-flag")
def test_feature_flag(vector, broker, registry, request):
    run_address_vector(vector, broker, registry, request)


@pytest.mark.targets("amqp10")
@pytest.mark.vectors(SPEC, kind="behaviour", topic="target-v2")
def test_target_v2(vector, broker, registry, request):
    run_address_vector(vector, broker, registry, request)


@pytest.mark.targets("amqp10")
@pytest.mark.vectors(SPEC, kind="behaviour", topic="source-v2")
def test_source_v2(vector, broker, registry, request):
    run_address_vector(vector, broker, registry, request)


@pytest.mark.targets("amqp10")
@pytest.mark.vectors(SPEC, kind="behaviour", topic="percent-encoding")
def test_percent_encoding(vector, broker, registry, request):
    run_address_vector(vector, broker, registry, request)


@pytest.mark.targets("amqp10")
@pytest.mark.vectors(SPEC, kind="behaviour", topic="target-v1")
def test_target_v1(vector, broker, registry, request):
    run_address_vector(vector, broker, registry, request)


@pytest.mark.targets("amqp10")
@pytest.mark.vectors(SPEC, kind="behaviour", topic="source-v1")
def test_source_v1(vector, broker, registry, request):
    run_address_vector(vector, broker, registry, request)


@pytest.mark.targets("amqp10")
@pytest.mark.vectors(SPEC, kind="behaviour", topic="outcomes-sender")
def test_outcomes_sender(vector, broker, registry, request):
    run_address_vector(vector, broker, registry, request)


@pytest.mark.targets("amqp10")
@pytest.mark.vectors(SPEC, kind="behaviour", topic="outcomes-receiver")
def test_outcomes_receiver(vector, broker, registry, request):
    run_address_vector(vector, broker, registry, request)
