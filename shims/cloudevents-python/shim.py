#!/usr/bin/env python3
"""The CloudEvents Python SDK (cloudevents 2.x, `cloudevents.core`) behind the mqconform codec protocol.

A TEMPLATE as much as a shim: an SDK author copies this folder and replaces the SDK parts of this
file (marked "SDK:") with calls into their own SDK. The rest (framing, forms, and wire_types.py: the
AMQP clients' typing) carries over. The contract is docs/codec-protocol.md in the mqconform
repository (role `cloudevents-codec` of docs/process-protocol.md).

Standalone on purpose: it imports the SDK, the standard library and python-qpid-proton (the
AMQP 1.0 client whose encoder decides the AMQP type of each value the SDK returns), and nothing
of mqconform.

What it keeps (the rule: a shim translates, nothing more):
- stdout carries protocol lines only: sys.stdout is pointed at stderr before the SDK is imported,
  the protocol writes to the saved original; every request gets exactly one answer line;
- the SDK is called as a user calls it, never patched; it is handed exactly the event or message
  asked for, as a user hands it (an event through the constructor, whatever the constructor fills in),
  or the request is refused `not-expressible` naming what its API has no place for at all
  (AMQPMessage.application_data is one bytes value, so an amqp-value body or several data sections
  cannot be handed to it). That is a translation limit, never a verdict: the shim never answers
  `rejected` on the SDK's behalf, and never hands the SDK a value outside the types its API
  declares: where its documentation excludes an input (RabbitMQMessage takes string headers only,
  so a header pika hands out typed) the request is refused `lacks`, the SDK's own lack;
- what the SDK documents as its refusal (cloudevents.core.exceptions.BaseCloudEventException and
  ValueError, which its Format.read/write document) is `rejected`; anything else it raises is
  `error` with the exception's class name and text; nothing else is either;
- what the SDK returned is reported as it is, translated to the protocol's JSON: never repaired,
  completed or checked against the bytes it was handed (a decoded data value is turned into bytes
  by the type the SDK gave it, never by re-reading the received body);
- the message is typed as the AMQP client the user would pair it with puts it on the wire (see
  `amqp10_typed` and `amqp091_typed`), except where the SDK documents the AMQP type of a value it
  returns as a plain Python value: to_binary's "Datetime values are encoded as AMQP timestamp type
  (milliseconds since Unix epoch)" returns an int, which a user sends as the timestamp the SDK
  says it is (`sdk_typed_amqp10`). The SDK's own word, never a guess from the value.

Run: python3 shim.py   (it reads requests on stdin until stdin ends, then exits 0).
"""
from __future__ import annotations

import base64
import datetime as dt
import importlib.metadata
import json
import sys
import traceback

_PROTOCOL_OUT = sys.stdout
sys.stdout = sys.stderr      # anything the SDK or a library prints goes to the log, never the protocol

import proton  # noqa: E402 - after stdout is redirected

# SDK: the SDK under test, its event type, bindings, format and documented refusals.
from cloudevents.core.bindings import amqp as sdk_amqp  # noqa: E402
from cloudevents.core.bindings import rabbitmq as sdk_rabbitmq  # noqa: E402
from cloudevents.core.exceptions import BaseCloudEventException  # noqa: E402
from cloudevents.core.formats.json import JSONFormat  # noqa: E402
from cloudevents.core.v1.event import CloudEvent  # noqa: E402

# The shim's own file beside it (a script's folder is on sys.path).
from wire_types import Refused, amqp091_typed, amqp091_value, amqp10_typed, amqp10_value, b64, plain  # noqa: E402

PROTOCOL, VERSION, ROLE = "mqconform-process", 1, "cloudevents-codec"
IMPLEMENTATION = "cloudevents-sdk-python"
SDK_REFUSALS = (BaseCloudEventException, ValueError)
BINDINGS = {"ce-amqp": {"modes": ["binary", "structured"], "formats": ["json"]},
            "ce-rabbitmq": {"modes": ["binary", "structured"], "formats": ["json"]}}


