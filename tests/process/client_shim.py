"""What the tests of the client-library shims (tests/process/test_rabbitmq_amqp_*.py) share: a shim
process started for a test module, and its address requests."""
from __future__ import annotations

import pytest

from fixtures.clients.library import ROLE
from fixtures.process import protocol as p
from fixtures.process.session import ImplProcess

TIMEOUT = 30


def started(command, tmp_path_factory, label: str, handshake_s: int):
    """A fixture body: the shim's process, started; at the end, stdin's end must end it cleanly."""
    proc = ImplProcess(command, role=ROLE, log_path=tmp_path_factory.mktemp(label) / "shim.log",
                       handshake_s=handshake_s, label=label)
    proc.start()
    yield proc
    assert proc.close() == 0


def address(lib, field="target", **names) -> str:
    return lib.request("address", {"field": field, **names}, timeout=TIMEOUT)["address"]


def refusal(lib, params) -> p.Refusal:
    with pytest.raises(p.Refusal) as exc:
        lib.request("address", params, timeout=TIMEOUT)
    return exc.value
