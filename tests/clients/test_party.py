"""Who a clause binds (`party` in the clause files): loaded and checked by the registry, kept by the
lint (a kind's vectors cite their party's clauses), and deciding applicability and coverage."""
from __future__ import annotations

import copy

import pytest

from fixtures.vectordata.lint import lint
from fixtures.vectordata.registry import RegistryError, load_registry
from fixtures.verdict.applicability import party_excludes, require
from fixtures.verdict.outcomes import NotApplicable
from reports.views.coverage_rule import coverage
from tests.paths import VECTORS

REGISTRY = load_registry(VECTORS / "clauses")
SPEC = "rabbitmq-address@4.0"

FILE = """spec: lint
revision: "1"
title: t
source: s.md
clauses:
  - id: lint/a/one
    section: a
    level: MUST
    quote: "The queue must exist."
    party: PARTY
  - id: lint/a/two
    section: a
    level: MUST
    quote: "Clients must encode."
    party: client
"""


def test_both_address_documents_say_who_every_clause_binds():
    for spec in (SPEC, "rabbitmq-address@pr10873"):
        assert all(c.parties for c in REGISTRY.specs[spec].clauses), spec
    c = REGISTRY.clauses
    assert c[f"{SPEC}/addresses/clients-should-use-v2"].parties == ("client",)
    assert c[f"{SPEC}/percent-encoding/names-percent-encoded"].parties == ("broker", "client")
    assert c[f"{SPEC}/outcomes/sender-accepted"].parties == ("broker",)
    assert not any(cl.parties for cl in REGISTRY.specs["ce-amqp"].clauses)      # a file stating none


def test_party_is_a_known_party_and_on_every_clause_of_a_file_or_none(tmp_path):
    (tmp_path / "lint.yaml").write_text(FILE.replace("PARTY", "[broker, client]"))
    assert load_registry(tmp_path).clauses["lint/a/one"].parties == ("broker", "client")
    (tmp_path / "lint.yaml").write_text(FILE.replace("PARTY", "server"))
    with pytest.raises(RegistryError, match="lint.yaml"):
        load_registry(tmp_path)
    (tmp_path / "lint.yaml").write_text(FILE.replace("    party: PARTY\n", ""))
    with pytest.raises(RegistryError, match="'lint/a/one'.*state it on every one"):
        load_registry(tmp_path)


def test_a_clause_binds_only_its_parties():
    assert party_excludes(("broker",), "broker") is None
    assert party_excludes(("broker", "client"), "client-library") is None
    assert party_excludes((), "client-library") is None and party_excludes(("broker",), "codec") is None
    why = party_excludes(("broker",), "client-library", "The queue must exist.")
    assert why == 'the clause binds the broker, not a client-library (its party is the client): "The queue must exist."'


class _V:
    def __init__(self, clauses):
        self.clauses = tuple(clauses)


def test_a_client_library_is_described_by_the_40_document_and_judged_on_the_clients_clauses():
    require(_V([f"{SPEC}/addresses/clients-should-use-v2"]), REGISTRY, "rabbitmq-amqp-java-client", "0.9.0",
            "client-library")
    with pytest.raises(NotApplicable, match="binds the broker, not a client-library"):
        require(_V([f"{SPEC}/outcomes/sender-accepted"]), REGISTRY, "rabbitmq-amqp-java-client", "0.9.0", "client-library")
    with pytest.raises(NotApplicable, match="binds the client, not a broker"):
        require(_V([f"{SPEC}/addresses/clients-should-use-v2"]), REGISTRY, "rabbitmq", "4.0.5", "broker")
    # the draft describes development builds of RabbitMQ 4.0.0 only, no client library
    with pytest.raises(NotApplicable, match="the text describes rabbitmq 4.0.0-"):
        require(_V(["rabbitmq-address@pr10873/target-v2/queue"]), REGISTRY, "rabbitmq-amqp-java-client", "0.9.0",
                "client-library")


VECTOR = {"id": "x.client.v", "clauses": [f"{SPEC}/addresses/clients-should-use-v2"], "kind": "address",
          "status": "stable", "description": "d", "input": {"field": "target", "queue": "q"},
          "expect": {"address": "/queues/{queue}"}}


def test_the_lint_keeps_a_kind_to_its_partys_clauses():
    assert lint(copy.deepcopy(VECTOR), SPEC, REGISTRY) == []
    broker_only = {**copy.deepcopy(VECTOR), "clauses": [f"{SPEC}/target-v2/queue-must-exist"],
                   "readings": ["broker-refuses", "client-precondition"]}
    problems = lint(broker_only, SPEC, REGISTRY)
    assert any("binds the broker: a address vector judges the client" in m for _, m in problems)


def test_the_address_lint_keeps_its_names_honest():
    odd = {**copy.deepcopy(VECTOR), "input": {"field": "target", "queue": "a/b"}}
    assert any("outside RFC 3986 `unreserved`" in m for _, m in lint(odd, SPEC, REGISTRY))
    source_exchange = {**copy.deepcopy(VECTOR), "input": {"field": "source", "exchange": "x"},
                       "expect": {"address": "/exchanges/{exchange}"}}
    assert any("a source address is a queue's" in m for _, m in lint(source_exchange, SPEC, REGISTRY))
    unknown = {**copy.deepcopy(VECTOR), "expect": {"address": "/queues/{exchange}"}}
    assert any("{exchange} names no name of the input" in m for _, m in lint(unknown, SPEC, REGISTRY))
    encoding = {**copy.deepcopy(VECTOR), "clauses": [f"{SPEC}/percent-encoding/names-percent-encoded"]}
    # the judge follows the client readings; the broker's two must be listed
    omitted = sorted(m.split("'")[1] for _, m in lint(copy.deepcopy(encoding), SPEC, REGISTRY) if "omits reading" in m)
    assert omitted == ["refuse-unencoded", "take-as-is"]
    encoding["readings"] = ["refuse-unencoded", "take-as-is"]
    assert lint(encoding, SPEC, REGISTRY) == []


def test_coverage_counts_only_the_clauses_of_the_implementations_party():
    from reports.views import clauses
    loaded = clauses.load()
    client = {"name": "lib", "kind": "client-library", "product": "lib", "version": "1.0"}
    broker = {"name": "rabbitmq-4.0.5", "kind": "broker", "product": "rabbitmq", "version": "4.0.5"}
    for_client, for_broker = coverage(SPEC, client, {}, loaded), coverage(SPEC, broker, {}, loaded)
    assert f"{SPEC}/outcomes/sender-accepted" in for_client["not_applicable"]
    assert f"{SPEC}/outcomes/sender-accepted" not in for_broker["not_applicable"]
    assert f"{SPEC}/percent-encoding/reply-to-field" in for_broker["not_applicable"]
    judged_by_client = {j["clause_id"] for j in for_client["not_judged"]}
    assert f"{SPEC}/percent-encoding/names-percent-encoded" in judged_by_client   # no row given here
    assert for_client["applying"] < for_broker["applying"]
