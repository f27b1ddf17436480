"""Shared by both address suites: these clauses describe RabbitMQ, so other brokers are not_applicable."""
from fixtures.behaviour import run_behaviour
from fixtures.outcomes import NotApplicable


def run_address_vector(vector, broker, registry):
    broker.adapter("amqp10")  # the open frame tells the product
    if broker.product != "rabbitmq":
        raise NotApplicable(f"{broker.ref.name} is {broker.product or 'an unknown product'}: "
                            "the RabbitMQ address format is RabbitMQ's own (\"Different AMQP 1.0 brokers can "
                            "choose to interprete the provided address differently.\")")
    run_behaviour(vector, broker, registry)