class SdkCrash(Exception):
    """The SDK raised something it does not document as a refusal: answered `error`."""

    def __init__(self, exc: BaseException):
        super().__init__(str(exc))
        self.type = type(exc).__name__


def sdk(fn, *args):
    """Call into the SDK: its documented refusals are `rejected`, anything else it raises is its crash.
    Only SDK calls go through here: a failure of the shim's own code is never the SDK's."""
    try:
        return fn(*args)
    except SDK_REFUSALS as exc:
        raise Refused("rejected", f"{type(exc).__name__}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - judged by the vector as a crash
        raise SdkCrash(exc) from None


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


# ---- EVENT form <-> the SDK's event ----------------------------------------------------------

# SDK: the Python value the SDK takes for each CloudEvents type (its attribute encoders handle str,
# int, bool, bytes and datetime; String, URI and URI-reference are all str there).
SDK_TYPES = {"boolean": bool, "integer": int, "string": str, "uri": str, "uri-reference": str,
             "binary": bytes, "timestamp": dt.datetime}
_STRINGISH = ("string", "uri", "uri-reference")
_CORE_TYPES = {"specversion": "string", "id": "string", "source": "uri-reference", "type": "string",
               "datacontenttype": "string", "dataschema": "uri", "subject": "string", "time": "timestamp"}


def sdk_value(name: str, form: dict):
    (kind, value), = form.items()
    if kind == "binary":
        value = base64.b64decode(value, validate=True)
    elif kind == "timestamp":
        value = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    want = SDK_TYPES.get(kind)
    if want is None or type(value) is not want:
        raise Refused("not-expressible", f"attribute {name!r}: a CloudEvents {kind} held as a {type(value).__name__} "
                                         "has no value in the SDK's attribute types (str, int, bool, bytes, datetime)")
    return value


def _same(held, given) -> bool:
    if type(held) is not type(given) or held != given:
        return False
    return not isinstance(given, dt.datetime) or held.utcoffset() == given.utcoffset()


def to_sdk_event(event: dict) -> CloudEvent:
    """SDK: the SDK's event built from the EVENT asked for, as a user builds it: every attribute passed
    to the constructor (whose validation error is the SDK's refusal). What the constructor then holds,
    an attribute it filled in (time, id, specversion) or changed included, is the SDK's event: the
    message its binding writes shows it, and the vector judges that. Nothing here checks or refuses it."""
    given = {name: sdk_value(name, form) for name, form in event["attributes"].items()}
    data = None if event.get("data") is None else base64.b64decode(event["data"], validate=True)
    return sdk(CloudEvent, given, data)


def _is_json(content_type) -> bool:
    """JSON event format 3.1.1: */json or */*+json without parameters; absent reads as JSON."""
    if content_type is None:
        return True
    subtype = str(content_type).split(";", 1)[0].strip().lower().partition("/")[2]
    return subtype == "json" or subtype.endswith("+json")


def attr_form(name: str, value) -> dict:
    """The EVENT form of a value the SDK handed out, keeping the value:
    bool -> boolean; proton.timestamp (the AMQP client's typed timestamp) -> timestamp; int (or another
    subclass: a client's tag such as proton.int32) -> integer;
    str (or a subclass) -> the core attribute's string-like type, else string; bytes-like -> binary;
    datetime -> timestamp (isoformat; without an offset when the SDK gave none); else `other`."""
    if isinstance(value, bool):
        return {"boolean": value}
    if isinstance(value, proton.timestamp):     # an AMQP timestamp (ms since the epoch) the SDK passed through
        when = dt.datetime.fromtimestamp(0, dt.UTC) + dt.timedelta(milliseconds=int(value))
        return {"timestamp": when.isoformat()}
    if isinstance(value, int):
        return {"integer": int(value)}
    if isinstance(value, str):
        core = _CORE_TYPES.get(name)
        return {core if core in _STRINGISH else "string": str(value)}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"binary": b64(bytes(value))}
    if isinstance(value, dt.datetime):
        return {"timestamp": value.isoformat()}
    try:
        shown = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError):
        shown = repr(value)
    return {"other": {"api_type": type(value).__name__, "value": shown}}


