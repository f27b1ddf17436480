"""rabbitmq-address@4.0: the address formats and outcomes RabbitMQ 4.0 shipped (vectors/rabbitmq-address@4.0/).

Behaviour vectors over AMQP 1.0 links, on both amqp_address_v1 configurations of RabbitMQ
4.0; the clause file applies them to RabbitMQ from 4.0 (other brokers and versions are not
applicable, with the sentence that says so). Address vectors (client-addresses.yaml) ask every
client library's own address builder (fixtures/clients/) for the addresses the text tells a
client to write, and judge the clauses whose party is the client. One module collects every
vector file of the spec (one topic a section of the document); each vector carries its clause ids
and the failure message quotes them.
"""
import pytest

from fixtures.kinds.address_checks import run_address
from fixtures.plugin.outcomes import findings

from .conftest import run_address_vector

SPEC = "rabbitmq-address@4.0"


@pytest.mark.targets("amqp10", say_not_offered=True)
@pytest.mark.vectors(SPEC, kind="behaviour")
def test_behaviour(vector, broker, registry, request):
    run_address_vector(vector, broker, registry, request)


@pytest.mark.vectors(SPEC, kind="address")
def test_client_address(vector, client, registry, request):
    findings(request.node).merge(run_address(vector, client, registry))
