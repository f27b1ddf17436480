"""RabbitMQ's AMQP 1.0 client for Java (com.rabbitmq.client:amqp-client) behind its shim
(shims/rabbitmq-amqp-java), role `client-library`: the handshake, address requests answered by the
library's own builder (DefaultAddressBuilder, through its factory Utils.addressBuilder(); a message's
`to` / `reply-to` through Message.toAddress() / replyToAddress(), read back with the library's
encoding of the message; a publisher's target given no destination from AmqpPublisherBuilder), and
its documented refusal. Skipped without Maven and Java (the shim is built on the host and cached by its
sources).

What 0.9.0 does is read from its sources: UriUtils.encodePathSegment encodes the UTF-8 octets of a
name, keeping RFC 3986 `pchar` (unreserved, sub-delims, ':' and '@') as they stand, others as %XX
with uppercase hex digits; DefaultAddressBuilder.exchange("") throws IllegalArgumentException, and an
empty or absent key makes the 2nd format."""
from __future__ import annotations

import base64
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from fixtures.clients.library import offers_problem
from tests.process.client_shim import address, refusal, started

ROOT = Path(__file__).resolve().parents[2]
SHIM_DIR = "shims/rabbitmq-amqp-java"
MAIN = "mqconform.amqpaddress.Main"

pytestmark = pytest.mark.skipif(shutil.which("mvn") is None or shutil.which("java") is None,
                                reason="Maven and Java build and run the RabbitMQ AMQP Java shim")


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    from fixtures.process.shims import java_command
    yield from started(java_command(SHIM_DIR, MAIN), tmp_path_factory, "rabbitmq-amqp-java", handshake_s=120)


def pinned() -> str:
    pom = ET.parse(ROOT / SHIM_DIR / "pom.xml").getroot()
    ns = {"m": "http://maven.apache.org/POM/4.0.0"}
    return pom.find("m:properties/m:amqp-client.version", ns).text


def test_handshake_names_the_library_and_its_pinned_version(lib):
    hs = lib.handshake
    assert (hs.name, hs.impl_version, hs.role) == ("rabbitmq-amqp-java-client", pinned(), "client-library")
    assert hs.impl_version == "0.9.0"
    forms = ["queue", "exchange", "exchange-key"]
    assert offers_problem(hs) is None and hs.offers["address"] == {"target": [*forms, "null"], "source": ["queue"],
                                                                   "to": forms, "reply-to": forms}
    assert hs.details["library"] == "com.rabbitmq.client:amqp-client:0.9.0"


def test_the_documents_example_is_what_the_builder_makes(lib):
    assert address(lib, exchange="amq.direct", routing_key="my-routing_key/123") == \
        "/exchanges/amq.direct/my-routing_key%2F123"


def test_the_builders_answers_pass_through_unchanged(lib):
    assert address(lib, "source", queue="a/b ü€🐇") == "/queues/a%2Fb%20%C3%BC%E2%82%AC%F0%9F%90%87"
    assert address(lib, queue="a!$&'()*+,;=:@b") == "/queues/a!$&'()*+,;=:@b"      # pchar kept
    assert address(lib, exchange="logs", routing_key="") == "/exchanges/logs"
    assert address(lib, queue="") == "/queues/"


def test_the_default_exchange_is_the_builders_documented_refusal(lib):
    r = refusal(lib, {"field": "target", "exchange": "", "routing_key": "k"})
    assert r.code == "rejected"
    assert r.reason == ("java.lang.IllegalArgumentException: The default exchange is not allowed, use the queue "
                        "format instead")


def test_a_messages_to_and_reply_to_are_the_message_builders_read_back_with_the_librarys_encoding(lib):
    from fixtures.kinds.address_amqp import Encoded, message_field
    for fld, other in (("to", "reply-to"), ("reply-to", "to")):
        res = lib.request("address", {"field": fld, "queue": "a/b ü€"}, timeout=30)
        assert res["address"] == "/queues/a%2Fb%20%C3%BC%E2%82%AC"
        encoded = base64.b64decode(res["encoded"])
        assert message_field(encoded, fld) == Encoded("string", res["address"])
        assert message_field(encoded, other) == Encoded("null")
    assert address(lib, "to", exchange="logs", routing_key="") == "/exchanges/logs"
    r = refusal(lib, {"field": "reply-to", "exchange": ""})
    assert r.code == "rejected" and "default exchange is not allowed" in r.reason


def test_a_publisher_given_no_destination_has_the_null_target(lib):
    assert lib.request("address", {"field": "target"}, timeout=30) == {"address": None}


def test_what_the_shim_does_not_offer(lib):
    assert refusal(lib, {"field": "source", "exchange": "x"}).code == "not-offered"
    assert refusal(lib, {"field": "subject", "queue": "q"}).code == "not-offered"
    assert refusal(lib, {"field": "to"}).code == "not-offered"


def test_the_declared_library_names_this_shim():
    from fixtures.process.shims import client_shims
    assert ("rabbitmq-amqp-java-client", SHIM_DIR) in client_shims()