def data_bytes(data, datacontenttype, mode: str):
    """SDK: the SDK's in-memory data as bytes, by the type the SDK gave it and as the SDK's own writers
    mean that type (JSONFormat.write_data sends a str as its UTF-8 text; JSONFormat.write embeds a str
    as a JSON value when the data content type is JSON): bytes as they are; None as no data; a str as
    its UTF-8 text, except in structured mode with a JSON data content type, where it is the JSON
    string; any other value (one JSONFormat parsed out of JSON) as its JSON text.
    Never by re-reading the bytes the SDK was handed: the SDK gives the same str `abc` for the JSON
    body `"abc"` and for the text body `abc`, and the row reports what it gave."""
    if data is None:
        return None
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, str) and (mode == "binary" or not _is_json(datacontenttype)):
        return data.encode("utf-8")
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def event_form(ce, mode: str) -> dict:
    """An attribute whose value is None is one the event does not have (the SDK's own model)."""
    held = sdk(ce.get_attributes)
    attrs = {n: attr_form(n, v) for n, v in held.items() if v is not None}
    data = data_bytes(sdk(ce.get_data), held.get("datacontenttype"), mode)
    return {"attributes": attrs, "data": None if data is None else b64(data)}


def structured(content_type) -> bool:
    """SDK: the SDK's own content-mode test (from_amqp / from_rabbitmq), to say which reading it used."""
    return isinstance(content_type, str) and content_type.lower().startswith("application/cloudevents")


# ---- AMQP 1.0: the SDK's AMQPMessage as a proton sender and receiver have it (typing: wire_types.py) ---

def sdk_typed_amqp10(ce) -> set:
    """SDK: the application properties whose AMQP type the SDK documents: to_binary writes a datetime
    attribute under its cloudEvents_ name as an int it calls the AMQP timestamp type."""
    return {sdk_amqp.CE_PREFIX_UNDERSCORE + name for name, v in sdk(ce.get_attributes).items()
            if isinstance(v, dt.datetime)}


def amqp10_send(sdk_msg, timestamps: set = frozenset()) -> dict:
    """The SDK's AMQPMessage as a proton sender puts it on the wire and a receiver reads it back;
    `timestamps`: the application properties the SDK documents as AMQP timestamps (an int each)."""
    unknown = set(sdk_msg.properties) - {"content-type"}
    if unknown:
        raise Refused("not-expressible", f"the SDK set AMQP properties this shim does not send: {sorted(unknown)}")
    try:
        m = proton.Message()
        if "content-type" in sdk_msg.properties:
            m.content_type = sdk_msg.properties["content-type"]
        m.properties = {k: proton.timestamp(v) if k in timestamps and isinstance(v, int) and not isinstance(v, bool)
                        else v for k, v in sdk_msg.application_properties.items()} or None
        m.body = bytes(sdk_msg.application_data)
        m.inferred = True                       # bytes + inferred: a data section
        got = proton.Message()
        got.decode(m.encode())
    except Refused:
        raise
    except Exception as exc:  # noqa: BLE001 - the AMQP client's limit, not the SDK's result
        raise Refused("not-expressible", f"python-qpid-proton cannot send the SDK's message: "
                                         f"{type(exc).__name__}: {exc}") from None
    props = {}
    if "content-type" in sdk_msg.properties:   # proton's getter says symbol('None') when there is none
        props["content-type"] = {"symbol": str(got.content_type)}
    app = {str(k): amqp10_typed(plain(v)) for k, v in (got.properties or {}).items()}
    body = plain(got.body)
    return {"protocol": "amqp10", "properties": props, "application_properties": app,
            "body": {"data": [] if body is None else [b64(body)]}}


