"""The CloudEvents Go SDK's AMQP binding (github.com/cloudevents/sdk-go/protocol/amqp/v2, on
github.com/Azure/go-amqp) behind its shim (shims/cloudevents-go), role `cloudevents-codec`: the
handshake, an encode in each content mode with the AMQP types go-amqp puts on the wire, decodes back,
the SDK's refusals and crashes told apart from what the shim cannot express, the shim's own codec,
and codec-check. Skipped without Go (the shim is built on the host and cached by its sources).

What the SDK 2.15.2 does is read from its sources: protocol/amqp/v2/write_message.go writes every
attribute as an application property "cloudEvents:" + name, its value through
safeAMQPPropertiesUnwrap (types.Validate, then a URI as its string, a Timestamp as a time.Time, an
int32 as an int64), which go-amqp sends as string, timestamp, long; datacontenttype goes to the
content-type property. protocol/amqp/v2/message.go reads only the "cloudEvents:" prefix."""
from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest

from fixtures.process import goshim
from fixtures.process import protocol as p
from tests.process import ce_shim
from tests.process.ce_shim import TIMEOUT, decode, refusal, s, started

ROOT = Path(__file__).resolve().parents[2]
SHIM_DIR = "shims/cloudevents-go"

pytestmark = pytest.mark.skipif(goshim.go_binary() is None, reason="Go builds the CloudEvents Go shim")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


EVENT = {"attributes": {"specversion": s("1.0"), "id": s("A1"), "source": {"uri-reference": "/ctx"}, "type": s("t"),
                        "time": {"timestamp": "2018-04-05T03:56:24Z"}, "datacontenttype": s("application/json"),
                        "myint": {"integer": 5}, "mybool": {"boolean": True}, "mybin": {"binary": "AAE="},
                        "myuri": {"uri": "http://x/"}},
         "data": b64(b'{"a":1}')}
APP = {"cloudEvents:specversion": s("1.0"), "cloudEvents:id": s("A1"), "cloudEvents:source": s("/ctx"),
       "cloudEvents:type": s("t")}


@pytest.fixture(scope="module")
def command():
    from fixtures.process.shims import go_command
    return go_command(SHIM_DIR)


@pytest.fixture(scope="module")
def codec(command, tmp_path_factory):
    yield from started(command, tmp_path_factory, "cloudevents-go", handshake_s=60)


def encode(codec, mode, event=EVENT):
    return ce_shim.encode(codec, mode, event)


def pinned(module: str) -> str:
    return re.search(rf"^\s*{re.escape(module)} (v\S+)$", (ROOT / SHIM_DIR / "go.mod").read_text(), re.M).group(1)


def test_handshake_names_the_sdk_its_pinned_version_and_its_one_binding(codec):
    hs = codec.handshake
    version = pinned("github.com/cloudevents/sdk-go/protocol/amqp/v2")
    assert (hs.name, hs.impl_version, hs.role) == ("cloudevents-sdk-go", version.removeprefix("v"), "cloudevents-codec")
    assert hs.impl_version == "2.15.2"
    assert sorted(hs.offers["operations"]) == ["decode", "encode", "go-amqp-transit", "wire-transit"]
    # the Go SDK has no AMQP 0-9-1 or RocketMQ binding: ce-rabbitmq and ce-rocketmq rows are not_applicable
    assert hs.offers["bindings"] == {"ce-amqp": {"modes": ["binary", "structured"], "formats": ["json"]}}
    assert hs.details["library"] == f"github.com/cloudevents/sdk-go/protocol/amqp/v2@{version}"
    assert hs.details["sdk"] == f"github.com/cloudevents/sdk-go/v2@{pinned('github.com/cloudevents/sdk-go/v2')}"
    assert hs.details["amqp_client"] == f"github.com/Azure/go-amqp@{pinned('github.com/Azure/go-amqp')}"


def test_binary_mode_writes_native_amqp_values_under_the_colon_prefix(codec):
    msg = encode(codec, "binary")
    assert msg["protocol"] == "amqp10"
    assert msg["properties"] == {"content-type": {"symbol": "application/json"}}    # datacontenttype
    assert msg["body"] == {"data": [EVENT["data"]]}
    assert msg["application_properties"] == {
        "cloudEvents:specversion": s("1.0"), "cloudEvents:id": s("A1"), "cloudEvents:source": s("/ctx"),
        "cloudEvents:type": s("t"),
        "cloudEvents:time": {"timestamp": 1522900584000},                     # a time.Time: an AMQP timestamp
        "cloudEvents:myint": {"long": 5}, "cloudEvents:mybool": {"boolean": True},   # int32 -> int64: a long
        "cloudEvents:mybin": {"binary": "AAE="}, "cloudEvents:myuri": s("http://x/"),
    }


