#!/usr/bin/env python3
"""The CloudEvents Python SDK (cloudevents 2.x, `cloudevents.core`) behind the mqconform codec protocol.

A TEMPLATE as much as a shim: an SDK author copies this file and replaces the four SDK_ parts
(marked "SDK:") with calls into their own SDK. The rest (framing, forms, the AMQP client's typing)
carries over. The contract is docs/codec-protocol.md in the mqconform repository (role
`cloudevents-codec` of docs/process-protocol.md).

Standalone on purpose: it imports the SDK, the standard library and python-qpid-proton (the
AMQP 1.0 client whose encoder decides the AMQP type of each value the SDK returns), and nothing
of mqconform.

What it keeps (the rule: a shim translates, nothing more):
- stdout carries protocol lines only: sys.stdout is pointed at stderr before the SDK is imported,
  the protocol writes to the saved original; every request gets exactly one answer line;
- the SDK is called as a user calls it, never patched; it is handed exactly the event or message
  asked for, as a user hands it (an event through the constructor, whatever the constructor fills in;
  pika's typed header table as it is: Python does not enforce RabbitMQMessage's dict[str, str]), or
  the request is refused `not-expressible` naming what its API has no place for at all
  (AMQPMessage.application_data is one bytes value, so an amqp-value body or several data sections
  cannot be handed to it). That is a translation limit, never a verdict: the shim never answers
  `rejected` on the SDK's behalf;
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
import calendar
import datetime as dt
import importlib.metadata
import json
import sys
import traceback
import uuid
from decimal import Decimal

_PROTOCOL_OUT = sys.stdout
sys.stdout = sys.stderr      # anything the SDK or a library prints goes to the log, never the protocol

import proton  # noqa: E402 - after stdout is redirected

# SDK: the SDK under test, its event type, bindings, format and documented refusals.
from cloudevents.core.bindings import amqp as sdk_amqp  # noqa: E402
from cloudevents.core.bindings import rabbitmq as sdk_rabbitmq  # noqa: E402
from cloudevents.core.exceptions import BaseCloudEventException  # noqa: E402
from cloudevents.core.formats.json import JSONFormat  # noqa: E402
from cloudevents.core.v1.event import CloudEvent  # noqa: E402

PROTOCOL, VERSION, ROLE = "mqconform-process", 1, "cloudevents-codec"
IMPLEMENTATION = "cloudevents-sdk-python"
SDK_REFUSALS = (BaseCloudEventException, ValueError)
BINDINGS = {"ce-amqp": {"modes": ["binary", "structured"], "formats": ["json"]},
            "ce-rabbitmq": {"modes": ["binary", "structured"], "formats": ["json"]}}


class Refused(Exception):
    """A refusal: `code` (rejected, not-expressible, not-offered) and the reason."""

    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code = code


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


def b64(data: bytes) -> str:
    return base64.b64encode(bytes(data)).decode("ascii")


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


# ---- AMQP 1.0: typed as python-qpid-proton puts values on the wire ---------------------------------

_SCALARS = {
    proton.Data.NULL: ("null", lambda d: None), proton.Data.BOOL: ("boolean", lambda d: bool(d.get_bool())),
    proton.Data.BYTE: ("byte", lambda d: int(d.get_byte())), proton.Data.SHORT: ("short", lambda d: int(d.get_short())),
    proton.Data.INT: ("int", lambda d: int(d.get_int())), proton.Data.LONG: ("long", lambda d: int(d.get_long())),
    proton.Data.UBYTE: ("ubyte", lambda d: int(d.get_ubyte())),
    proton.Data.USHORT: ("ushort", lambda d: int(d.get_ushort())),
    proton.Data.UINT: ("uint", lambda d: int(d.get_uint())), proton.Data.ULONG: ("ulong", lambda d: int(d.get_ulong())),
    proton.Data.TIMESTAMP: ("timestamp", lambda d: int(d.get_timestamp())),
    proton.Data.FLOAT: ("float", lambda d: _float(d.get_float())),
    proton.Data.DOUBLE: ("double", lambda d: _float(d.get_double())),
    proton.Data.UUID: ("uuid", lambda d: str(d.get_uuid())),
    proton.Data.BINARY: ("binary", lambda d: b64(bytes(d.get_binary()))),
    proton.Data.STRING: ("string", lambda d: str(d.get_string())),
    proton.Data.SYMBOL: ("symbol", lambda d: str(d.get_symbol())),
}


def _float(x: float):
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    return float(x)


def _read_typed(d: proton.Data) -> dict:
    t = d.type()
    if t in _SCALARS:
        name, get = _SCALARS[t]
        return {name: get(d)}
    if t in (proton.Data.LIST, proton.Data.MAP):
        count = d.get_list() if t == proton.Data.LIST else d.get_map()
        d.enter()
        items = []
        for _ in range(count):
            d.next()
            items.append(_read_typed(d))
        d.exit()
        if t == proton.Data.LIST:
            return {"list": items}
        keys = items[0::2]
        if any(next(iter(k)) not in ("string", "symbol") for k in keys):
            raise Refused("not-expressible", f"an AMQP map with keys {keys!r}: the codec protocol's maps have string keys")
        return {"map": {next(iter(k.values())): v for k, v in zip(keys, items[1::2], strict=True)}}
    raise Refused("not-expressible", f"an AMQP {proton.Data.type_name(t)} has no form in the codec protocol")


def amqp10_typed(value) -> dict:
    """The TYPED form of a value as proton sends it: the value goes through proton's encoder and
    the type code is read back from the encoded bytes (a Python int is a long, a float a double,
    a proton.timestamp a timestamp, a str a string)."""
    if isinstance(value, memoryview):
        value = bytes(value)
    d = proton.Data()
    try:
        d.put_object(value)
    except KeyError:   # proton dispatches on the exact class
        raise Refused("not-expressible", f"python-qpid-proton has no AMQP encoding for a {type(value).__name__}") from None
    back = proton.Data()
    back.decode(d.encode())
    back.rewind()
    back.next()
    return _read_typed(back)


_INT_CLASSES = {"byte": proton.byte, "short": proton.short, "int": proton.int32, "long": int, "ubyte": proton.ubyte,
                "ushort": proton.ushort, "uint": proton.uint, "ulong": proton.ulong}


def amqp10_value(form: dict):
    """The Python object proton encodes as exactly the TYPED form's type (what a proton sender writes)."""
    (kind, v), = form.items()
    if kind in _INT_CLASSES:
        return _INT_CLASSES[kind](v)
    if kind == "timestamp":
        return proton.timestamp(v)
    if kind in ("float", "double"):
        f = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.get(v, v)
        return proton.float32(f) if kind == "float" else float(f)
    if kind == "symbol":
        return proton.symbol(v)
    if kind == "binary":
        return base64.b64decode(v, validate=True)
    if kind == "uuid":
        return uuid.UUID(v)
    if kind == "list":
        return [amqp10_value(x) for x in v]
    if kind == "map":
        return {k: amqp10_value(x) for k, x in v.items()}
    if kind in ("null", "boolean", "string"):
        return v
    raise Refused("not-expressible", f"this shim does not write an AMQP {kind} with python-qpid-proton")


