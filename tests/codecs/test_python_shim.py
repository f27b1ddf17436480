"""The Python SDK's shim (shims/cloudevents-python/shim.py) keeps the protocol's rules itself
(docs/codec-protocol.md): its own code never decides a row. Run as the process it is."""
from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

SHIM = Path(__file__).resolve().parents[2] / "shims" / "cloudevents-python" / "shim.py"
BASE = {"specversion": {"string": "1.0"}, "id": {"string": "A1"}, "source": {"uri-reference": "/s"},
        "type": {"string": "t"}}


def ask(*requests: dict) -> list[dict]:
    lines = "".join(json.dumps({"id": i, **r}) + "\n" for i, r in enumerate(requests))
    out = subprocess.run([sys.executable, str(SHIM)], input=lines, capture_output=True, text=True, timeout=60,
                         check=True)
    return [json.loads(line) for line in out.stdout.splitlines()]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def amqp_props(**extra) -> dict:
    return {**{f"cloudEvents_{k}": {"string": next(iter(v.values()))} for k, v in BASE.items()}, **extra}


def test_an_event_is_built_as_a_user_builds_it_and_what_the_constructor_adds_is_reported():
    # The SDK's constructor stamps `time` on an event without one. A user gets that event, and its
    # message carries `time`: the shim hands the SDK the event and reports the message it wrote (the
    # vector judges it), never refusing on the SDK's behalf.
    without, with_time = ask(
        {"op": "encode", "params": {"binding": "ce-amqp", "mode": "binary", "event": {"attributes": BASE, "data": ""}}},
        {"op": "encode", "params": {"binding": "ce-amqp", "mode": "binary", "event": {
            "attributes": {**BASE, "time": {"timestamp": "2018-04-05T03:56:24Z"}}, "data": ""}}})
    assert without["status"] == "ok", without
    assert set(without["result"]["message"]["application_properties"]) == {f"cloudEvents_{k}" for k in [*BASE, "time"]}
    assert with_time["status"] == "ok"
    assert set(with_time["result"]["message"]["application_properties"]) == {f"cloudEvents_{k}" for k in [*BASE, "time"]}
    # ... and the event as the SDK holds it, read from the SDK's own object (`held_attributes`)
    assert set(without["result"]["held_attributes"]) == {*BASE, "time"}
    assert with_time["result"]["held_attributes"]["time"] == {"timestamp": "2018-04-05T03:56:24+00:00"}


def test_an_attribute_the_sdks_event_added_is_not_one_its_binding_added():
    """A vector that asks for no other attribute judges the binding on the event the SDK holds: an
    attribute its event model added (process_codec `_added`) is not counted as added by the binding;
    any other still is."""
    from fixtures.codecs.bindings import PROFILES
    from fixtures.codecs.jsonforms import message_from_json
    from fixtures.kinds.codec_match import message_mismatches
    [answer] = ask({"op": "encode", "params": {"binding": "ce-amqp", "mode": "binary",
                                               "event": {"attributes": BASE, "data": ""}}})
    msg = message_from_json(answer["result"]["message"])
    pattern = {"only_attributes": True, "attributes": {k: {"string": next(iter(v.values()))} for k, v in BASE.items()}}
    assert [str(f) for f in message_mismatches(pattern, msg, PROFILES["ce-amqp"])] and \
        "time" in str(message_mismatches(pattern, msg, PROFILES["ce-amqp"]))
    assert message_mismatches(pattern, msg, PROFILES["ce-amqp"], {"time": None}) == []
    assert message_mismatches({**pattern, "attributes": {"id": BASE["id"]}}, msg, PROFILES["ce-amqp"], {"time": None})


@pytest.mark.parametrize("typed", [{"timestamp": 1522900584}, {"long": 42}, {"boolean": True},
                                   {"binary": b64(b"x")}, {"map": {}}], ids=lambda t: next(iter(t)))
def test_a_header_the_sdks_rabbitmq_message_does_not_take_is_its_lack(typed):
    # RabbitMQMessage takes "RabbitMQ message headers as string key-value pairs" (dict[str, str]): a
    # header pika hands out typed has no place in its API. Handing it anyway made the SDK crash on a type
    # it never takes (booked as its MUST failure: review 12); converting it to a string would be the
    # shim's reading; an adapter error booked the SDK's own gap to the suite (review 13). It is `lacks`.
    headers = {f"ce-{k}": {"string": next(iter(v.values()))} for k, v in BASE.items()}
    (answer,) = ask({"op": "decode", "params": {"binding": "ce-rabbitmq", "message": {
        "protocol": "amqp091", "properties": {}, "headers": {**headers, "ce-time": typed},
        "body": b64(b"x")}}})
    assert answer["status"] == "refused" and answer["code"] == "lacks", answer
    assert "header ce-time" in answer["reason"] and "dict[str, str]" in answer["reason"]


@pytest.mark.parametrize("body", [{"value": {"binary": b64(b"{}")}}, {"value": {"string": "x"}},
                                  {"sequence": [[{"string": "x"}]]}, {"data": [b64(b"{"), b64(b"}")]}],
                         ids=["amqp-value-binary", "amqp-value-string", "amqp-sequence", "two-data-sections"])
