"""The Python SDK's shim (shims/cloudevents-python/shim.py) keeps the protocol's rules itself
(docs/codec-protocol.md): its own code never decides a row. Run as the process it is."""
from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

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


def test_an_event_the_sdk_would_stamp_with_time_is_not_expressible_and_one_with_time_is_encoded():
    without, with_time = ask(
        {"op": "encode", "params": {"binding": "ce-amqp", "mode": "binary", "event": {"attributes": BASE, "data": ""}}},
        {"op": "encode", "params": {"binding": "ce-amqp", "mode": "binary", "event": {
            "attributes": {**BASE, "time": {"timestamp": "2018-04-05T03:56:24Z"}}, "data": ""}}})
    assert without["status"] == "refused" and without["code"] == "not-expressible"
    assert "'time'" in without["reason"] and "fills one in" in without["reason"]
    assert with_time["status"] == "ok"
    assert set(with_time["result"]["message"]["application_properties"]) == {f"cloudEvents_{k}" for k in [*BASE, "time"]}


def test_typed_headers_are_refused_by_the_sdks_message_type():
    headers = {f"ce-{k}": {"string": next(iter(v.values()))} for k, v in BASE.items()}
    (answer,) = ask({"op": "decode", "params": {"binding": "ce-rabbitmq", "message": {
        "protocol": "amqp091", "properties": {}, "headers": {**headers, "ce-time": {"timestamp": 1522900584}},
        "body": b64(b"x")}}})
    assert answer["status"] == "refused" and answer["code"] == "rejected" and "dict[str, str]" in answer["reason"]


def test_a_parsed_json_string_is_its_json_text_and_an_amqp_timestamp_stays_one():
    (answer,) = ask({"op": "decode", "params": {"binding": "ce-amqp", "message": {
        "protocol": "amqp10", "properties": {"content-type": {"string": "application/json"}},
        "application_properties": amqp_props(cloudEvents_when={"timestamp": 1000}),
        "body": {"data": [b64(b'"abc"')]}}}})
    event = answer["result"]["event"]
    assert base64.b64decode(event["data"]) == b'"abc"'
    assert event["attributes"]["when"] == {"timestamp": "1970-01-01T00:00:01+00:00"}
