"""Shared by both address suites. Which brokers the address documents describe is data: the
clause files' `applies_to` (RabbitMQ, from 4.0), checked by the plugin's `broker` fixture. Each
behaviour row is observed through python-qpid-proton, and again through the second AMQP 1.0 client
where the two-witness rule asks (fixtures/links/second.py; `--one-client` turns it off)."""
from fixtures.links.second import run_witnessed
from fixtures.plugin.outcomes import findings


def run_address_vector(vector, broker, registry, request):
    engaged = not request.config.getoption("one_client", default=False)
    findings(request.node).merge(run_witnessed(vector, broker, registry, engaged=engaged))
