"""rabbitmq-address@pr10873: the DRAFT address format v2 of RabbitMQ PR #10873 (vectors/rabbitmq-address@pr10873/).

The draft (/queue/:queue, /exchange/:exchange/key/:routing-key, /exchange/:exchange,
the null target with `to`) differs from what RabbitMQ 4.0 shipped. The draft says it is
RabbitMQ 4.0's format, so its clause file applies it to RabbitMQ from 4.0 (other brokers
and versions are not applicable), on both amqp_address_v1 configurations of RabbitMQ 4.0:
a version that ships another format fails the draft's clauses honestly. One test collects
every vector file of the spec (one topic a section of the document); each vector carries its
clause ids and the failure message quotes them.
"""
import pytest

from .conftest import run_address_vector

SPEC = "rabbitmq-address@pr10873"


@pytest.mark.targets("amqp10", say_not_offered=True)
@pytest.mark.vectors(SPEC, kind="behaviour")
def test_behaviour(vector, broker, registry, request):
    run_address_vector(vector, broker, registry, request)
