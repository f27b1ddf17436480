"""Shared by both address suites. Which brokers the address documents describe is data: the
clause files' `applies_to` (RabbitMQ, from 4.0), checked by the plugin's `broker` fixture."""
from fixtures.kinds.amqp10_links import run_behaviour
from fixtures.plugin.outcomes import findings


def run_address_vector(vector, broker, registry, request):
    findings(request.node).merge(run_behaviour(vector, broker, registry))
