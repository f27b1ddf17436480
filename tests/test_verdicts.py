"""verdicts.decide: what a test body raised -> the row's outcome, per-clause outcomes and failed step."""
from dataclasses import dataclass

import pytest

from fixtures.vectordata.registry import Clause, Registry
from fixtures.verdict import verdicts
from fixtures.verdict.expectations import Expectation
from fixtures.verdict.outcomes import (
    AdapterLimitation,
    Findings,
    NotApplicable,
    ObservationFailed,
    PreconditionFailed,
    Step,
    Unsupported,
    VectorFailed,
)

MUST_A, MUST_B, MAY_F, SHOULD_F = "s/x/must-a", "s/x/must-b", "s/x/may-feature", "s/x/should-feature"
REGISTRY = Registry({}, {c.id: c for c in (
    Clause(MUST_A, "s", "x", "MUST", "A must."), Clause(MUST_B, "s", "x", "MUST NOT", "B must not."),
    Clause(MAY_F, "s", "x", "MAY", "F is OPTIONAL."), Clause(SHOULD_F, "s", "x", "SHOULD", "F should be offered."))}, ())


@dataclass
class V:
    clauses: tuple
    optional_feature: str | None = None
    kind: str = "behaviour"
    id: str = "s.v"
    description: str = "d"


def decide(exc, clauses=(MUST_A, MUST_B), **kw):
    return verdicts.decide(V(tuple(clauses), **kw), REGISTRY, exc)


def test_pass_passes_every_clause():
    v = decide(None)
    assert (v.outcome, v.clause_outcomes, v.failed_step) == ("pass", {MUST_A: "pass", MUST_B: "pass"}, None)


def test_a_failed_check_blames_only_its_clauses_and_keeps_earlier_passes():
    f = Findings(passed={MUST_B})
    exc = VectorFailed("x", clauses=[MUST_A], step=Step("send", "check", (MUST_A,), 2), findings=f)
    v = decide(exc)
    assert v.outcome == "fail" and v.blamed == [MUST_A]
    assert v.clause_outcomes == {MUST_A: "fail", MUST_B: "pass"}
    assert v.failed_step == {"index": 2, "action": "send", "role": "check", "clause_ids": [MUST_A]}


def test_a_clause_whose_checks_did_not_all_run_gets_no_outcome():
    v = decide(VectorFailed("x", clauses=[MUST_A]))
    assert v.clause_outcomes == {MUST_A: "fail"}


def test_a_check_blaming_a_clause_the_vector_does_not_cite_is_a_harness_error():
    v = decide(VectorFailed("x", clauses=[MAY_F]))
    assert (v.outcome, v.error_kind) == ("error", "harness")


@pytest.mark.parametrize("exc, kind", [(PreconditionFailed("attach refused"), "precondition"),
                                       (ObservationFailed("basic.get closed 541"), "observation"),
                                       (AdapterLimitation("client cannot"), "adapter"),
                                       (TypeError("our bug"), "harness")])
def test_unjudged_rows_are_errors_with_a_kind_and_blame_nothing(exc, kind):
    v = decide(exc)
    assert (v.outcome, v.error_kind, v.blamed) == ("error", kind, [])
    assert set(v.clause_outcomes.values()) == {"error"}


def test_a_crash_is_not_a_fail():
    v = decide(KeyError("k"))
    assert v.outcome == "error" and "KeyError" in v.message


def test_unsupported_only_on_the_optional_clause_itself():
    v = decide(Unsupported("no priority", feature=MAY_F), clauses=(MAY_F,))
    assert (v.outcome, v.clause_outcomes) == ("unsupported", {MAY_F: "unsupported"})


def test_a_may_check_that_does_not_hold_is_unsupported_not_failed():
    v = decide(VectorFailed("not shown", clauses=[MAY_F]), clauses=(MAY_F,))
    assert (v.outcome, v.clause_outcomes) == ("unsupported", {MAY_F: "unsupported"})
    assert v.message.startswith("the permitted (MAY) behaviour was not shown")


def test_a_crash_on_a_may_check_fails():
    # a crash is neither what a MAY permits nor a refusal
    v = decide(VectorFailed("connection closed: amqp:internal-error", clauses=[MAY_F], crashed=True), clauses=(MAY_F,))
    assert (v.outcome, v.clause_outcomes) == ("fail", {MAY_F: "fail"})


def test_a_missing_should_feature_fails_the_should_clause():
    v = decide(Unsupported("no structured mode", feature=SHOULD_F), clauses=(SHOULD_F,))
    assert (v.outcome, v.blamed) == ("fail", [SHOULD_F])


def test_vectors_binding_only_where_the_feature_is_offered_are_not_applicable():
    v = decide(Unsupported("no priority", feature=MAY_F), optional_feature=MAY_F)
    assert v.outcome == "not_applicable" and "F is OPTIONAL." in v.message


@pytest.mark.parametrize("feature", [None, MUST_A, MAY_F])
def test_unsupported_without_a_declared_textual_basis_is_never_unsupported(feature):
    # no clause, a MUST clause, or an optional clause the vector does not declare
    v = decide(Unsupported("lacks it", feature=feature))
    assert (v.outcome, v.error_kind) == ("error", "harness")


def test_not_applicable():
    assert decide(NotApplicable("other product")).outcome == "not_applicable"


def test_expectations_turn_fail_into_xfail_and_pass_into_xpass_but_leave_errors():
    known = Expectation("impl", "s.v", None, "known", None, None, "f:0")
    v = decide(VectorFailed("x", clauses=[MUST_A]))
    assert verdicts.apply_expectation(v, known) == "fail"
    assert (v.outcome, v.clause_outcomes) == ("xfail", {MUST_A: "xfail"})
    p = decide(None)
    verdicts.apply_expectation(p, known)
    assert p.outcome == "xpass" and set(p.clause_outcomes.values()) == {"xpass"}
    e = decide(PreconditionFailed("setup"))
    verdicts.apply_expectation(e, known)
    assert e.outcome == "error"


def test_findings_reach_the_row():
    f = Findings(notes=["bornTimestamp: set by mqconform's mapping; carried intact"], set_by={"bornTimestamp": "mapping"})
    v = verdicts.decide(V((MUST_A,)), REGISTRY, None, f)
    assert v.notes == f.notes and v.set_by == {"bornTimestamp": "mapping"}


def test_an_interrupted_error_says_so_and_keeps_what_the_vector_saw_as_a_pointer():
    from fixtures.verdict.verdicts import RowVerdict, interrupted

    seen = RowVerdict("error", "404 no such container\n  at frame 1", {"c": "error"}, error_kind="adapter")
    row = interrupted(seen)
    assert row.error_kind == "interrupted" and row.outcome == "error" and row.clause_outcomes == {"c": "error"}
    assert row.message.startswith("interrupted: the run was stopped")
    assert row.message.endswith("(the vector then saw: 404 no such container)")
    assert seen.error_kind == "adapter"      # the verdict it was made from is not changed
