"""Which broker targets a run uses (pure: nothing is started)."""
import socket

import pytest

from fixtures.adapters.endpoint import Endpoint
from fixtures.provision import load_catalog
from fixtures.run.brokers import Broker
from fixtures.run.targets import Target, endpoint_target, select


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_default_run_is_every_target_plus_the_address_v1_variants(catalog):
    # each RabbitMQ 4.x judged with amqp_address_v1 permitted and denied: its default and one variant
    names = [r.name for r in select(catalog, [], {})]
    assert names == ["rabbitmq-4.0.5", "rabbitmq-4.0.5+address-v1-denied", "rabbitmq-3.10.8", "garagemq",
                     "artemis-2.56.0", "qpid-broker-j-9.2.1", "activemq-5.18.3", "rocketmq-5.3.3", "rocketmq-5.5.0",
                     "rabbitmq-4.3.6", "rabbitmq-4.3.6+address-v1-permitted"]
    rocketmq = select(catalog, ["rocketmq-5.3.3"], {})[0]
    assert rocketmq.protocols == ("rocketmq-grpc",)   # its other ports are for admin and readiness


def test_variant_runs_only_its_specs(catalog):
    denied = next(r for r in select(catalog, [], {}) if r.variant == "address-v1-denied")
    assert denied.runs_spec("rabbitmq-address@4.0") and not denied.runs_spec("ce-amqp")
    assert dict(denied.facts)["amqp_address_v1"] == "denied"


def test_catalog_addressing_names_queues_and_topics(catalog):
    # ActiveMQ Classic reads a terminus address as a destination name with its type prefix
    activemq = Broker(select(catalog, ["activemq-5.18.3"], {})[0])
    assert activemq.queue_address("mqc.q") == "queue://mqc.q"
    assert activemq.topic_address("mqc.t") == ("topic://mqc.t", False)
    # no amqp10_topic: the topic's own name, reached with the topic capability (Artemis' MULTICAST)
    artemis = Broker(select(catalog, ["artemis-2.56.0"], {})[0])
    assert artemis.queue_address("mqc.q") == "mqc.q"
    assert artemis.topic_address("mqc.t") == ("mqc.t", True)


def test_endpoint_states_its_topic_address(catalog):
    ep = Endpoint.parse("amqp://u:pw@127.0.0.1:5672?protocols=amqp10&amqp10_topic=topic://{topic_pct}")
    probed = type("Probed", (), {"protocols": ("amqp10",), "problem": None})()
    assert endpoint_target("mine", ep, probed).amqp10_topic == "topic://{topic_pct}"
    # the template's {topic_pct} is the name percent-encoded (Target without an endpoint: nothing is reached)
    target = Target("t", ("amqp10",), None, None, amqp10_topic="topic://{topic_pct}")
    assert Broker(target).topic_address("a/b") == ("topic://a%2Fb", False)


def test_a_product_without_a_template_names_queues_as_its_module_says():
    # an endpoint states no amqp10_queue: RabbitMQ's own forms by version, else the bare name
    assert Broker(Target("e", ("amqp10",), "RabbitMQ", "4.0.5")).queue_address("a/b") == "/queues/a%2Fb"
    assert Broker(Target("e", ("amqp10",), "rabbitmq", "3.10.8")).queue_address("a/b") == "/amq/queue/a/b"
    assert Broker(Target("e", ("amqp10",), "rabbitmq", None)).queue_address("q") == "/amq/queue/q"
    assert Broker(Target("e", ("amqp10",), "artemis", "2.56.0")).queue_address("q") == "q"
    assert Broker(Target("e", ("amqp10",), None, None)).queue_address("q") == "q"


def test_target_globs_and_unknown_names(catalog):
    assert [r.name for r in select(catalog, ["garagemq"], {})] == ["garagemq"]
    with pytest.raises(ValueError, match="matches no target"):
        select(catalog, ["nosuch*"], {})


def test_endpoints_alone_replace_the_default_run(catalog):
    ep = Endpoint.parse("amqp://u:pw@127.0.0.1:5672?protocols=amqp091&product=rabbitmq")
    refs = select(catalog, [], {"mine": ep})
    assert [(r.name, r.protocols, r.product) for r in refs] == [("mine", ("amqp091",), "rabbitmq")]


def test_unreachable_endpoint_is_unavailable_saying_what_was_tried_without_password():
    with socket.socket() as s:   # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ref = endpoint_target("mine", Endpoint.parse(f"amqp://u:topsecret@127.0.0.1:{port}"))
    assert ref.protocols == ("amqp091", "amqp10")     # every AMQP vector gets an error row
    assert "tried a TCP connection to 127.0.0.1" in ref.unavailable and "amqp://u:***@" in ref.unavailable
    assert "topsecret" not in ref.unavailable


def test_an_endpoint_may_not_take_a_catalog_targets_name(catalog):
    ep = Endpoint.parse("amqp://u:pw@127.0.0.1:5672?protocols=amqp091")
    for name in ("rabbitmq-4.0.5", "rabbitmq-4.0.5+address-v1-denied", "garagemq"):
        with pytest.raises(ValueError, match="the name of a catalog target"):
            select(catalog, ["rabbitmq-4.0.5"], {name: ep})
    refs = select(catalog, ["rabbitmq-4.0.5"], {"vendor-rabbitmq": ep})
    assert [r.key for r in refs] == [("catalog", "rabbitmq-4.0.5"), ("endpoint", "vendor-rabbitmq")]


def test_the_pool_never_hands_a_catalog_targets_broker_to_an_endpoint(catalog):
    """Brokers are found by their target's kind and name: even under one name (which select refuses),
    an endpoint is never served by a catalog target's broker, nor the other way round."""
    from fixtures.run.brokers import Broker, BrokerPool
    from fixtures.run.targets import Target

    ep = Endpoint.parse("amqp://u:pw@127.0.0.1:5672?protocols=amqp091")
    catalog_ref = select(catalog, ["garagemq"], {})[0]
    endpoint_target = Target("garagemq", ("amqp091",), None, None, endpoint=ep)
    pool = BrokerPool("run")
    pool._brokers[catalog_ref.key] = Broker(catalog_ref)
    assert pool.current(catalog_ref) is not None
    assert pool.current(endpoint_target) is None
    pool.mark_dead(endpoint_target, "endpoint gone")
    assert pool.current(catalog_ref) is not None and pool.get(catalog_ref) is pool.current(catalog_ref)