def _plain(value):
    """A value a proton receiver holds, with binary copied out of proton's buffer."""
    if isinstance(value, memoryview):
        return bytes(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


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
    app = {str(k): amqp10_typed(_plain(v)) for k, v in (got.properties or {}).items()}
    body = _plain(got.body)
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
    props = {name: _plain(amqp10_value(form)) if ("binary" in form or "uuid" in form) else next(iter(form.values()))
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
    app = {str(k): _plain(v) for k, v in (got.properties or {}).items()}
    data = bytes(got.body) if got.body is not None else b""
    return sdk_amqp.AMQPMessage(properties=props, application_properties=app, application_data=data)


# ---- AMQP 0-9-1: typed as a pika sender writes field values ----------------------------------------
# pika (the AMQP 0-9-1 client the SDK's docs name) writes: str -> S (string), bytes -> x (binary),
# bool -> t (boolean), int -> I (int) when it fits 32 bits signed else l (long), Decimal -> D,
# datetime -> T (whole seconds, UTC), dict -> F (map), list -> A (list), None -> V (null); it cannot
# write a float (or anything else). The same rules, here without pika, type the SDK's headers.

def amqp091_typed(value, where: str) -> dict:
    if isinstance(value, str):
        return {"string": value}
    if isinstance(value, bytes):
        return {"binary": b64(value)}
    if isinstance(value, bool):
        return {"boolean": value}
    if isinstance(value, int):
        return {"int": value} if -2 ** 31 <= value < 2 ** 31 else {"long": value}
    if isinstance(value, Decimal):
        return {"decimal": str(value.normalize())}
    if isinstance(value, dt.datetime):
        seconds = calendar.timegm(value.utctimetuple())
        if seconds < 0:
            raise Refused("not-expressible", f"{where}: a timestamp before 1970 has no unsigned AMQP 0-9-1 form")
        return {"timestamp": seconds}
    if isinstance(value, dict):
        return {"map": {k: amqp091_typed(v, f"{where}.{k}") for k, v in value.items()}}
    if isinstance(value, list):
        return {"list": [amqp091_typed(v, where) for v in value]}
    if value is None:
        return {"null": None}
    raise Refused("not-expressible", f"{where}: an AMQP 0-9-1 client (pika) cannot write a {type(value).__name__}")


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


def amqp091_value(form: dict):
    """The Python value an AMQP 0-9-1 consumer (pika) hands the application for a field value:
    S str, x bytes, t bool, integers int, f / d float, D Decimal, T a UTC datetime, F dict, A list, V None."""
    (kind, v), = form.items()
    if kind in ("string", "boolean", "byte", "ubyte", "short", "ushort", "int", "uint", "long", "null"):
        return v
    if kind == "binary":
        return base64.b64decode(v, validate=True)
    if kind in ("float", "double"):
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}.get(v, v)
    if kind == "decimal":
        return Decimal(v)
    if kind == "timestamp":
        return dt.datetime.fromtimestamp(v, dt.UTC)
    if kind == "map":
        return {k: amqp091_value(x) for k, x in v.items()}
    if kind == "list":
        return [amqp091_value(x) for x in v]
    raise Refused("not-expressible", f"AMQP 0-9-1 has no field type for {kind}")


def amqp091_receive(message: dict):
    """SDK: the RabbitMQMessage a consumer builds. Its API takes "RabbitMQ message headers as string
    key-value pairs" (`headers: dict[str, str]`, its docstring): a header its AMQP 0-9-1 client
    (pika) hands out as anything but a string (a timestamp, an integer, a boolean, bytes, a table)
    has no place there. That is the API's limit, `not-expressible`, never handed to the SDK anyway
    (what the SDK then does with a type it does not take is not its verdict) and never converted
    to a string here (that would be the shim's reading, not the SDK's)."""
    props = message.get("properties") or {}
    headers = {}
    for k, v in (message.get("headers") or {}).items():
        try:
            value = amqp091_value(v)
        except (OverflowError, OSError, ValueError) as exc:
            raise Refused("not-expressible", f"header {k}: a value with no Python form: {exc}") from None
        if not isinstance(value, str):
            raise Refused("not-expressible", f"header {k}: an AMQP 0-9-1 {next(iter(v))} (pika hands out a "
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
