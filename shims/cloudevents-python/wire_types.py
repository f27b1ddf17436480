"""How the AMQP clients a user pairs the SDK with type values on the wire: python-qpid-proton for
AMQP 1.0, pika for AMQP 0-9-1. Part of the shim (shim.py), SDK-independent: an SDK author copying
the shim keeps this file as it is. Values go to and from the codec protocol's TYPED forms
(docs/codec-protocol.md); what a client cannot write, or a form cannot hold, is `not-expressible`.
"""
from __future__ import annotations

import base64
import calendar
import datetime as dt
import uuid
from decimal import Decimal

import proton


class Refused(Exception):
    """A refusal: `code` (rejected, not-expressible, not-offered) and the reason."""

    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code = code


def b64(data: bytes) -> str:
    return base64.b64encode(bytes(data)).decode("ascii")


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


def plain(value):
    """A value a proton receiver holds, with binary copied out of proton's buffer."""
    if isinstance(value, memoryview):
        return bytes(value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


# ---- AMQP 0-9-1: typed as a pika sender writes field values ----------------------------------------
# pika (the AMQP 0-9-1 client the SDK's docs name) writes: str -> S (string), bytes -> x (binary),
# bool -> t (boolean), int -> I (int) when it fits 32 bits signed else l (long), Decimal -> D,
# datetime -> T (whole seconds, UTC), dict -> F (map), list -> A (list), None -> V (null); it cannot
# write a float (or anything else).

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
