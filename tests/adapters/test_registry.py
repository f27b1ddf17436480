"""The protocol registry: every protocol declared once by its adapter module, with a probe and
declared parts; the probes against fake servers. No broker."""
import inspect
import socket
import threading
import time

import pytest

from fixtures.adapters import base, parts, registry

CONNECTION_START = b"\x01\x00\x00\x00\x00\x01\x00\x00\x0a\x00\x0a\x00\x09" + b"\x00" * 20 + b"\xce"
HTTP2_SETTINGS = b"\x00\x00\x06\x04\x00\x00\x00\x00\x00" + b"\x00\x03\x00\x00\x00\x64"


def test_every_protocol_module_registers_itself_once():
    assert registry.ids() == ["amqp091", "amqp10", "rocketmq-grpc"]
    for p in registry.protocols():
        assert p.adapter.protocol == p.id and p.module == p.adapter.__module__
        assert p.module.startswith("fixtures.adapters.")
    assert [p.id for p in registry.reached_by("amqp")] == ["amqp091", "amqp10"]
    assert registry.reached_by("mqtt") == []


def test_an_unknown_protocol_names_the_registered_ones():
    with pytest.raises(registry.UnknownProtocol, match="no registered protocol 'stomp' .*amqp091, amqp10, rocketmq-grpc"):
        registry.get("stomp")


def test_a_second_module_may_not_take_a_registered_id():
    class Other(base.Adapter):
        protocol = "amqp091"
    with pytest.raises(ValueError, match="registered by fixtures.adapters.amqp091 and"):
        registry.register("amqp091", title="x", adapter=Other, probe=lambda h, p, t: None, parts=())


def test_declared_parts_are_abstract_and_documented():
    declared = [parts.Topology, parts.Messages, parts.Links, parts.Link, parts.Sender, parts.Receiver,
                parts.Topics, parts.Admin]
    for cls in declared + [base.Adapter]:
        assert inspect.isabstract(cls), cls
        for name in cls.__abstractmethods__:
            assert inspect.getdoc(getattr(cls, name)), (cls.__name__, name)


@pytest.mark.parametrize("protocol", ["amqp091", "amqp10", "rocketmq-grpc"])
def test_registered_parts_implement_their_declaration(protocol):
    p = registry.get(protocol)
    assert not inspect.isabstract(p.adapter), p.adapter.__abstractmethods__
    assert p.parts
    for part in p.parts:
        assert issubclass(part, parts.Part) and part.name, part
        assert not inspect.isabstract(part), (part, part.__abstractmethods__)


def _serve_once(reply: bytes) -> tuple[int, threading.Thread]:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    port = srv.getsockname()[1]

    def run():
        with srv:
            srv.settimeout(5)
            conn, _ = srv.accept()
            with conn:
                conn.recv(64)
                conn.sendall(reply)
                time.sleep(0.2)

    th = threading.Thread(target=run, daemon=True)
    th.start()
    return port, th


@pytest.mark.parametrize("protocol, reply, ok", [
    ("amqp091", CONNECTION_START, True),
    ("amqp091", b"AMQP\x00\x00\x09\x01", False),   # a protocol-mismatch answer does not speak it
    ("amqp10", b"AMQP\x03\x01\x00\x00", True),
    ("amqp10", b"AMQP\x00\x01\x00\x00", False),     # no SASL layer: not the login the suite makes
    ("rocketmq-grpc", HTTP2_SETTINGS, True),
    ("rocketmq-grpc", b"HTTP/1.1 400 Bad Request\r\n\r\n", False),
])
def test_probes_against_fake_servers(protocol, reply, ok):
    port, th = _serve_once(reply)
    why = registry.get(protocol).probe("127.0.0.1", port, 2.0)
    th.join(5)
    assert (why is None) == ok, why


def test_a_probe_of_a_closed_port_says_where_and_why():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    for p in registry.protocols():
        why = p.probe("127.0.0.1", port, 1.0)
        assert why and f"127.0.0.1:{port}" in why and "ConnectionRefusedError" in why
    assert "ConnectionRefusedError" in registry.tcp_probe("127.0.0.1", port, 1.0)