def test_binary_round_trip_keeps_every_attribute_and_its_native_type(codec):
    got = decode(codec, encode(codec, "binary"))
    assert got["mode"] == "binary"
    # a URI travels as an AMQP string (the binding's type mapping), so it comes back as a string
    assert got["event"] == {**EVENT, "attributes": {**EVENT["attributes"], "myuri": s("http://x/")}}


def test_structured_mode_is_the_json_format_in_one_data_section(codec):
    msg = encode(codec, "structured")
    assert msg["properties"] == {"content-type": {"symbol": "application/cloudevents+json"}}
    assert msg.get("application_properties", {}) == {}
    [section] = msg["body"]["data"]
    doc = json.loads(base64.b64decode(section))
    # The data was handed over as bytes (Event.SetData with a []byte): the SDK writes it as data_base64.
    assert (doc["specversion"], doc["id"], doc["myint"], doc["mybool"], doc["data_base64"]) == ("1.0", "A1", 5, True,
                                                                                              EVENT["data"])
    got = decode(codec, msg)
    assert got["mode"] == "structured"
    assert got["event"]["data"] == EVENT["data"]
    # JSON keeps the integer and boolean; binary and uri extensions come back as the JSON strings they are
    assert {k: got["event"]["attributes"][k] for k in ("myint", "mybool", "mybin", "myuri")} == {
        "myint": {"integer": 5}, "mybool": {"boolean": True}, "mybin": s("AAE="), "myuri": s("http://x/")}


def test_the_underscore_prefix_alone_is_no_cloudevent_to_the_sdk(codec):
    app = {k.replace("cloudEvents:", "cloudEvents_"): v for k, v in APP.items()}
    r = refusal(codec, "decode", {"message": {"protocol": "amqp10", "application_properties": app}})
    assert r.code == "rejected" and "binding.ToEvent" in r.reason and "unknown Message encoding" in r.reason


def test_what_go_amqp_hands_the_sdk_is_what_it_reads(codec):
    # A symbol arrives as a Go string (go-amqp 0.17 decodes both alike); of two data sections the SDK
    # reads GetData(), the first; an AMQP double extension is truncated to an Integer by types.Validate.
    app = {**APP, "cloudEvents:specversion": {"symbol": "1.0"}, "cloudEvents:d": {"double": 2.9}}
    got = decode(codec, {"protocol": "amqp10", "application_properties": app,
                         "body": {"data": [b64(b"first"), b64(b"second")]}})
    assert got["mode"] == "binary"
    assert got["event"]["attributes"]["specversion"] == s("1.0")
    assert got["event"]["attributes"]["d"] == {"integer": 2}
    assert got["event"]["data"] == b64(b"first")


@pytest.mark.parametrize("attrs, says", [
    ({"id": s(" ")}, "event.Validate: event.ValidationError: id: MUST be a non-empty string"),   # SetID trims
    ({"My-Ext": s("x")}, "extension:My-Ext: bad key"),
    ({"big": {"integer": 2**31}}, "extension:big: cannot convert 2147483648 to int32: out of range"),
])
def test_a_malformed_event_is_the_sdks_refusal(codec, attrs, says):
    event = {"attributes": {**EVENT["attributes"], **attrs}}
    r = refusal(codec, "encode", {"mode": "binary", "event": event})
    assert r.code == "rejected" and says in r.reason


def test_a_message_without_id_is_refused_by_the_validation_the_sdks_receiver_makes(codec):
    app = {k: v for k, v in APP.items() if k != "cloudEvents:id"}
    r = refusal(codec, "decode", {"message": {"protocol": "amqp10", "application_properties": app}})
    assert r.code == "rejected" and r.reason.startswith("event.Validate: ") and "id: MUST be a non-empty string" in r.reason


def test_a_panic_in_the_sdk_is_its_crash(codec):
    # event.New("9.9") records a field error and leaves the context nil; the next setter dereferences it.
    event = {"attributes": {**EVENT["attributes"], "specversion": s("9.9")}}
    with pytest.raises(p.OperationError) as exc:
        codec.request("encode", {"binding": "ce-amqp", "mode": "binary", "event": event}, timeout=TIMEOUT)
    assert exc.value.type.startswith("panic") and "nil pointer dereference" in exc.value.message


