"""The second AMQP 1.0 client's shim (shims/amqp-link-go: go-amqp, role `amqp10-link-client`,
docs/link-protocol.md), built as the Go codec shim is (go build -mod=readonly, cached by digest) and
asked without a broker: the handshake names go-amqp at the version go.mod pins and every operation,
a dropped connection is the transport's answer, what it cannot ask go-amqp is not-expressible, an
unknown operation not-offered, and it exits 0 when stdin ends. Skipped without Go."""
from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

from fixtures.links import client as link_client
from fixtures.links import protocol as lp
from fixtures.process import goshim
from fixtures.process import protocol as p
from fixtures.process.session import ImplProcess

ROOT = Path(__file__).resolve().parents[2]
SHIM_DIR = "shims/amqp-link-go"

pytestmark = pytest.mark.skipif(goshim.go_binary() is None, reason="Go builds the link shim")


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    from fixtures.process.shims import go_command
    proc = ImplProcess(go_command(SHIM_DIR), role=lp.ROLE, log_path=tmp_path_factory.mktemp("log") / "link.log",
                       handshake_s=60, label="amqp-link-go")
    proc.start()
    yield proc
    proc.close()


def test_the_handshake_names_go_amqp_at_the_pinned_version_and_every_operation(shim):
    pinned = re.search(r"github.com/Azure/go-amqp (v\S+)", (ROOT / SHIM_DIR / "go.mod").read_text()).group(1)
    ce_pin = re.search(r"github.com/Azure/go-amqp (v\S+)", (ROOT / "shims/cloudevents-go/go.mod").read_text()).group(1)
    hs = shim.handshake
    assert (hs.name, hs.impl_version, hs.role) == ("go-amqp", pinned.removeprefix("v"), lp.ROLE)
    assert pinned == ce_pin, "the two Go shims share one go-amqp"
    assert lp.offers_problem(hs) is None and any(x.startswith("send-outcome") for x in hs.offers["limits"])
    assert [(c.name, c.go_shim) for c in link_client.load()] == [("go-amqp", {"dir": SHIM_DIR})]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_connection_nobody_answers_is_the_transports_answer(shim):
    r = lp.connected(shim.request("connect", {"host": "127.0.0.1", "port": closed_port(), "timeout_ms": 2000}, timeout=15))
    assert r.connection is None and r.scope == "transport" and "refused" in r.client_text


def test_what_it_cannot_ask_go_amqp_is_not_expressible_and_unknown_operations_not_offered(shim):
    with pytest.raises(p.Refusal) as info:
        shim.request("attach", {"connection": "c-none", "role": "sender", "address": "/q"}, timeout=15)
    assert info.value.code == "not-expressible" and "no connection" in info.value.reason
    with pytest.raises(p.Refusal) as info:
        shim.request("flow", {}, timeout=15)
    assert info.value.code == "not-offered"


def test_it_exits_0_when_stdin_ends(tmp_path):
    from fixtures.process.shims import go_command
    proc = ImplProcess(go_command(SHIM_DIR), role=lp.ROLE, log_path=tmp_path / "link.log", handshake_s=60)
    proc.start()
    assert proc.close() == 0
