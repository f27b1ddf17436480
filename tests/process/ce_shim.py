"""What the tests of the CloudEvents codec shims (tests/process/test_cloudevents_*.py) share: a shim
process started for a test module, and its ce-amqp requests."""
from __future__ import annotations

import pytest

from fixtures.process import protocol as p
from fixtures.process.session import ImplProcess

TIMEOUT = 30


def s(v):
    return {"string": v}


def started(command, tmp_path_factory, label: str, handshake_s: int):
    """A fixture body: the shim's process, started; at the end, stdin's end must end it cleanly."""
    proc = ImplProcess(command, role="cloudevents-codec", log_path=tmp_path_factory.mktemp(label) / "shim.log",
                       handshake_s=handshake_s, label=label)
    proc.start()
    yield proc
    assert proc.close() == 0


def encode(codec, mode, event):
    return codec.request("encode", {"binding": "ce-amqp", "mode": mode, "event": event}, timeout=TIMEOUT)["message"]


def decode(codec, message):
    return codec.request("decode", {"binding": "ce-amqp", "message": message}, timeout=TIMEOUT)


def refusal(codec, op, params) -> p.Refusal:
    with pytest.raises(p.Refusal) as exc:
        codec.request(op, {"binding": "ce-amqp", **params}, timeout=TIMEOUT)
    return exc.value
