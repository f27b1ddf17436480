#!/usr/bin/env python3
"""RabbitMQ's AMQP 1.0 client for Python (PyPI rabbitmq-amqp-python-client) behind the mqconform
client-library protocol: role `client-library` of docs/process-protocol.md, contract
docs/client-library-protocol.md in the mqconform repository.

Standalone on purpose: it imports the library and the standard library, nothing of mqconform.

What it keeps (the rule: a shim asks the library, nothing more):
- stdout carries protocol lines only: sys.stdout is pointed at stderr before the library is
  imported, the protocol writes to the saved original; every request gets exactly one answer line;
- an address is what the library's own builder returns, passed through as it is: the shim encodes,
  checks and repairs nothing. The builder is `AddressHelper` (the library's documented way to
  make the address strings its publishers and consumers take): `queue_address(name)` for a queue
  (a publisher's target and a consumer's source alike: `Connection.consumer(destination)` takes
  the string that helper builds), `exchange_address(name)` for an exchange,
  `exchange_address(name, routing_key)` for an exchange and routing key;
- a message's `to` is set as the library's tests and examples set it, through
  `AddressHelper.message_to_address_helper(Message(), <an AddressHelper address>)`, read back from the
  message (`message.address`), with the message's bytes as the library's own encoder makes them
  (`Message.encode()`, what its publisher sends; base64 is only the JSON's framing);
- what the library offers no way to make is `not-offered` (a reply-to address: it has no builder
  for one); what it makes only on an open connection (a publisher's target without a destination)
  is `not-expressible`;
- the library documents no refusal for these calls, so anything they raise is `error` (a crash),
  with the exception's class name and text; the shim answers `rejected` for nobody;
- stdin's end ends the process (exit 0).
"""
from __future__ import annotations

import base64
import importlib.metadata
import json
import sys
import traceback

_PROTOCOL_OUT = sys.stdout
sys.stdout = sys.stderr      # anything the library prints goes to the log, never the protocol

from rabbitmq_amqp_python_client import AddressHelper, Message  # noqa: E402 - after stdout is redirected

DIST = "rabbitmq-amqp-python-client"
PROTOCOL = "mqconform-process"
ROLE = "client-library"
FORMS = ["queue", "exchange", "exchange-key"]
OFFERS = {"operations": ["address"],
          "address": {"target": [*FORMS, "null"], "source": ["queue"], "to": FORMS}}
# Asked and answered `not-expressible`: the library makes a publisher's target only on an open
# connection (Connection.publisher(destination="") -> Publisher(conn, "") -> conn.create_sender("")),
# which this shim (no broker) does not have.
NO_CONNECTION = ("the library makes a publisher's target only as it opens the publisher on a connection "
                 "(Connection.publisher() with no destination: Publisher(conn, \"\") opens its sender at once); "
                 "the shim has no connection, and AddressHelper makes no address for a publisher without a destination")


class Refused(Exception):
    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code, self.reason = code, reason


class Crashed(Exception):
    """The library raised: its crash, reported with its own type and text."""

    def __init__(self, exc: BaseException):
        super().__init__(str(exc))
        self.exc = exc


def library(fn, *args) -> str:
    """One call into the library; whatever it raises is its crash (it documents no refusal here)."""
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - the library's answer, reported as such
        traceback.print_exc()
        raise Crashed(exc) from None


def text(params: dict, key: str) -> str:
    value = params.get(key)
    if not isinstance(value, str):
        raise Refused("not-expressible", f"request: {key} must be a string (the builder takes a str), got {value!r}")
    return value


def built(params: dict, field: str) -> str:
    """The address AddressHelper builds for the names of the request."""
    if "queue" in params:
        return library(AddressHelper.queue_address, text(params, "queue"))
    if field == "source":
        raise Refused("not-offered", "a source address is built for a queue only (a consumer takes a queue address)")
    exchange = text(params, "exchange")
    if "routing_key" in params:
        return library(AddressHelper.exchange_address, exchange, text(params, "routing_key"))
    return library(AddressHelper.exchange_address, exchange)


def address(params: dict) -> dict:
    field = params.get("field")
    if field == "reply-to":
        raise Refused("not-offered", "the library builds no reply-to address: Message.reply_to and "
                                     "MessageProperties.reply_to take any string, and AddressHelper has no reply-to "
                                     "helper (its RPC example sets reply_to to a consumer's address)")
    if field not in OFFERS["address"]:
        raise Refused("not-offered", f"no {field!r} address: the shim offers {', '.join(OFFERS['address'])}")
    if not any(k in params for k in ("queue", "exchange", "routing_key")):
        if field != "target":
            raise Refused("not-offered", f"a {field} address names a queue or an exchange")
        raise Refused("not-expressible", NO_CONNECTION)
    if field == "to":
        # the library's way to give a message its `to`: AddressHelper.message_to_address_helper with an
        # address AddressHelper built; read back from the message, which the library encodes as it sends it
        # (Publisher.publish -> BlockingSender.send -> Message.encode)
        message = library(AddressHelper.message_to_address_helper, Message(), built(params, field))
        return {"address": message.address, "encoded": base64.b64encode(library(message.encode)).decode("ascii")}
    return {"address": built(params, field)}


def hello(params: dict) -> dict:
    if 1 not in (params.get("versions") or []):
        raise Refused("rejected", f"this shim speaks protocol version 1, offered {params.get('versions')!r}")
    version = importlib.metadata.version(DIST)
    return {"protocol": PROTOCOL, "version": 1, "role": ROLE,
            "implementation": {"name": DIST, "version": version}, "offers": OFFERS,
            "library": f"{DIST}=={version}", "builder": "rabbitmq_amqp_python_client.AddressHelper"}


OPS = {"hello": hello, "address": address}


def answer(req: dict) -> dict:
    rid, op = req["id"], req.get("op")
    params = req.get("params") if isinstance(req.get("params"), dict) else {}
    handler = OPS.get(op)
    try:
        if handler is None:
            raise Refused("not-offered", f"no operation {op!r} (offered: {', '.join(OFFERS['operations'])})")
        return {"id": rid, "status": "ok", "result": handler(params)}
    except Refused as r:
        return {"id": rid, "status": "refused", "code": r.code, "reason": r.reason}
    except Crashed as c:
        return {"id": rid, "status": "error", "error": {"type": type(c.exc).__name__, "message": str(c.exc)}}
    except Exception as exc:  # noqa: BLE001 - the shim's own failure, never the library's answer
        traceback.print_exc()
        return {"id": rid, "status": "refused", "code": "not-expressible",
                "reason": f"the shim failed (its own code, not the library): {type(exc).__name__}: {exc}"}


def main() -> int:
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            if not isinstance(req, dict) or not isinstance(req.get("id"), int):
                raise ValueError("not a request object with an integer id")
        except ValueError as exc:
            print(f"rabbitmq-amqp-python shim: not a request ({exc}): {line[:200]!r}", file=sys.stderr)
            return 2
        _PROTOCOL_OUT.write(json.dumps(answer(req), ensure_ascii=False, separators=(",", ":")) + "\n")
        _PROTOCOL_OUT.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
