"""Blame by finding (fixtures/verdict/blame.py, docs/verdicts.md "Step roles"): a failed codec check blames
the clauses that govern the kinds of its findings, falls back to every clause it cites (saying so)
only for a kind none of them governs, and leaves the clauses of stopped checks without an outcome."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from fixtures.codecs.bindings import PROFILES
from fixtures.codecs.model import AmqpBody, AmqpMessage, Attr, Event, Typed
from fixtures.kinds.codec_checks import _judge, separator_controls
from fixtures.kinds.codec_match import event_mismatches, message_mismatches
from fixtures.verdict.blame import Finding, blame, blame_readings
from fixtures.verdict.outcomes import VectorFailed
from fixtures.verdict.verdicts import decide

PREFIX, SEP, TYPES, STRICT = ("ce-amqp/3.1.3.1/prefix", "ce-amqp/3.1.3.1/single-separator",
                              "ce-amqp/3.1.3.2/type-mapping", "ce-amqp/3.1.3.2/strict-outgoing")


def clause(level="MUST", governs=()):
    return SimpleNamespace(level=level, governs=tuple(governs), short_quote="q")


REGISTRY = SimpleNamespace(clauses={PREFIX: clause(governs=["prefix"]), SEP: clause(governs=["separator"]),
                                    TYPES: clause(governs=["value"]), STRICT: clause(governs=["value"]),
                                    "x/may": clause("MAY"), "x/plain": clause()})


def vector(clauses, alternatives=({"message": {}},), spec="ce-amqp", kind="encode"):
    return SimpleNamespace(id="v", description="d", clauses=tuple(clauses), alternatives=list(alternatives),
                           spec=spec, kind=kind, optional_feature=None)


def test_a_missing_prefix_blames_the_prefix_clause_and_an_absent_attribute_leaves_the_values_unjudged():
    b = blame(vector([TYPES, STRICT, PREFIX, SEP]), REGISTRY, {"prefix"})
    assert b.blamed == (PREFIX,) and b.passed == (TYPES, STRICT, SEP) and b.note == ""
    b = blame(vector([TYPES, STRICT, "x/plain"]), REGISTRY, {"absent"})   # x/plain governs nothing: fallback
    assert b.blamed == (TYPES, STRICT, "x/plain")
    REGISTRY.clauses["x/plain"] = clause(governs=["absent"])
    try:
        b = blame(vector([TYPES, STRICT, "x/plain"]), REGISTRY, {"absent"})
        assert b.blamed == ("x/plain",) and b.passed == ()               # the value checks never ran
    finally:
        REGISTRY.clauses["x/plain"] = clause()


def test_a_kind_no_cited_clause_governs_blames_every_clause_and_says_so():
    b = blame(vector([TYPES, STRICT]), REGISTRY, {"data"})
    assert b.blamed == (TYPES, STRICT) and "'data'" in b.note and "every clause" in b.note


def test_readings_blame_what_every_reading_blames():
    v = vector(["x/plain", PREFIX])
    REGISTRY.clauses["x/plain"] = clause(governs=["absent"])
    try:
        b = blame_readings(v, REGISTRY, [{"prefix"}, {"prefix", "absent"}])
        assert b.blamed == (PREFIX,) and b.passed == ()     # x/plain held under one reading only
    finally:
        REGISTRY.clauses["x/plain"] = clause()


def test_findings_have_kinds():
    profile = PROFILES["ce-amqp"]
    msg = AmqpMessage(application_properties={"cloudEvents_id": Typed("long", 1), "myext": Typed("string", "v"),
                                              "cloudEvents:type": Typed("string", "t")}, body=AmqpBody.of_bytes(b"x"))
    pattern = {"attributes": {"id": {"string": "1"}, "myext": {"string": "v"}, "source": {"string": "/s"}},
               "body": {"text": "y"}}
    found = message_mismatches(pattern, msg, profile)
    assert {f.kind for f in found} == {"value", "prefix", "absent", "separator", "data"}
    # the unprefixed myext's value (the codec wrote it) is judged too, and holds
    assert not any(f.kind == "value" and "myext" in f for f in found)
    wrong = {"attributes": {"myext": {"integer": 1}}}
    assert {f.kind for f in message_mismatches(wrong, msg, profile)} == {"prefix", "value", "separator"}
    got = event_mismatches({"attributes": {"id": "1", "n": {"integer": 1}}},
                           Event({"id": Attr("string", "1"), "extra": Attr("string", "e")}))
    assert {f.kind for f in got} == {"added", "absent"}
    with pytest.raises(ValueError):
        Finding("nonsense", "x")


def test_the_row_blames_by_finding_and_judges_nothing_the_finding_stopped():
    v = vector([TYPES, STRICT, PREFIX, SEP])
    with pytest.raises(VectorFailed) as info:
        _judge(v, REGISTRY, ("ok", None), lambda alt: [Finding("prefix", "attribute 'myint': present without a prefix")])
    row = decide(v, REGISTRY, info.value)
    assert row.outcome == "fail" and row.clause_outcomes == {TYPES: "pass", STRICT: "pass", PREFIX: "fail", SEP: "pass"}


def test_a_may_taken_with_a_wrong_result_fails_and_one_refused_is_unsupported():
    v = vector(["x/may"], alternatives=[{"event": {}}, {"error": "not relaxed"}], kind="decode")
    with pytest.raises(VectorFailed) as info:
        _judge(v, REGISTRY, ("ok", None), lambda alt: [Finding("value", "attribute 'myint': got string:'42'")])
    row = decide(v, REGISTRY, info.value)
    assert row.outcome == "fail" and "was taken" in row.message
    may_encode = vector(["x/may"])   # no refusal side: a result that does not hold is the permission not used
    with pytest.raises(VectorFailed) as info:
        _judge(may_encode, REGISTRY, ("ok", None), lambda alt: [Finding("value", "native value")])
    assert decide(may_encode, REGISTRY, info.value).outcome == "unsupported"


def test_a_mixed_separator_message_has_two_uniform_controls():
    v = SimpleNamespace(spec="ce-amqp", input={"message": {"application_properties": {
        "cloudEvents_specversion": {"string": "1.0"}, "cloudEvents:id": {"string": "M1"}, "other": {"int": 1}}}})
    controls = dict(separator_controls(v))
    assert controls["cloudEvents_"]["application_properties"] == {
        "cloudEvents_specversion": {"string": "1.0"}, "cloudEvents_id": {"string": "M1"}, "other": {"int": 1}}
    assert list(controls["cloudEvents:"]["application_properties"])[:2] == ["cloudEvents:specversion", "cloudEvents:id"]
    uniform = SimpleNamespace(spec="ce-amqp", input={"message": {"application_properties": {"cloudEvents_id": {}}}})
    assert separator_controls(uniform) == []
