"""The two-witness rule (fixtures/links/witnesses.py) and how a row takes it (fixtures/links/second.py): a
broker failure stands only where both AMQP 1.0 clients see it; a client that cannot express the vector
or see the deciding step is no witness, and the first verdict stands alone, saying so; clients that
disagree make the row the clients' (an adapter error naming what each saw). Pure: no broker, no process."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from fixtures.links import client as link_client
from fixtures.links import second, witnesses
from fixtures.links.witnesses import Account
from fixtures.verdict.outcomes import AdapterLimitation, Findings, NotJudged, Step, VectorFailed

PROTON, GO = "python-qpid-proton 0.39.0", "go-amqp 0.17.0"
CLAUSES = ("rabbitmq-address@4.0/outcomes/sender-released-unroutable",)
RELEASED = "step 2 (send: {'body': 'm1'}): expected outcome released; got outcome accepted"


def fail(client, step=2, clauses=CLAUSES, saw=RELEASED, **kw):
    return Account(client, "fail", step, clauses, saw=saw, **kw)


def test_rows_that_fail_or_err_or_depend_on_the_client_run_again():
    sends = [{"attach_sender": "/queues/q"}, {"send": {"body": "m1"}}]
    receives = sends + [{"attach_receiver": "/queues/q"}, {"receive": None}, {"settle": "released"}]
    assert witnesses.why_second(sends, fail(PROTON)) == "the first client saw a failure"
    assert "(precondition)" in witnesses.why_second(sends, Account(PROTON, "error", 1, error_kind="precondition"))
    assert witnesses.why_second(sends, Account(PROTON, "error", 1, error_kind="target")) is None   # the broker died
    assert witnesses.why_second(sends, Account(PROTON, "pass")) is None
    why = witnesses.why_second(receives, Account(PROTON, "pass"))
    assert why.startswith("the outcome depends on client behaviour") and "settles the delivery" in why


def test_a_failure_both_clients_see_stands():
    d = witnesses.decide(fail(PROTON), fail(GO, saw="... got outcome not rejected (go-amqp ...)"), "why")
    assert d.rule == "both-saw" and d.stands and PROTON in d.message and GO in d.message
    assert [a["client"] for a in d.record["accounts"]] == [PROTON, GO] and d.record["why_second"] == "why"


def test_a_seeded_disagreement_is_the_clients_naming_what_each_saw():
    d = witnesses.decide(fail(PROTON), Account(GO, "pass"), "the first client saw a failure")
    assert d.rule == "disagree" and not d.stands
    assert "the clients', not the broker's" in d.message
    assert f"{PROTON} saw fail at step 2: {RELEASED}" in d.message and f"{GO} saw every check held" in d.message


@pytest.mark.parametrize("other", [
    fail(GO, step=3),                                              # another step decided it
    fail(GO, clauses=("rabbitmq-address@4.0/outcomes/sender-never-modified",)),
    Account(GO, "error", 2, error_kind="precondition", saw="the setup attach was refused"),
])
def test_failures_that_are_not_the_same_disagree(other):
    assert witnesses.decide(fail(PROTON), other, "why").rule == "disagree"


def test_a_second_client_that_cannot_express_the_vector_leaves_the_first_verdict_alone():
    d = witnesses.decide(fail(PROTON), Account(GO, "limit", 5, saw="go-amqp cannot express it: ..."), "why")
    assert d.rule == "second-limit" and d.stands and "stands alone" in d.message


WHY = "go-amqp does not say which of accepted, released, modified settled the send"
NEVER_MODIFIED = "rabbitmq-address@4.0/outcomes/sender-never-modified"


def test_a_deciding_step_the_second_client_could_not_see_is_its_limit():
    blind = Account(GO, "pass", unseen=((2, WHY, CLAUSES),))
    d = witnesses.decide(fail(PROTON), blind, "why")
    assert d.rule == "second-limit" and d.stands and "could not see step 2" in d.message
    assert d.record["accounts"][1]["unseen"] == [f"step 2 (the check of {CLAUSES[0]}): {WHY}"]
    setup = Account(GO, "pass", unseen=((2, WHY, ()),))       # a setup step: all of it unseen
    pre = Account(PROTON, "error", 2, error_kind="precondition", saw="expected outcome accepted; got released")
    assert witnesses.decide(pre, setup, "why").rule == "second-limit"


def test_a_check_the_second_client_could_not_see_leaves_the_others_of_its_step_to_compare():
    both = fail(PROTON, clauses=(CLAUSES[0], NEVER_MODIFIED))
    go = fail(GO, clauses=(CLAUSES[0],), unseen=((2, WHY, (NEVER_MODIFIED,)),))
    assert witnesses.decide(both, go, "why").rule == "both-saw"
    assert witnesses.decide(both, Account(GO, "pass", unseen=((2, WHY, (NEVER_MODIFIED,)),)), "why").rule == "disagree"


@pytest.mark.parametrize("kind", ["harness", "target", "observation"])
def test_a_second_run_that_broke_apart_from_the_broker_is_no_witness(kind):
    d = witnesses.decide(fail(PROTON), Account(GO, "error", 3, error_kind=kind), "why")
    assert d.rule == "second-absent" and d.stands


@pytest.mark.parametrize("first", [Account(PROTON, "pass"), fail(PROTON)], ids=["first-passed", "first-failed"])
@pytest.mark.parametrize("second_run", [Account(GO, "fail", None, saw="sending a message: refused: attach sender"),
                                        Account(GO, "error", None, error_kind="precondition", saw="sending is setup"),
                                        Account(GO, "unsupported", None, saw="sending a message: refused")],
                         ids=["fail-in-setup", "error-in-setup", "unsupported-in-setup"])
def test_a_second_run_that_ended_in_its_setup_is_no_witness(first, second_run):
    # Broker-J refused go-amqp 0.17.0's sender attach (a null source) before any check of an
    # OpenMessaging row: it saw nothing of what the first client's run was judged on.
    d = witnesses.decide(first, second_run, "why")
    assert d.rule == "second-limit" and d.stands and "ended in its setup" in d.message


def test_a_pass_the_second_client_fails_is_a_disagreement_and_errors_of_one_kind_agree():
    assert witnesses.decide(Account(PROTON, "pass"), fail(GO), "client").rule == "disagree"
    pre = Account(PROTON, "error", 1, error_kind="precondition")
    assert witnesses.decide(pre, Account(GO, "error", 1, error_kind="precondition"), "why").rule == "both-saw"


# ---- the row (second.run_witnessed), the first and second runs seeded -----------------------------------

VECTOR = SimpleNamespace(id="rabbitmq-address@4.0.outcomes-sender.released-unroutable-v2", clauses=list(CLAUSES),
                         expect={"steps": [{"attach_sender": "/exchanges/x/k", "expect": "attached"},
                                           {"send": {"body": "m1"}, "judges": list(CLAUSES), "expect": {"outcome": "released"}}]})


def seeded(monkeypatch, second_account):
    def first_run(vector, broker, registry):
        found = Findings(notes=["a note of the first run"])
        raise VectorFailed(f"{vector.id}: ...\n{RELEASED}", clauses=list(CLAUSES), step=Step("send", "check", CLAUSES, 2),
                           findings=found)
    monkeypatch.setattr(second.links, "run_behaviour", first_run)
    monkeypatch.setattr(second, "run_second", lambda vector, broker, registry, spec: second_account)


def test_a_seeded_disagreement_makes_the_row_an_adapter_error_with_both_accounts(monkeypatch):
    seeded(monkeypatch, Account(GO, "pass", passed=frozenset()))
    with pytest.raises(AdapterLimitation) as info:
        second.run_witnessed(VECTOR, broker=None, registry=None)
    exc = info.value
    assert exc.kind == "adapter" and exc.step.index == 2
    assert "disagree" in str(exc) and "saw fail at step 2" in str(exc) and f"{GO} saw every check held" in str(exc)
    w = exc.findings.witnesses
    assert w["rule"] == "disagree" and [a["outcome"] for a in w["accounts"]] == ["fail", "pass"]


def test_a_seeded_agreement_keeps_the_failure_and_notes_both(monkeypatch):
    seeded(monkeypatch, fail(GO))
    with pytest.raises(VectorFailed) as info:
        second.run_witnessed(VECTOR, broker=None, registry=None)
    found = info.value.findings
    assert found.witnesses["rule"] == "both-saw" and any("seen by both clients" in n for n in found.notes)


def test_with_one_client_nothing_runs_again(monkeypatch):
    seeded(monkeypatch, None)
    with pytest.raises(VectorFailed) as info:
        second.run_witnessed(VECTOR, broker=None, registry=None, engaged=False)
    assert info.value.findings.witnesses is None


# ---- an outcome the second client does not name ------------------------------------------------------------

def blind_run():
    run = object.__new__(second._SecondRun)
    run.names, run.findings, run.unseen, run.left_out, run.client = {}, Findings(), [], {}, GO
    return run


UNSAID = link_client.Unsaid("accepted", possible=("accepted", "released", "modified"), client=GO)


def test_an_unnamed_outcome_is_judged_where_every_possible_state_judges_alike():
    run = blind_run()
    step = {"send": {"body": "m1"}, "judges": list(CLAUSES), "expect": {"outcome": "rejected"}}
    assert run._unsaid(1, step, "send", step["send"], UNSAID) == ("outcome", UNSAID)   # none of them is rejected
    assert run.unseen == [] and "not rejected" in str(UNSAID)


def test_a_check_that_tells_the_possible_states_apart_is_unseen_and_judges_nothing():
    run = blind_run()
    step = {"send": {"body": "m1"}, "checks": [{"judges": [NEVER_MODIFIED], "expect": {"not": {"outcome": "modified"}}}]}
    assert run._unsaid(1, step, "send", step["send"], UNSAID) is None
    assert run.unseen == [(2, WHY.replace("go-amqp", GO), (NEVER_MODIFIED,))]


def test_the_checks_of_a_step_the_possible_states_judge_alike_are_still_judged():
    run = blind_run()
    step = {"send": {"body": "m1"}, "checks": [{"judges": list(CLAUSES), "expect": {"outcome": "rejected"}},
                                               {"judges": [NEVER_MODIFIED], "expect": {"not": {"outcome": "modified"}}}]}
    assert run._unsaid(1, step, "send", step["send"], UNSAID) == ("outcome", UNSAID)
    assert run.checks_of(1, step) == [({"outcome": "rejected"}, list(CLAUSES))]


def test_a_setup_step_that_tells_them_apart_goes_on_as_the_vector_expects():
    run = blind_run()
    step = {"send": {"body": "m1"}, "expect": {"outcome": "accepted"}}
    kind, outcome = run._unsaid(0, step, "send", step["send"], UNSAID)
    assert kind == "outcome" and outcome.state == "accepted" and run.unseen[0][0] == 1


def test_a_delivery_the_client_settled_itself_may_only_be_settled_so_next():
    run = blind_run()
    run.client_settled, run.vector = 4, VECTOR
    with pytest.raises(AdapterLimitation, match="leaves it unsettled until step 6"):
        run.step(5, {"settle": "released", "judges": list(CLAUSES)})
    with pytest.raises(NotJudged):   # the client's limit, never a crash of the broker
        run.step(5, {"receive": None, "expect": "none"})
