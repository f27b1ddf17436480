"""What the suite makes on an endpoint and may delete (pure: which addresses make a broker declare
what, and which names are the suite's). The sweep itself runs against a real broker in
tests/provision/test_vendor_endpoint.py."""
import pytest

from fixtures.adapters import footprint
from fixtures.adapters.endpoint import Endpoint
from fixtures.adapters.proton_links import noted, unfindable
from fixtures.adapters.rabbitmq_addresses import v1_effect


@pytest.mark.parametrize("role, address, effect", [
    ("receiver", "/queue/mqc.a.q", ("queue", "mqc.a.q")),
    ("sender", "/queue/mqc.a.q", ("queue", "mqc.a.q")),
    ("receiver", "/exchange/mqc.a.x/mqc.a.k", ("server-named", ("mqc.a.x", "mqc.a.k"))),
    ("receiver", "/exchange/mqc.a.x", ("server-named", ("mqc.a.x", ""))),
    ("receiver", "/topic/mqc.a.t.*", ("server-named", ("amq.topic", "mqc.a.t.*"))),
    ("sender", "/exchange/mqc.a.x/k", None),          # a v1 target declares nothing
    ("sender", "/topic/k", None),
    ("receiver", "/queues/mqc.a.q", None),             # v2 addresses declare nothing
    ("receiver", "/amq/queue/mqc.a.q", None),
    ("receiver", "mqc.a.q", ("queue", "mqc.a.q")),      # v1 bare queue name; brokers that create on attach
    ("sender", "mqc.a.q", ("queue", "mqc.a.q")),
    ("receiver", None, None),
])
def test_what_an_attach_makes_the_broker_declare(role, address, effect):
    assert v1_effect(role, address) == effect


def test_only_the_suites_names_are_ever_deleted():
    ep = Endpoint.parse("amqp://u@127.0.0.1:1?management=none")
    fp = footprint.register(ep, "mine")
    try:
        assert footprint.of(ep) is fp and footprint.of(Endpoint.parse("amqp://u@127.0.0.1:1?management=none")) is None
        fp.declaring("queue", "orders")                   # e.g. a passive check gone wrong: never the suite's
        fp.declaring("queue", "mqc.a.q")
        fp.declaring("exchange", "mqc.a.x")
        fp.deleted("exchange", "mqc.a.x")
        noted(fp, "attached", "receiver", "/exchange/amq.fanout")   # bound to nothing of the suite's: not guessed at
        noted(fp, "attached", "receiver", "/topic/mqc.a.t")       # no management API: said at the end
        line = fp.sweep()                                  # nothing listens on port 1: nothing deleted
    finally:
        footprint.forget(ep)
    assert footprint.of(ep) is None
    assert "queue 'mqc.a.q'" in line and "orders" not in line and "mqc.a.x" not in line
    assert "'/exchange/amq.fanout'" in line and "'/topic/mqc.a.t'" in line and "?management=none" in line


def test_a_server_named_queue_that_could_not_be_found_is_said_before_the_attach():
    """unfindable (the AMQP 1.0 adapter's): a v1 source of the suite's with no management API to find its
    queue afterwards."""
    from fixtures.adapters.endpoint import Endpoint
    from fixtures.adapters.footprint import Footprint

    none = Footprint(Endpoint("h", 5672, "u", "p", options=(("management", "none"),)), "t")
    assert "management=none" in unfindable(none, "/exchange/amq.direct/mqc.ab.bk")
    assert unfindable(none, "/topic/mqc.ab.t") is not None
    assert unfindable(none, "/queues/mqc.ab.q") is None                  # not server-named
    assert unfindable(none, "/exchange/vendor.x/vendor.k") is None       # not the suite's: not guarded
    closed = Footprint(Endpoint("127.0.0.1", 5672, "u", "p", options=(("management", "http://127.0.0.1:1"),)), "t")
    assert "no management API answered at http://127.0.0.1:1" in unfindable(closed, "/topic/mqc.ab.t")