def test_what_the_apis_cannot_hold_is_not_expressible(codec):
    no_sv = {"attributes": {k: v for k, v in EVENT["attributes"].items() if k != "specversion"}}
    assert "event.New" in refusal(codec, "encode", {"mode": "binary", "event": no_sv}).reason
    int_id = {"attributes": {**EVENT["attributes"], "id": {"integer": 5}}}
    r = refusal(codec, "encode", {"mode": "binary", "event": int_id})
    assert r.code == "not-expressible" and "Event.SetID(string)" in r.reason
    huge = {"attributes": {**EVENT["attributes"], "x": {"integer": 2**64}}}
    assert refusal(codec, "encode", {"mode": "binary", "event": huge}).code == "not-expressible"
    # go-amqp 0.17 decodes no amqp-sequence section: a receiving application gets no message
    seq = {"protocol": "amqp10", "application_properties": APP, "body": {"sequence": [[s("a")]]}}
    r = refusal(codec, "decode", {"message": seq})
    assert r.code == "not-expressible" and "unknown message section 0x76" in r.reason
    dec = {"protocol": "amqp10", "application_properties": {**APP, "x": {"decimal": "1.5"}}}
    assert refusal(codec, "decode", {"message": dec}).code == "not-expressible"
    bad = {"protocol": "amqp10", "application_properties": {"x": {"uint": -1}}}
    assert refusal(codec, "decode", {"message": bad}).code == "not-expressible"
    r = refusal(codec, "decode", {"message": {"protocol": {"not": "a string"}}})
    assert r.code == "not-expressible" and r.reason.startswith("request: message.protocol")


def test_what_is_not_offered(codec):
    assert refusal(codec, "encode", {"mode": "batch", "event": EVENT}).code == "not-offered"
    with pytest.raises(p.Refusal) as exc:
        codec.request("decode", {"binding": "ce-rabbitmq", "message": {}}, timeout=TIMEOUT)
    assert exc.value.code == "not-offered" and "no AMQP 0-9-1 or RocketMQ binding" in exc.value.reason
    with pytest.raises(p.Refusal) as exc:
        codec.request("no-such-op", {}, timeout=TIMEOUT)
    assert exc.value.code == "not-offered"


WIRE = {"protocol": "amqp10", "header": {"durable": {"boolean": True}, "priority": {"ubyte": 9}},
        "message_annotations": {"x-opt-a": {"long": 1}},
        "properties": {"message-id": {"ulong": 7}, "user-id": {"binary": "AAE="}, "to": s("q"),
                       "content-type": {"symbol": "text/plain"}, "creation-time": {"timestamp": 1522900584000},
                       "group-sequence": {"uint": 3}},
        "application_properties": {
            "n": {"null": None}, "b": {"boolean": False}, "i8": {"byte": -128}, "i16": {"short": 32767},
            "i32": {"int": -2**31}, "i64": {"long": 2**63 - 1}, "u8": {"ubyte": 255}, "u16": {"ushort": 65535},
            "u32": {"uint": 2**32 - 1}, "u64": {"ulong": 2**64 - 1}, "f": {"float": 1.5}, "d": {"double": "-Infinity"},
            "nan": {"double": "NaN"}, "ts": {"timestamp": -1}, "str": s("é"), "sym": {"symbol": "x"},
            "bin": {"binary": ""}, "id": {"uuid": "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"},
            "l": {"list": [{"int": 1}, {"list": []}]}, "m": {"map": {"k": {"map": {"z": s("")}}}}},
        "body": {"sequence": [[{"short": 1}, s("a")]]}}


def test_every_wire_type_crosses_the_shims_own_codec_unchanged(codec):
    """The shim's typing, apart from the SDK and go-amqp: a MESSAGE through its encoder and decoder."""
    assert codec.request("wire-transit", {"message": WIRE}, timeout=TIMEOUT)["message"] == WIRE
    for body in ({"value": {"map": {"a": {"ulong": 1}}}}, {"data": ["AAE=", ""]}, {"data": []}):
        m = {"protocol": "amqp10", "body": body}
        assert codec.request("wire-transit", {"message": m}, timeout=TIMEOUT)["message"] == m


def test_go_amqp_keeps_the_types_it_has_and_reads_a_symbol_as_a_string(codec):
    message = {**WIRE, "body": {"data": ["AAE="]}}
    got = codec.request("go-amqp-transit", {"message": message}, timeout=TIMEOUT)["message"]
    app = dict(message["application_properties"], sym=s("x"))      # go-amqp 0.17 has no symbol value type
    assert got == {**message, "application_properties": app,
                   "message_annotations": {"x-opt-a": {"long": 1}}}


def test_codec_check_passes(command, capsys):
    """./mqconform codec-check COMMAND (cli/__main__.py), on the built shim."""
    from cli.__main__ import main
    rc = main(["codec-check", "--timeout", "30", *command])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "pass  handshake: cloudevents-sdk-go 2.15.2, protocol version 1, bindings ce-amqp (binary, structured)" in out
    assert "7 of 7 checks passed" in out


def test_the_declared_process_codecs_name_this_shim():
    from fixtures.process.shims import codec_shims
    assert ("cloudevents-sdk-go", SHIM_DIR) in codec_shims(ROOT / "fixtures" / "codecs" / "process_codecs.yaml")
