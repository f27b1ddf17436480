"""RabbitMQ's AMQP 1.0 client for Python (rabbitmq-amqp-python-client, its AddressHelper) behind its
shim (shims/rabbitmq-amqp-python), role `client-library`: the handshake, address requests passed to
the library's builder and its answer passed back unchanged (a message's `to` read back from the
library's message, with the library's encoding of it), and what the shim does not offer (a reply-to
address) or cannot ask without a connection (a publisher's target given no destination).

What 1.0.1 does is read from its sources (address_helper.py): encode_path_segment keeps a character
for which str.isalnum() is true, and "-._~", and writes any other as "%" + format(ord(c), "02X"): its
code point, not its UTF-8 octets."""
from __future__ import annotations

import base64
import importlib.metadata
import sys
from pathlib import Path

import pytest

from fixtures.clients.library import offers_problem
from tests.process.client_shim import address, refusal, started

ROOT = Path(__file__).resolve().parents[2]
COMMAND = [sys.executable, str(ROOT / "shims" / "rabbitmq-amqp-python" / "shim.py")]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    yield from started(COMMAND, tmp_path_factory, "rabbitmq-amqp-python", handshake_s=30)


def test_handshake_names_the_library_and_its_installed_version(lib):
    hs = lib.handshake
    version = importlib.metadata.version("rabbitmq-amqp-python-client")
    assert (hs.name, hs.impl_version, hs.role) == ("rabbitmq-amqp-python-client", version, "client-library")
    assert version == "1.0.1"        # the pin of pyproject.toml
    forms = ["queue", "exchange", "exchange-key"]
    assert hs.offers == {"operations": ["address"],
                         "address": {"target": [*forms, "null"], "source": ["queue"], "to": forms}}
    assert offers_problem(hs) is None
    assert hs.details == {"library": "rabbitmq-amqp-python-client==1.0.1",
                          "builder": "rabbitmq_amqp_python_client.AddressHelper"}


def test_the_documents_example_is_what_the_builder_makes(lib):
    assert address(lib, exchange="amq.direct", routing_key="my-routing_key/123") == \
        "/exchanges/amq.direct/my-routing_key%2F123"


def test_the_builders_answers_pass_through_unchanged(lib):
    assert address(lib, "source", queue="a/b ü") == "/queues/a%2Fb%20ü"           # ü: alphanumeric, kept
    assert address(lib, queue="€§🐇") == "/queues/%20AC%A7%1F407"                   # code points, not UTF-8
    assert address(lib, exchange="logs") == address(lib, exchange="logs", routing_key="") == "/exchanges/logs"
    assert address(lib, exchange="") == "/exchanges/" and address(lib, queue="") == "/queues/"


def test_a_messages_to_is_the_helpers_address_read_back_with_the_librarys_encoding(lib):
    from fixtures.kinds.address_amqp import Encoded, message_field
    res = lib.request("address", {"field": "to", "exchange": "amq.direct", "routing_key": "k/1 ü€"}, timeout=30)
    assert res["address"] == "/exchanges/amq.direct/k%2F1%20ü%20AC"      # AddressHelper's, unchanged
    encoded = base64.b64decode(res["encoded"])
    assert message_field(encoded, "to") == Encoded("string", res["address"])
    assert message_field(encoded, "reply-to") == Encoded("null")
    assert address(lib, "to", exchange="", routing_key="k") == "/exchanges//k"   # no refusal documented


def test_what_the_shim_does_not_offer_or_cannot_ask(lib):
    assert refusal(lib, {"field": "source", "exchange": "x"}).code == "not-offered"
    r = refusal(lib, {"field": "reply-to", "queue": "q"})
    assert r.code == "not-offered" and "no reply-to address" in r.reason
    r = refusal(lib, {"field": "target"})           # a publisher's target: only on an open connection
    assert r.code == "not-expressible" and "connection" in r.reason
    r = refusal(lib, {"field": "target", "queue": 5})
    assert r.code == "not-expressible" and "queue must be a string" in r.reason


def test_the_declared_library_is_this_shim():
    from fixtures.clients.registry import load
    (spec,) = [s for s in load() if s.name == "rabbitmq-amqp-python-client"]
    assert spec.argv() == COMMAND
