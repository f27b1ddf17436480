"""The client-library role of the process protocol, pure: what a handshake must offer, what an address
result says (fixtures/clients/library.py), and the declarations (fixtures/clients/registry.py)."""
from __future__ import annotations

import pytest

from fixtures.clients import registry
from fixtures.clients.library import ClientCrashed, form_of, offers_problem, read_answer
from fixtures.process import protocol as p
from fixtures.verdict.outcomes import AdapterLimitation, NotApplicable

OFFERS = {"operations": ["address"], "address": {"target": ["queue", "exchange", "exchange-key"], "source": ["queue"]}}


def hello(offers=OFFERS, **more) -> p.Handshake:
    line = {"id": 1, "status": "ok", "result": {"protocol": "mqconform-process", "version": 1, "role": "client-library",
                                                 "implementation": {"name": "lib", "version": "1.0"}, "offers": offers,
                                                 **more}}
    import json
    return p.parse_handshake(p.parse_result(json.dumps(line)), "client-library")


def test_a_handshake_offering_fields_and_forms_reads():
    hs = hello(library="g:a:1.0")
    assert offers_problem(hs) is None and hs.details == {"library": "g:a:1.0"}
    assert offers_problem(hello({"operations": []})) is None      # offers nothing: every vector not_applicable


@pytest.mark.parametrize("offers, says", [
    ({"operations": ["address"]}, "offers.address must map an address field"),
    ({"operations": ["address"], "address": {"subject": ["queue"]}},
     "unknown field 'subject' (known: target, source, to, reply-to)"),
    ({"operations": ["address"], "address": {"to": ["null"]}}, "offers.address.to must list forms of queue"),
    ({"operations": ["address"], "address": {"source": ["exchange"]}}, "offers.address.source must list forms of queue"),
    ({"operations": ["address"], "address": {"target": "queue"}}, "offers.address.target must list forms"),
    ({"operations": [1]}, "offers.operations must list operation names"),
])
def test_a_handshake_whose_offers_do_not_read_is_said(offers, says):
    assert says in offers_problem(hello(offers))


def test_a_handshake_of_another_role_is_garbage():
    import json
    line = json.dumps({"id": 1, "status": "ok", "result": {"protocol": "mqconform-process", "version": 1,
                                                            "role": "cloudevents-codec", "offers": OFFERS,
                                                            "implementation": {"name": "x", "version": "1"}}})
    with pytest.raises(p.Garbage, match="the harness runs a 'client-library'"):
        p.parse_handshake(p.parse_result(line), "client-library")


def result(line: str) -> p.Result:
    return p.parse_result(line)


def test_an_address_result_is_the_librarys_address_or_its_refusal():
    assert read_answer(result('{"id":2,"status":"ok","result":{"address":"/queues/q"}}')).address == "/queues/q"
    ans = read_answer(result('{"id":2,"status":"refused","code":"rejected","reason":"IllegalArgumentException: no"}'))
    assert (ans.address, ans.refusal, ans.shown()) == (None, "IllegalArgumentException: no", "refused: IllegalArgumentException: no")


def test_an_error_or_an_ok_without_an_address_is_the_librarys_crash():
    with pytest.raises(ClientCrashed) as exc:
        read_answer(result('{"id":2,"status":"error","error":{"type":"TypeError","message":"boom"}}'))
    assert (exc.value.crash_type, str(exc.value)) == ("TypeError", "boom")
    with pytest.raises(ClientCrashed, match="`address` must be a string, got 5") as exc:
        read_answer(result('{"id":2,"status":"ok","result":{"address":5}}'))
    assert exc.value.crash_type == "Garbage"


def test_what_the_shim_cannot_ask_is_an_adapter_error_and_what_it_does_not_offer_not_applicable():
    with pytest.raises(AdapterLimitation, match="the shim cannot express"):
        read_answer(result('{"id":2,"status":"refused","code":"not-expressible","reason":"a str"}'))
    with pytest.raises(NotApplicable, match="as not offered: no source"):
        read_answer(result('{"id":2,"status":"refused","code":"not-offered","reason":"no source"}'))


def test_the_form_of_a_request_is_read_from_its_names():
    assert [form_of(n) for n in ({"queue": ""}, {"exchange": "x"}, {"exchange": "x", "routing_key": ""})] == [
        "queue", "exchange", "exchange-key"]


def test_the_declared_libraries_are_the_two_rabbitmq_clients():
    specs = {s.name: s for s in registry.load()}
    assert set(specs) == {"rabbitmq-amqp-python-client", "rabbitmq-amqp-java-client"}
    assert specs["rabbitmq-amqp-python-client"].command == ("python", "shims/rabbitmq-amqp-python/shim.py")
    from fixtures.process.shims import client_shims
    assert client_shims() == [("rabbitmq-amqp-java-client", "shims/rabbitmq-amqp-java")]


@pytest.mark.parametrize("text, says", [
    ("clients: [{name: x}]", "exactly one of `command`"),
    ("clients: [{name: x, command: [a], java_shim: {dir: d, main: m}}]", "exactly one of `command`"),
    ("clients: [{name: 'bad name', command: [a]}]", "clients[0].name"),
    ("clients: [{name: x, command: [a], colour: red}]", "unknown field 'colour'"),
    ("clients: [{name: x, command: [a], request_s: 0}]", "request_s: a positive number"),
    ("clients: [{name: x, command: [a]}, {name: x, command: [b]}]", "declared twice"),
    ("clients: [{name: x, java_shim: {dir: d}}]", "java_shim: {dir, main"),
])
def test_a_declaration_that_cannot_be_used_names_the_field(tmp_path, text, says):
    path = tmp_path / "client_libraries.yaml"
    path.write_text(text)
    with pytest.raises(registry.ClientRegistryError, match=None) as exc:
        registry.load(path)
    assert says in str(exc.value) and "client_libraries.yaml" in str(exc.value)
