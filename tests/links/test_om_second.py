"""The two-witness rule applied to OpenMessaging rows over AMQP 1.0 (fixtures/links/om_second.py), the
first and second runs seeded: the rule is witnesses.decide, made the row's by second.applied."""
from __future__ import annotations

import pytest

from fixtures.links import om_second
from fixtures.links.witnesses import Account
from fixtures.vectordata.vectors import load_vectors
from fixtures.verdict.outcomes import AdapterLimitation, Findings, Step, VectorFailed
from tests.paths import VECTORS as VECTORS_DIR

GO = "go-amqp 0.17.0 (mqconform's AMQP 1.0 mapping)"
CLAUSES = ("openmessaging/system-header/store-timestamp-required",)
VECTORS = load_vectors(VECTORS_DIR)
REGISTRY = VECTORS.registry
STORE = next(v for v in VECTORS.vectors if v.id == "openmessaging.system-header.store-timestamp")
COUNTS = next(v for v in VECTORS.vectors if v.id == "openmessaging.system-header.delivery-count-counts")


def first_fails():
    raise VectorFailed("check 1 (header.storeTimestamp): storeTimestamp: absent", clauses=list(CLAUSES),
                       step=Step("check header.storeTimestamp", "check", CLAUSES, 1), findings=Findings())


def seed(monkeypatch, second_account):
    ran = []

    def run_second(vector, broker, registry):
        ran.append(vector.id)
        return second_account, [f"{GO}: sends: not rejected"]
    monkeypatch.setattr(om_second, "run_second", run_second)
    return ran


def test_a_broker_failure_both_clients_see_stands_with_both_accounts(monkeypatch):
    seed(monkeypatch, Account(GO, "fail", 1, CLAUSES, saw="storeTimestamp: absent"))
    with pytest.raises(VectorFailed) as info:
        om_second.witnessed(first_fails, STORE, None, REGISTRY, "amqp10")
    found = info.value.findings
    assert found.witnesses["rule"] == "both-saw"
    assert [a["outcome"] for a in found.witnesses["accounts"]] == ["fail", "fail"]
    assert any("seen by both clients" in n for n in found.notes) and any("not rejected" in n for n in found.notes)


def test_go_amqp_seeing_the_broker_do_it_right_makes_the_row_the_clients_naming_which(monkeypatch):
    seed(monkeypatch, Account(GO, "pass"))
    with pytest.raises(AdapterLimitation) as info:
        om_second.witnessed(first_fails, STORE, None, REGISTRY, "amqp10")
    exc = info.value
    assert exc.kind == "adapter" and exc.step.index == 1 and exc.findings.witnesses["rule"] == "disagree"
    assert "python-qpid-proton" in str(exc) and f"{GO} saw every check held" in str(exc)


def test_a_fact_the_second_client_could_not_observe_leaves_one_witness(monkeypatch):
    seed(monkeypatch, Account(GO, "limit", saw="not observed by the second client: mode second refused"))
    with pytest.raises(VectorFailed) as info:
        om_second.witnessed(first_fails, STORE, None, REGISTRY, "amqp10")
    w = info.value.findings.witnesses
    assert w["rule"] == "second-limit" and "not observed by the second client" in w["accounts"][1]["saw"]


def test_a_pass_runs_again_only_where_the_client_settles_the_fact(monkeypatch):
    ran = seed(monkeypatch, Account(GO, "pass"))
    assert om_second.witnessed(lambda: ({}, Findings()), STORE, None, REGISTRY, "amqp10")[1].witnesses is None
    figures, found = om_second.witnessed(lambda: ({}, Findings()), COUNTS, None, REGISTRY, "amqp10")
    assert ran == [COUNTS.id] and found.witnesses["rule"] == "both-saw"


def test_other_protocols_and_one_client_run_once(monkeypatch):
    ran = seed(monkeypatch, Account(GO, "pass"))
    for protocol, engaged in (("amqp091", True), ("amqp10", False)):
        with pytest.raises(VectorFailed) as info:
            om_second.witnessed(first_fails, STORE, None, REGISTRY, protocol, engaged=engaged)
        assert info.value.findings.witnesses is None
    assert ran == []
