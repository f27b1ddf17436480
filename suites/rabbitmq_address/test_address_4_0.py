"""rabbitmq-address@4.0: the address formats and outcomes RabbitMQ 4.0 shipped (vectors/rabbitmq-address@4.0/).

Behaviour vectors over AMQP 1.0 links, on both amqp_address_v1 configurations of RabbitMQ
4.0; the clause file applies them to RabbitMQ from 4.0 (other brokers and versions are not
applicable, with the sentence that says so). One test collects every vector file of the spec
(one topic a section of the document); each vector carries its clause ids and the failure
message quotes them.
"""
import pytest

from .conftest import run_address_vector

SPEC = "rabbitmq-address@4.0"


@pytest.mark.targets("amqp10", say_not_offered=True)
@pytest.mark.vectors(SPEC, kind="behaviour")
def test_behaviour(vector, broker, registry, request):
    run_address_vector(vector, broker, registry, request)
