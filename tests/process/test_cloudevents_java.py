"""The CloudEvents Java SDK's AMQP binding (io.cloudevents:cloudevents-amqp-proton) behind its shim
(shims/cloudevents-java), role `cloudevents-codec`: the handshake, an encode in each content mode
with the AMQP types proton-j puts on the wire, decodes back, and the SDK's documented refusals.
Skipped without Maven and Java (the shim is built on the host and cached by its sources).

What the SDK 2.3.0 does is read from its sources: ProtonAmqpMessageWriter writes every context
attribute with withContextAttribute(String, String) (the typed overloads of CloudEventContextWriter
all turn the value into its string), into application-properties named AmqpConstants.CE_PREFIX
("cloudEvents:") + name for the attributes the spec versions define, and under the bare name for an
extension; ProtonAmqpBinaryMessageReader reads only application-properties starting with that
prefix, each value by its toString()."""
from __future__ import annotations

import base64
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.process import ce_shim
from tests.process.ce_shim import TIMEOUT, decode, refusal, s, started

ROOT = Path(__file__).resolve().parents[2]
SHIM_DIR = "shims/cloudevents-java"
MAIN = "mqconform.cecodec.Main"

pytestmark = pytest.mark.skipif(shutil.which("mvn") is None or shutil.which("java") is None,
                                reason="Maven and Java build and run the CloudEvents Java shim")


EVENT = {"attributes": {"specversion": s("1.0"), "id": s("A1"), "source": {"uri-reference": "/ctx"}, "type": s("t"),
                        "time": {"timestamp": "2018-04-05T03:56:24Z"}, "datacontenttype": s("application/json"),
                        "myint": {"integer": 5}, "mybool": {"boolean": True}},
         "data": base64.b64encode(b'{"a":1}').decode()}


@pytest.fixture(scope="module")
def codec(tmp_path_factory):
    from fixtures.process.shims import java_command
    yield from started(java_command(SHIM_DIR, MAIN), tmp_path_factory, "cloudevents-java", handshake_s=120)


def encode(codec, mode, event=EVENT):
    return ce_shim.encode(codec, mode, event)


def test_handshake_names_the_sdk_and_what_its_module_offers(codec):
    hs = codec.handshake
    pinned = ET.parse(ROOT / SHIM_DIR / "pom.xml").getroot().find("{*}properties/{*}cloudevents.version").text
    assert (hs.name, hs.impl_version, hs.role) == ("cloudevents-sdk-java", pinned, "cloudevents-codec")
    assert sorted(hs.offers["operations"]) == ["decode", "encode", "proton-transit"]
    assert hs.offers["bindings"] == {"ce-amqp": {"modes": ["binary", "structured"], "formats": ["json"]}}
    assert hs.details["library"] == f"io.cloudevents:cloudevents-amqp-proton:{pinned}"
    assert hs.details["proton_j"].startswith("org.apache.qpid:proton-j:")


def test_binary_mode_writes_every_attribute_as_an_amqp_string(codec):
    msg = encode(codec, "binary")
    assert msg["protocol"] == "amqp10"
    assert msg["properties"] == {"content-type": {"symbol": "application/json"}}    # datacontenttype
    assert msg["body"] == {"data": [EVENT["data"]]}
    assert msg["application_properties"] == {
        "cloudEvents:specversion": s("1.0"), "cloudEvents:id": s("A1"), "cloudEvents:source": s("/ctx"),
        "cloudEvents:type": s("t"),
        "cloudEvents:time": s("2018-04-05T03:56:24Z"),      # a string, not an AMQP timestamp
        "myint": s("5"), "mybool": s("true"),               # extensions: unprefixed, strings
    }


def test_binary_round_trip_keeps_the_prefixed_attributes_only(codec):
    got = decode(codec, encode(codec, "binary"))
    assert got["mode"] == "binary"
    assert got["event"]["attributes"] == {k: v for k, v in EVENT["attributes"].items() if not k.startswith("my")}
    assert got["event"]["data"] == EVENT["data"]


def test_binary_extensions_are_read_as_strings_under_the_colon_prefix_only(codec):
    app = {"cloudEvents:specversion": s("1.0"), "cloudEvents:id": s("A1"), "cloudEvents:source": s("/ctx"),
           "cloudEvents:type": s("t"), "cloudEvents:myint": {"int": 5}, "cloudEvents_other": s("x")}
    got = decode(codec, {"protocol": "amqp10", "application_properties": app, "body": {"data": []}})
    assert got["mode"] == "binary"
    assert got["event"]["attributes"]["myint"] == s("5")
    assert "other" not in got["event"]["attributes"] and "cloudEvents_other" not in got["event"]["attributes"]
    assert got["event"]["data"] is None


