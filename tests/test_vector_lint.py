"""The loader's lint (fixtures/vectordata/lint.py): each rule of docs/verdicts.md refused with FILE:LINE."""
import pytest
import yaml

from fixtures.vectordata.vectors import VectorError, load_vectors

CLAUSES = """\
spec: lint
revision: "1"
title: t
source: s.md
applies_to:
  - {product: rabbitmq, versions: ">=4.0", because: "RabbitMQ 4.0 introduces it."}
clauses:
  - {id: lint/a/must-one, section: a, level: MUST, quote: "One MUST."}
  - {id: lint/a/must-two, section: a, level: MUST NOT, quote: "Two MUST NOT."}
  - {id: lint/a/should, section: a, level: SHOULD, quote: "Three SHOULD."}
  - {id: lint/a/may-feature, section: a, level: MAY, quote: "Feature is OPTIONAL."}
  - id: lint/a/ambiguous
    section: a
    level: MUST
    quote: "The queue must exist."
    readings:
      - {name: refused, text: the attach is refused}
      - {name: precondition, text: a client precondition only}
  - id: lint/a/old
    section: a
    level: MUST
    quote: "In 4.0 it is permitted."
    applies_to: [{product: rabbitmq, versions: "4.0.*", because: "In 4.0 it is permitted."}]
"""



def attach(expect="attached", **more):
    return {"attach_sender": "/queues/{q|pct}", "expect": expect, **more}


def tree(tmp_path, clauses, steps, **extra):
    (tmp_path / "clauses").mkdir(parents=True)
    (tmp_path / "clauses" / "lint.yaml").write_text(CLAUSES)
    (tmp_path / "lint").mkdir()
    vector = {"id": "lint.t.one", "clauses": clauses, "kind": "behaviour", "status": "stable", "description": "d",
              **extra, "input": {"protocol": "amqp10", "names": {"q": "q"}}, "expect": {"steps": steps}}
    (tmp_path / "lint" / "t.yaml").write_text(yaml.safe_dump({"spec": "lint", "topic": "t", "vectors": [vector]},
                                                             sort_keys=False))
    return tmp_path


def error(tmp_path, *args, **kw) -> str:
    with pytest.raises(VectorError) as e:
        load_vectors(tree(tmp_path, *args, **kw))
    return str(e.value)


def test_a_vector_with_setup_and_checks_loads_and_ids_become_full(tmp_path):
    steps = [attach(), {"send": {"body": "m"}, "checks": [
        {"judges": ["a/must-one"], "expect": {"outcome": "accepted"}},
        {"judges": ["lint/a/must-two"], "expect": {"not": {"outcome": "modified"}}}]}]
    (v,) = load_vectors(tree(tmp_path, ["lint/a/must-one", "lint/a/must-two"], steps)).vectors
    assert v.level == "MUST"
    assert [c["judges"] for c in v.expect["steps"][1]["checks"]] == [["lint/a/must-one"], ["lint/a/must-two"]]


def test_mixed_levels_are_refused_with_file_and_line(tmp_path):
    msg = error(tmp_path, ["lint/a/must-one", "lint/a/should"], [attach(judges=["a/must-one", "a/should"])])
    assert "lint/t.yaml:" in msg and "'lint.t.one'" in msg and "mixes levels" in msg and "split it" in msg


def test_a_cited_clause_no_check_judges_is_refused(tmp_path):
    msg = error(tmp_path, ["lint/a/must-one", "lint/a/must-two"], [attach(judges=["a/must-one"])])
    assert "lint/a/must-two" in msg and "no check judges it" in msg


def test_judging_a_clause_the_vector_does_not_cite_is_refused(tmp_path):
    msg = error(tmp_path, ["lint/a/must-one"], [attach(judges=["a/must-two"])])
    assert "does not cite" in msg and "judges[0]" in msg


def test_a_vector_omitting_a_reading_of_its_clause_is_refused(tmp_path):
    msg = error(tmp_path, ["lint/a/ambiguous"], [attach({"refused": "any"}, judges=["a/ambiguous"])])
    assert "omits reading 'refused' of lint/a/ambiguous" in msg and "(and 1 more problem(s) in this vector)" in msg


def test_readings_are_covered_by_tags_or_the_vector_list(tmp_path):
    tagged = attach({"any_of": [{"is": {"refused": "any"}, "reading": "refused"},
                                {"is": "attached", "reading": "precondition"}]}, judges=["a/ambiguous"])
    load_vectors(tree(tmp_path / "1", ["lint/a/ambiguous"], [tagged]))
    listed = attach(judges=["a/ambiguous"])
    load_vectors(tree(tmp_path / "2", ["lint/a/ambiguous"], [listed], readings=["refused", "precondition"]))


def test_an_unknown_reading_tag_is_refused(tmp_path):
    step = attach({"any_of": [{"is": {"refused": "any"}, "reading": "refusd"},
                              {"is": "attached", "reading": "precondition"}]}, judges=["a/ambiguous"])
    assert "'refusd' is not a reading" in error(tmp_path, ["lint/a/ambiguous"], [step])


def test_a_must_clause_cannot_make_a_feature_optional(tmp_path):
    msg = error(tmp_path, ["lint/a/must-one"], [attach(judges=["a/must-one"])], optional_feature="a/must-two")
    assert "cannot end unsupported" in msg


def test_clauses_of_different_ranges_are_refused(tmp_path):
    msg = error(tmp_path, ["lint/a/must-one", "lint/a/old"], [attach(judges=["a/must-one", "a/old"])])
    assert "different products or versions" in msg


def test_a_setup_step_cannot_follow_a_reading(tmp_path):
    steps = [attach({"any_of": [{"is": "attached", "reading": "refused"}, "attached"]}),
             {"send": {"body": "m"}, "judges": ["a/must-one"], "expect": {"outcome": "accepted"}}]
    assert "a setup step" in error(tmp_path, ["lint/a/must-one"], steps)


def test_every_problem_is_listed_for_the_command(tmp_path):
    found = []
    load_vectors(tree(tmp_path, ["lint/a/must-one", "lint/a/should"], [attach()]), found)
    assert len(found) >= 3 and all("lint/t.yaml:" in p for p in found)
