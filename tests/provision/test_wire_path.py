"""The over-the-wire path's fast parts against a real RabbitMQ 4.0.5: queues from the queue supply
(one per message, never shared), AMQP 1.0 receiver + sender attached together with early credit,
a refused pair reported as the broker's refusal, and queues deleted behind a broker given as an
endpoint (a broker the user keeps must not fill up with the suite's queues)."""
from __future__ import annotations

import pytest

from fixtures.adapters.base import Refused
from fixtures.adapters.endpoint import Endpoint
from fixtures.bench.suite import SPEC
from fixtures.codecs import values
from fixtures.measurements import wire
from fixtures.provision import load_catalog
from fixtures.run import queue_supply
from fixtures.run.brokers import Broker
from fixtures.run.targets import endpoint_target, select
from fixtures.verdict.records import new_run_id

pytestmark = [pytest.mark.containers, pytest.mark.usefixtures("stop_targets")]


def message(i: int, protocol: str = "amqp10"):
    """The reference codec's binary-mode message for a small event, in `protocol`'s binding."""
    event = values.to_event({"attributes": {"specversion": "1.0", "id": f"w-{i}", "source": "/t", "type": "t"},
                             "data": {"text": f"{{\"n\": {i}}}"}})
    return wire.reference_codec(SPEC[protocol]).encode(event, "binary")


@pytest.fixture
def taken(monkeypatch):
    """The queue names the supply hands out during the test."""
    names: list[str | None] = []
    take = queue_supply.QueueSupply.take

    def recording(self):
        name = take(self)
        names.append(name)
        return name
    monkeypatch.setattr(queue_supply.QueueSupply, "take", recording)
    return names


# One test, one broker start: the provision tests beside it stop every target after each test.
def test_wire_path_on_rabbitmq_4(engine, taken):
    from fixtures.provision import start

    target = select(load_catalog(), ["rabbitmq-4.0.5"], {})[0]
    broker = Broker(target, start(target.catalog_name, target.variant, run_id=new_run_id()))
    try:
        # every message gets a queue of its own and comes back unchanged, for each protocol pair
        for send_over, receive_over in [("amqp091", "amqp091"), ("amqp10", "amqp10"),
                                        ("amqp091", "amqp10"), ("amqp10", "amqp091")]:
            taken.clear()
            for i in range(15):
                sent = message(i, send_over)
                status, got = wire.transit(broker, send_over, sent, receive_over)
                assert status == "ok", (send_over, receive_over, got)
                if send_over == receive_over:
                    assert wire.differences(sent, got) == []
            assert None not in taken, f"the supply failed: {broker.shared['queue-supply'].failed}"
            assert len(set(taken)) == 15

        # a refused pair is the broker's refusal, and the next vector still runs
        with pytest.raises(Refused, match="not.found"):
            broker.adapter("amqp10").links.pair("/queues/mqc.no-such-queue", "/queues/mqc.no-such-queue")
        status, got = wire.transit(broker, "amqp10", message(99))
        assert status == "ok", got

        # a broker given as an endpoint keeps none of the suite's queues
        taken.clear()
        ep = broker.endpoint("amqp091")
        user = Broker(endpoint_target("user-broker", Endpoint(ep.host, ep.port, "guest", "guest", "/")))
        for proto in ("amqp091", "amqp10"):
            for i in range(10):
                status, got = wire.transit(user, proto, message(i, proto))
                assert status == "ok", got
        user.close()
        assert None not in taken and len(taken) == 20
        topology = broker.adapter("amqp091").topology
        assert [n for n in taken if topology.queue_exists(n)] == []
    finally:
        broker.close()