def test_the_underscore_prefix_alone_is_no_cloudevent_to_the_sdk(codec):
    app = {"cloudEvents_specversion": s("1.0"), "cloudEvents_id": s("A1"), "cloudEvents_source": s("/ctx"),
           "cloudEvents_type": s("t")}
    r = refusal(codec, "decode", {"message": {"protocol": "amqp10", "application_properties": app}})
    assert r.code == "rejected" and "UNKNOWN_ENCODING" in r.reason


def test_structured_mode_is_the_json_format_in_one_data_section(codec):
    msg = encode(codec, "structured")
    assert msg["properties"] == {"content-type": {"symbol": "application/cloudevents+json"}}
    assert msg.get("application_properties", {}) == {}
    [section] = msg["body"]["data"]
    doc = json.loads(base64.b64decode(section))
    assert (doc["specversion"], doc["id"], doc["myint"], doc["mybool"], doc["data"]) == ("1.0", "A1", 5, True, {"a": 1})
    got = decode(codec, msg)
    assert got["mode"] == "structured"
    assert got["event"]["attributes"] == EVENT["attributes"]     # JSON keeps the extensions' types


def test_an_amqp_timestamp_time_is_refused_by_the_binary_reader(codec):
    app = {"cloudEvents:specversion": s("1.0"), "cloudEvents:id": s("A1"), "cloudEvents:source": s("/ctx"),
           "cloudEvents:type": s("t"), "cloudEvents:time": {"timestamp": 1522900584000}}
    r = refusal(codec, "decode", {"message": {"protocol": "amqp10", "application_properties": app}})
    assert r.code == "rejected" and "CloudEventRWException" in r.reason and '"time"' in r.reason


@pytest.mark.parametrize("attrs, says", [
    ({"id": None}, "IllegalStateException: Attribute 'id' cannot be null"),      # CloudEventBuilder.build
    ({"time": {"timestamp": "yesterday"}}, "INVALID_ATTRIBUTE_VALUE"),
    ({"specversion": s("9.9")}, "INVALID_SPEC_VERSION"),
    ({"My-Ext": s("x")}, "INVALID_EXTENSION_NAME"),
    ({"id": {"integer": 5}}, "INVALID_ATTRIBUTE_TYPE"),
])
def test_a_malformed_event_is_the_sdks_documented_refusal(codec, attrs, says):
    event = {"attributes": {k: v for k, v in {**EVENT["attributes"], **attrs}.items() if v is not None}}
    r = refusal(codec, "encode", {"mode": "binary", "event": event})
    assert r.code == "rejected" and says in r.reason


def test_what_proton_j_cannot_hold_and_what_the_forms_cannot_say(codec):
    # proton-j's Message is the only message the SDK reads: a field its setter's signature cannot take
    # (setContentType(Symbol)) or a second body section (setBody(Section)) has no form there. That is
    # the API's limit, `not-expressible`, never `rejected` answered on the SDK's behalf.
    string_ct = {"protocol": "amqp10", "properties": {"content-type": s("application/cloudevents+json")}}
    r = refusal(codec, "decode", {"message": string_ct})
    assert r.code == "not-expressible" and "content-type as string" in r.reason
    two = {"protocol": "amqp10", "body": {"data": ["AA==", "AQ=="]}}
    r = refusal(codec, "decode", {"message": two})
    assert r.code == "not-expressible" and "2 data sections" in r.reason
    bad = {"protocol": "amqp10", "application_properties": {"x": {"uint": -1}}}
    assert refusal(codec, "decode", {"message": bad}).code == "not-expressible"
    no_sv = {"attributes": {k: v for k, v in EVENT["attributes"].items() if k != "specversion"}}
    assert refusal(codec, "encode", {"mode": "binary", "event": no_sv}).code == "not-expressible"
    assert refusal(codec, "encode", {"mode": "batch", "event": EVENT}).code == "not-offered"