def test_a_body_the_sdks_amqp_message_cannot_hold_is_not_expressible_never_rejected(body):
    # AMQPMessage.application_data is one bytes value: the SDK's API has no form for these bodies. The
    # shim used to answer `rejected` on the SDK's behalf before calling it (passing vectors that expect
    # a refusal); it is the API's limit, an adapter error.
    (answer,) = ask({"op": "decode", "params": {"binding": "ce-amqp", "message": {
        "protocol": "amqp10", "application_properties": amqp_props(), "body": body}}})
    assert answer["status"] == "refused" and answer["code"] == "not-expressible", answer
    assert "AMQPMessage" in answer["reason"]


@pytest.mark.parametrize("binding,message", [
    ("ce-amqp", {"protocol": "amqp10", "properties": {"content-type": {"symbol": "application/json"}},
                 "application_properties": amqp_props(), "body": {"data": [b64(b'"abc"')]}}),
    ("ce-rabbitmq", {"protocol": "amqp091", "properties": {"content-type": "application/json"},
                     "headers": {f"ce-{k}": {"string": next(iter(v.values()))} for k, v in BASE.items()},
                     "body": b64(b'"abc"')}),
])
def test_a_parsed_json_string_is_reported_as_the_sdk_gives_it_without_the_quotes_put_back(binding, message):
    # Called directly, the SDK hands on the str abc for the binary-mode JSON body "abc" (JSONFormat.read_data),
    # the same str as for the text body abc. The shim reports that str as the SDK's write_data sends it (its
    # text) and never re-reads the received body to put the quotes back.
    from cloudevents.core.bindings import amqp as sdk_amqp
    from cloudevents.core.formats.json import JSONFormat
    direct = sdk_amqp.from_amqp(sdk_amqp.AMQPMessage({"content-type": "application/json"},
                                                     {f"cloudEvents_{k}": next(iter(v.values())) for k, v in BASE.items()},
                                                     b'"abc"'), JSONFormat())
    assert direct.get_data() == "abc"
    (answer,) = ask({"op": "decode", "params": {"binding": binding, "message": message}})
    assert answer["status"] == "ok", answer
    assert base64.b64decode(answer["result"]["event"]["data"]) == b"abc"


def test_structured_json_string_data_is_the_json_string_the_sdks_format_embeds():
    # Structured mode under a JSON data content type: JSONFormat.write embeds a str data as a JSON
    # string, so the SDK's str is that JSON string (a translation by the SDK's own rule, no re-reading).
    body = json.dumps({"specversion": "1.0", "id": "A1", "source": "/s", "type": "t",
                       "time": "2018-04-05T03:56:24Z", "datacontenttype": "application/json", "data": "abc"})
    (answer,) = ask({"op": "decode", "params": {"binding": "ce-amqp", "message": {
        "protocol": "amqp10", "properties": {"content-type": {"symbol": "application/cloudevents+json"}},
        "body": {"data": [b64(body.encode())]}}}})
    assert answer["result"]["mode"] == "structured"
    assert base64.b64decode(answer["result"]["event"]["data"]) == b'"abc"'


def test_an_amqp_timestamp_stays_one():
    (answer,) = ask({"op": "decode", "params": {"binding": "ce-amqp", "message": {
        "protocol": "amqp10", "properties": {"content-type": {"string": "application/json"}},
        "application_properties": amqp_props(cloudEvents_when={"timestamp": 1000}),
        "body": {"data": [b64(b'{"a":1}')]}}}})
    event = answer["result"]["event"]
    assert json.loads(base64.b64decode(event["data"])) == {"a": 1}
    assert event["attributes"]["when"] == {"timestamp": "1970-01-01T00:00:01+00:00"}


def test_the_shim_never_answers_rejected_from_its_own_code():
    # `rejected` is the SDK's answer alone: raised only where an SDK call raised a documented refusal.
    import ast
    tree = ast.parse(SHIM.read_text())
    raisers = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "Refused"
               and n.args and isinstance(n.args[0], ast.Constant) and n.args[0].value == "rejected"]
    assert len(raisers) == 1
    sdk_fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "sdk")
    assert raisers[0] in list(ast.walk(sdk_fn))


def test_a_datetime_goes_out_as_the_amqp_timestamp_the_sdk_documents_and_an_int_as_a_long():
    # to_binary: "Datetime values are encoded as AMQP timestamp type (milliseconds since Unix epoch)",
    # returned as an int: the shim sends it as that timestamp; an Integer extension's int is a long.
    [answer] = ask({"op": "encode", "params": {"binding": "ce-amqp", "mode": "binary", "event": {
        "attributes": {**BASE, "time": {"timestamp": "2018-04-05T03:56:24Z"},
                       "when": {"timestamp": "1970-01-01T00:00:01Z"}, "n": {"integer": 1000}}, "data": ""}}})
    app = answer["result"]["message"]["application_properties"]
    assert app["cloudEvents_time"] == {"timestamp": 1522900584000}
    assert app["cloudEvents_when"] == {"timestamp": 1000}
    assert app["cloudEvents_n"] == {"long": 1000}