def amqp10_receive(message: dict):
    """SDK: what a proton receiver of the MESSAGE hands the SDK: an AMQPMessage of the properties by
    AMQP name, the application properties as proton decodes them, and the one data section."""
    body = message.get("body") or {"data": []}
    (kind, sections), = body.items()
    # The SDK's AMQPMessage takes application_data as one bytes value (its signature): a body it has
    # no place for cannot be handed to it. That is its API's limit, `not-expressible`, never a
    # refusal answered on the SDK's behalf.
    if kind != "data":
        raise Refused("not-expressible", f"the SDK's AMQPMessage has application_data (one bytes value) only; "
                                         f"its API has no form for an amqp-{kind} body")
    if len(sections) > 1:
        raise Refused("not-expressible", f"the SDK's AMQPMessage holds one data section as bytes; its API has no "
                                         f"form for {len(sections)} data sections")
    # The properties by AMQP name, as plain values (a receiver reads their fixed types as such).
    props = {name: plain(amqp10_value(form)) if ("binary" in form or "uuid" in form) else next(iter(form.values()))
             for name, form in (message.get("properties") or {}).items()}
    try:
        m = proton.Message()
        m.properties = {k: amqp10_value(v) for k, v in (message.get("application_properties") or {}).items()} or None
        m.body = base64.b64decode(sections[0], validate=True) if sections else None
        m.inferred = True
        got = proton.Message()
        got.decode(m.encode())
    except Refused:
        raise
    except Exception as exc:  # noqa: BLE001 - the AMQP client cannot carry it: not the SDK's result
        raise Refused("not-expressible", f"python-qpid-proton cannot carry this message: {type(exc).__name__}: {exc}") from None
    app = {str(k): plain(v) for k, v in (got.properties or {}).items()}
    data = bytes(got.body) if got.body is not None else b""
    return sdk_amqp.AMQPMessage(properties=props, application_properties=app, application_data=data)


# ---- AMQP 0-9-1: the SDK's RabbitMQMessage as pika has it (typing: wire_types.py) -----------------

def _shortstr(text: str, what: str) -> None:
    if len(text.encode("utf-8")) > 255:
        raise Refused("not-expressible", f"{what} is longer than an AMQP 0-9-1 short string (255 octets)")


def amqp091_send(sdk_msg) -> dict:
    props = {}
    if sdk_msg.content_type is not None:
        _shortstr(sdk_msg.content_type, "the SDK's content type")
        props["content-type"] = sdk_msg.content_type
    headers = {}
    for k, v in (sdk_msg.headers or {}).items():
        _shortstr(k, f"header name {k!r}")
        headers[k] = amqp091_typed(v, f"header {k}")
    return {"protocol": "amqp091", "properties": props, "headers": headers, "body": b64(sdk_msg.body)}


def amqp091_receive(message: dict):
    """SDK: the RabbitMQMessage a consumer builds. Its API takes "RabbitMQ message headers as string
    key-value pairs" (`headers: dict[str, str]`, its docstring): a header its AMQP 0-9-1 client
    (pika) hands out as anything but a string (a timestamp, an integer, a boolean, bytes, a table)
    has no place there. That is the SDK's own lack, `lacks` (the SDK's scope, never the suite's limit),
    never handed to the SDK anyway (what it does with a type it does not take
    is no answer of its API) and never converted to a string here (the shim's reading, not the SDK's)."""
    props = message.get("properties") or {}
    headers = {}
    for k, v in (message.get("headers") or {}).items():
        try:
            value = amqp091_value(v)
        except (OverflowError, OSError, ValueError) as exc:
            raise Refused("not-expressible", f"header {k}: a value with no Python form: {exc}") from None
        if not isinstance(value, str):
            raise Refused("lacks", f"header {k}: an AMQP 0-9-1 {next(iter(v))} (pika hands out type "
                          f"{type(value).__name__}); the SDK's RabbitMQMessage.headers takes string key-value "
                          "pairs only (dict[str, str])")
        headers[k] = value
    return sdk_rabbitmq.RabbitMQMessage(headers=headers, content_type=props.get("content-type"),
                                        body=base64.b64decode(message.get("body") or "", validate=True))