def test_a_failure_of_the_shims_own_code_is_never_the_sdks_crash(codec):
    # A request the shim's own code trips on (message.protocol an object: gson's getAsString throws)
    # happened before any SDK call: `not-expressible` naming the shim, never `status: error`, which
    # fails the row as the SDK's crash.
    r = refusal(codec, "decode", {"message": {"protocol": {"not": "a string"}}})
    assert r.code == "not-expressible" and "the shim failed" in r.reason


def test_a_message_with_every_section_and_wire_type_reaches_the_sdk(codec):
    app = {"cloudEvents:specversion": s("1.0"), "cloudEvents:id": s("A1"), "cloudEvents:source": s("/ctx"),
           "cloudEvents:type": s("t")}
    message = {"protocol": "amqp10", "header": {"durable": {"boolean": True}, "priority": {"ubyte": 4}},
               "message_annotations": {"x-opt-a": {"ulong": 2**64 - 1}},
               "properties": {"message-id": {"uuid": "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"},
                              "creation-time": {"timestamp": 1522900584000}},
               "application_properties": {**app, "cloudEvents:n": {"double": "NaN"}}, "body": {"value": s("hi")}}
    got = decode(codec, message)
    # The reader took an amqp-value string as the data's UTF-8 bytes (AmqpConstants.getPayloadAsByteArray).
    assert got["event"]["data"] == base64.b64encode(b"hi").decode()
    assert got["event"]["attributes"]["n"] == s("NaN")


def test_every_wire_type_crosses_proton_j_unchanged(codec):
    """The shim's typing, apart from the SDK: a MESSAGE through proton-j's encoder and decoder."""
    values = {"n": {"null": None}, "b": {"boolean": False}, "i8": {"byte": -128}, "i16": {"short": 32767},
              "i32": {"int": -2**31}, "i64": {"long": 2**63 - 1}, "u8": {"ubyte": 255}, "u16": {"ushort": 65535},
              "u32": {"uint": 2**32 - 1}, "u64": {"ulong": 2**64 - 1}, "f": {"float": 1.5}, "d": {"double": "-Infinity"},
              "nan": {"double": "NaN"}, "ts": {"timestamp": -1}, "str": s("é"), "sym": {"symbol": "x"},
              "bin": {"binary": ""}, "id": {"uuid": "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"},
              "dec": {"decimal": "-1.25E+7"}, "l": {"list": [{"int": 1}, {"list": []}]},
              "m": {"map": {"k": {"map": {"z": {"string": ""}}}}}}
    message = {"protocol": "amqp10", "header": {"durable": {"boolean": True}, "priority": {"ubyte": 9}},
               "message_annotations": {"x-opt-a": {"long": 1}},
               "properties": {"message-id": {"ulong": 7}, "user-id": {"binary": "AAE="}, "to": s("q"),
                              "content-type": {"symbol": "text/plain"}, "creation-time": {"timestamp": 1522900584000},
                              "group-sequence": {"uint": 3}},
               "application_properties": values, "body": {"sequence": [[{"short": 1}, s("a")]]}}
    got = codec.request("proton-transit", {"message": message}, timeout=TIMEOUT)["message"]
    assert got == message
    for body in ({"value": {"map": {"a": {"ulong": 1}}}}, {"data": ["AAE="]}, {"data": []}):
        m = {"protocol": "amqp10", "body": body}
        assert codec.request("proton-transit", {"message": m}, timeout=TIMEOUT)["message"] == m


def test_a_value_the_sdk_reads_by_its_java_tostring(codec):
    """ProtonAmqpBinaryMessageReader.toCloudEventsValue is value.toString(): proton-j's Decimal128 has
    none of its own, so the SDK reads Object.toString()."""
    app = {"cloudEvents:specversion": s("1.0"), "cloudEvents:id": s("A1"), "cloudEvents:source": s("/ctx"),
           "cloudEvents:type": s("t"), "cloudEvents:dec": {"decimal": "1.5"}, "cloudEvents:sym": {"symbol": "y"}}
    got = decode(codec, {"protocol": "amqp10", "application_properties": app})["event"]["attributes"]
    assert got["dec"]["string"].startswith("org.apache.qpid.proton.amqp.Decimal128@")
    assert got["sym"] == s("y")


def test_the_declared_process_codecs_name_this_shim():
    from fixtures.process.shims import codec_shims
    assert ("cloudevents-sdk-java", SHIM_DIR) in codec_shims(ROOT / "fixtures" / "codecs" / "process_codecs.yaml")
