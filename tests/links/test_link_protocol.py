"""The link protocol's answers, read strictly (fixtures/links/protocol.py; docs/link-protocol.md): what the
broker sent becomes PeerError / LinkOutcome / a message, an answer that does not read is the client's
Garbage, and requests carry what the run asks, nothing more."""
from __future__ import annotations

import pytest

from fixtures.adapters.base import PeerError
from fixtures.adapters.endpoint import Endpoint
from fixtures.codecs.model import AmqpBody, AmqpMessage
from fixtures.links import protocol as lp
from fixtures.process.protocol import Garbage, Handshake


def hs(**offers) -> Handshake:
    return Handshake(1, "go-amqp", "0.17.0", lp.ROLE, {"operations": list(lp.OPERATIONS), **offers})


def test_the_handshake_must_offer_every_operation_and_limits_as_texts():
    assert lp.offers_problem(hs(limits=["send-outcome: ..."])) is None
    lacking = Handshake(1, "x", "1", lp.ROLE, {"operations": ["connect", "attach"]})
    assert "lacks send, receive, settle, detach, disconnect" in lp.offers_problem(lacking)
    assert "offers.limits must be a list of texts" in lp.offers_problem(hs(limits="none"))


def test_a_refusal_is_the_brokers_error_with_its_scope_condition_and_description():
    a = lp.attached({"attached": False, "link": None, "response": None, "error": {
        "scope": "session", "condition": "amqp:not-found", "description": "no queue 'q'", "client_text": "session ended"}})
    assert not a.attached and a.error == PeerError("session", "amqp:not-found", "no queue 'q'")
    assert a.scope == "session" and a.client_text == "session ended"


@pytest.mark.parametrize("scope", ["sasl", "transport"])
def test_a_refused_login_and_a_dropped_transport_are_the_connections(scope):
    c = lp.connected({"connection": None, "error": {"scope": scope, "condition": None, "description": None}})
    assert c.scope == scope and c.error == PeerError("connection", None, None)


def test_an_outcome_the_client_does_not_name_keeps_the_states_it_leaves_possible():
    s = lp.sent({"outcome": {"state": None, "possible": ["accepted", "released", "modified"]}, "error": None})
    assert s.outcome.state is None and s.outcome.possible == ("accepted", "released", "modified")
    r = lp.sent({"outcome": {"state": "rejected", "condition": "amqp:not-found", "description": "no exchange"}})
    assert (r.outcome.state, r.outcome.condition, r.outcome.possible) == ("rejected", "amqp:not-found", ())


@pytest.mark.parametrize("outcome, path", [
    ({"state": "acked"}, "outcome.state"),
    ({"state": None}, "outcome.possible"),                                   # null state without its possibilities
    ({"state": "accepted", "possible": ["accepted"]}, "outcome.possible"),  # a state and possibilities
    ({"state": None, "possible": ["maybe"]}, "outcome.possible"),
])
def test_an_outcome_that_does_not_read_is_garbage(outcome, path):
    with pytest.raises(Garbage, match=path.replace(".", r"\.")):
        lp.sent({"outcome": outcome})


def test_a_delivered_message_reads_as_the_message_form():
    r = lp.received({"message": {"protocol": "amqp10", "properties": {"subject": {"string": "s"}},
                                 "application_properties": {"k": {"long": 5}}, "body": {"data": ["bTE="]}},
                     "delivery": "d3", "client_settled": "accepted", "error": None})
    assert r.message.body.single_data() == b"m1" and r.message.properties == {"subject": "s"}
    assert r.delivery == "d3" and r.client_settled == "accepted"
    assert lp.received({"message": None, "delivery": None, "timeout": False}).message is None


@pytest.mark.parametrize("result, path", [
    ({"message": {"protocol": "amqp10", "body": {"data": ["bTE="]}}, "delivery": None}, "delivery"),
    ({"message": None, "delivery": "d1"}, "delivery"),
    ({"message": {"protocol": "amqp10", "body": {"data": [5]}}, "delivery": "d1"}, "body"),
    ({"message": None, "delivery": None, "client_settled": "maybe"}, "client_settled"),
])
def test_a_receive_answer_that_does_not_read_is_garbage(result, path):
    with pytest.raises(Garbage, match=path):
        lp.received(result)


@pytest.mark.parametrize("parse, result, path", [
    (lp.attached, {"attached": True, "link": None}, "link"),
    (lp.attached, {"attached": False, "link": None}, "error"),        # neither a refusal nor a timeout
    (lp.attached, {"attached": "yes"}, "attached"),
    (lp.connected, {"connection": "c1", "error": {"scope": "link", "condition": None}}, "connection"),
    (lp.connected, {"connection": None}, "connection"),
    (lp.detached, {"answered": 1}, "answered"),
    (lp.settled, {"error": {"scope": "channel", "condition": None}}, "error.scope"),
    (lp.settled, {"error": {"scope": "link", "condition": 7}}, "error.condition"),
    (lp.settled, {"timeout": "no"}, "timeout"),
])
def test_answers_that_do_not_read_are_garbage(parse, result, path):
    with pytest.raises(Garbage, match=path.replace(".", r"\.")):
        parse(result)


def test_a_timeout_is_nobodys_answer():
    a = lp.attached({"attached": False, "link": None, "error": None, "timeout": True})
    assert a.timeout and a.error is None


def test_requests_carry_what_the_run_asks_and_nothing_more():
    ep = Endpoint("127.0.0.1", 5672, "guest", "pw", "/")
    assert lp.connect_params(ep, 10) == {"host": "127.0.0.1", "port": 5672, "tls": False, "verify_tls": True,
                                         "username": "guest", "password": "pw", "vhost": "/", "timeout_ms": 10000}
    assert lp.attach_params("c1", "sender", None, 2.5) == {"connection": "c1", "role": "sender", "address": None,
                                                          "timeout_ms": 2500}
    p = lp.attach_params("c1", "receiver", "/queues/q", 1, source_capabilities=["queue"], rcv_settle_mode="first")
    assert p["source_capabilities"] == ["queue"] and p["rcv_settle_mode"] == "first"
    m = lp.send_params("l2", AmqpMessage(properties={"to": "/queues/q"}, body=AmqpBody.of_bytes(b"m1")), 1)
    assert m["message"]["properties"] == {"to": {"string": "/queues/q"}} and m["message"]["body"] == {"data": ["bTE="]}
    assert m["settled"] is False
    with pytest.raises(ValueError):
        lp.settle_params("d1", "acked", 1)
    with pytest.raises(ValueError):
        lp.attach_params("c1", "both", "/q", 1)


def test_a_bad_link_client_declaration_is_refused_naming_the_entry_and_field(tmp_path):
    from fixtures.links.client import LinkClientsError, load
    bad = tmp_path / "link_clients.yaml"
    for text, says in (("clients:\n  - {name: x, go_shim: {dir: a}, extra: 1}\n", "clients[0]: unknown field 'extra'"),
                       ("clients:\n  - {name: x}\n", "clients[0]: exactly one of `go_shim`"),
                       ("clients:\n  - {name: x, go_shim: {dir: a}}\n  - {name: x, go_shim: {dir: b}}\n",
                        "clients[1]: the name 'x' is declared twice")):
        bad.write_text(text)
        try:
            load(bad)
        except LinkClientsError as exc:
            assert says in str(exc), exc
        else:
            raise AssertionError(f"accepted {text!r}")