# ---- the operations -------------------------------------------------------------------------------

# SDK: the SDK's writers and readers per binding.
WRITERS = {"ce-amqp": {"binary": sdk_amqp.to_binary, "structured": sdk_amqp.to_structured},
           "ce-rabbitmq": {"binary": sdk_rabbitmq.to_binary, "structured": sdk_rabbitmq.to_structured}}


def encode(params: dict) -> dict:
    binding, mode = params["binding"], params["mode"]
    if mode not in WRITERS.get(binding, {}):
        raise Refused("not-offered", f"{binding} {mode} is not offered")
    ce = to_sdk_event(params["event"])
    sdk_msg = sdk(WRITERS[binding][mode], ce, JSONFormat())
    # held_attributes: the event as the SDK holds it (its constructor may have added an attribute),
    # read from the SDK's own object; the harness judges the binding on it (docs/codec-protocol.md).
    held = {n: attr_form(n, v) for n, v in sdk(ce.get_attributes).items() if v is not None}
    sent = amqp10_send(sdk_msg, sdk_typed_amqp10(ce)) if binding == "ce-amqp" else amqp091_send(sdk_msg)
    return {"message": sent, "held_attributes": held}


def decode(params: dict) -> dict:
    binding, message = params["binding"], params["message"]
    if binding == "ce-amqp":
        sdk_msg = amqp10_receive(message)
        ce = sdk(sdk_amqp.from_amqp, sdk_msg, JSONFormat())
        content_type = sdk_msg.properties.get("content-type")
    elif binding == "ce-rabbitmq":
        sdk_msg = amqp091_receive(message)
        ce = sdk(sdk_rabbitmq.from_rabbitmq, sdk_msg, JSONFormat())
        content_type = sdk_msg.content_type
    else:
        raise Refused("not-offered", f"{binding} is not offered")
    mode = "structured" if structured(content_type) else "binary"
    return {"event": event_form(ce, mode), "mode": mode}


def hello(params: dict) -> dict:
    if params.get("role") != ROLE or VERSION not in (params.get("versions") or []):
        raise Refused("not-offered", f"this shim speaks {PROTOCOL} {VERSION} as {ROLE}")
    return {"protocol": PROTOCOL, "version": VERSION, "role": ROLE,
            "implementation": {"name": IMPLEMENTATION, "version": _version("cloudevents")},
            "offers": {"operations": ["encode", "decode"], "bindings": BINDINGS},
            "library": f"cloudevents=={_version('cloudevents')}",
            "amqp_client": f"python-qpid-proton=={_version('python-qpid-proton')}"}


OPERATIONS = {"hello": hello, "encode": encode, "decode": decode}


def answer(request: dict) -> dict:
    rid, op = request.get("id"), request.get("op")
    if op not in OPERATIONS:
        return {"id": rid, "status": "refused", "code": "not-offered", "reason": f"no operation {op!r}"}
    try:
        return {"id": rid, "status": "ok", "result": OPERATIONS[op](request.get("params") or {})}
    except Refused as exc:
        return {"id": rid, "status": "refused", "code": exc.code, "reason": str(exc) or exc.code}
    except SdkCrash as exc:
        return {"id": rid, "status": "error", "error": {"type": exc.type, "message": str(exc)}}
    except Exception as exc:  # noqa: BLE001 - the shim's own failure: what it could not ask the SDK
        traceback.print_exc(file=sys.stderr)
        return {"id": rid, "status": "refused", "code": "not-expressible",
                "reason": f"the shim failed before the SDK answered: {type(exc).__name__}: {exc}"}


def main() -> int:
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line))
        _PROTOCOL_OUT.write(json.dumps(reply, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n")
        _PROTOCOL_OUT.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
