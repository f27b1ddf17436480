"""The second AMQP 1.0 client against a real RabbitMQ 4.0.5 (a container, removed at the end): it
attaches, sends and receives one message, and a refused attach comes back as the broker's refusal with
its scope and condition. Select with `-m containers` (needs podman or Docker, and Go)."""
from __future__ import annotations

import uuid

import pika
import pytest

from fixtures.adapters.base import Refused
from fixtures.adapters.endpoint import Endpoint
from fixtures.codecs.model import AmqpBody, AmqpMessage, Typed
from fixtures.links import client as link_client
from fixtures.process import goshim

pytestmark = [pytest.mark.containers,
              pytest.mark.skipif(goshim.go_binary() is None, reason="Go builds the link shim")]


@pytest.fixture(scope="module")
def rabbitmq():
    from fixtures.provision import engine as engine_mod
    from fixtures.provision import start, stop_all
    try:
        engine_mod.ensure()
    except engine_mod.EngineUnavailable as exc:
        pytest.skip(f"no container engine: {exc}")
    rt = start("rabbitmq-4.0.5", run_id=uuid.uuid4().hex)
    try:
        yield rt
    finally:
        rt.stop()
        stop_all()
        link_client.close_all()


def test_attach_send_and_receive_one_message_through_go_amqp(rabbitmq):
    q = f"mqc-link-{uuid.uuid4().hex[:8]}"
    c = rabbitmq.credentials
    amqp091 = pika.BlockingConnection(pika.URLParameters(
        f"amqp://{c['username']}:{c['password']}@{rabbitmq.host}:{rabbitmq.port('amqp091')}/%2F"))
    try:
        amqp091.channel().queue_declare(q)
        ep = Endpoint(rabbitmq.host, rabbitmq.port("amqp10"), c["username"], c["password"], "/")
        client = link_client.ProcessAmqp10(link_client.load()[0], ep)
        try:
            assert client.client == "go-amqp 0.17.0"
            sender = client.links.sender(f"/queues/{q}")
            outcome = sender.send(AmqpMessage(properties={"subject": "s1"}, body=AmqpBody.of_bytes(b"m1"),
                                              application_properties={"k": Typed("long", 5)}))
            # go-amqp 0.17.0 names only `rejected`: the others stay possible, none is filled in
            assert isinstance(outcome, link_client.Unsaid) and outcome.possible == ("accepted", "released", "modified")
            receiver = client.links.receiver(f"/queues/{q}")
            got = receiver.receive(5)
            assert got is not None and got.message.body.single_data() == b"m1"
            assert got.message.properties["subject"] == "s1" and got.message.application_properties["k"] == Typed("long", 5)
            assert got.client_settled == "accepted"      # go-amqp accepted it in Receive (settle mode first)
            assert receiver.receive(0.5) is None
            receiver.detach_and_wait()
            sender.detach_and_wait()
            with pytest.raises(Refused) as info:
                client.links.sender(f"/queues/{q}-missing")
            assert (info.value.error.scope, info.value.error.condition) == ("session", "amqp:not-found")
        finally:
            client.close()
        assert amqp091.channel().queue_declare(q, passive=True).method.message_count == 0
    finally:
        amqp091.channel().queue_delete(q)
        amqp091.close()
