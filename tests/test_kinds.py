"""The kind registry (fixtures/vectordata/kinds.py) and the schema composed from its parts
(fixtures/vectordata/vectorschema.py): each kind is declared once, with a schema part, a lint and
what its tests run over; the parts compose without one silently replacing another."""
import json

import jsonschema
import pytest

from fixtures.plugin.collect import parametrized_over
from fixtures.vectordata import kinds as kinds
from fixtures.vectordata import vectorschema


def test_every_kind_declares_a_schema_part_a_lint_and_what_it_runs_over():
    assert set(kinds.ids()) >= {"encode", "decode", "behaviour", "om-message", "om-scenario", "om-fault"}
    for k in kinds.kinds():
        assert (kinds.SCHEMA_DIR / k.schema).is_file() and callable(k.checks) and k.over in kinds.OVER, k


def test_an_unknown_kind_is_named_with_the_known_ones():
    with pytest.raises(kinds.UnknownKind, match=r"'nope' \(registered: address, encode, decode"):
        kinds.get("nope")


def test_a_kind_is_registered_by_one_module_only(monkeypatch):
    kinds.ids()   # every module registered
    monkeypatch.setattr(kinds, "_KINDS", dict(kinds._KINDS))
    with pytest.raises(ValueError, match="registered by fixtures.kinds.codec_vectors and elsewhere"):
        kinds.register("encode", title="t", schema="codec_vectors.json", input=None, expect=None, checks=len,
                       over="codec", module="elsewhere")


def test_a_kind_over_something_unknown_or_naming_no_part_is_refused():
    with pytest.raises(ValueError, match="over .broker.; known: codec, client, target"):
        kinds.register("x", title="t", schema="codec_vectors.json", input=None, expect=None, checks=len,
                       over="broker", module="m")
    with pytest.raises(ValueError, match="names schema part 'missing.json'"):
        kinds.register("x", title="t", schema="missing.json", input=None, expect=None, checks=len,
                       over="codec", module="m")


def test_the_composed_schema_lists_every_kind_and_checks_each_by_its_part():
    schema = vectorschema.vector_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    vector = schema["$defs"]["vector"]
    assert vector["properties"]["kind"]["enum"] == kinds.ids()
    branches = {b["if"]["properties"]["kind"]["const"]: b["then"]["properties"] for b in vector["allOf"]}
    assert branches["encode"] == {"input": {"$ref": "#/$defs/encode_input"}, "expect": {"$ref": "#/$defs/expect_message"}}
    assert "roundtrip" not in branches   # it names no input or expect: any object


def test_a_definition_in_two_parts_is_an_error_naming_both(tmp_path, monkeypatch):
    part = json.loads((kinds.SCHEMA_DIR / "link_vectors.json").read_text())
    part["$defs"]["judges"] = {"type": "array"}   # also the common part's
    for other in kinds.SCHEMA_DIR.glob("*.json"):
        (tmp_path / other.name).write_text(other.read_text())
    (tmp_path / "link_vectors.json").write_text(json.dumps(part))
    monkeypatch.setattr(kinds, "SCHEMA_DIR", tmp_path)
    with pytest.raises(ValueError, match=r"link_vectors.json: \$defs/judges is also defined in vectors.schema.json"):
        vectorschema.vector_schema()


def test_only_the_fault_kind_faults_its_broker_and_it_runs_like_the_other_om_kinds():
    assert [k.id for k in kinds.kinds() if k.faults] == ["om-fault"]
    fault, scenario = kinds.get("om-fault"), kinds.get("om-scenario")
    same = ("over", "providers", "runs", "on_reach", "on_end", "pooled", "expect")
    assert {a: getattr(fault, a) for a in same} == {a: getattr(scenario, a) for a in same}
    assert fault.schema != scenario.schema and fault.input == "om_fault_input"


def test_the_hooks_are_called_once_each(monkeypatch):
    called = []
    monkeypatch.setattr(kinds, "entry", lambda ref: lambda *a: called.append((ref, a)))
    kinds.reached("session", "broker", "registry")
    refs = [k.on_reach for k in kinds.kinds() if k.on_reach]
    assert refs and [c[0] for c in called] == list(dict.fromkeys(refs))
    assert all(c[1] == ("session", "broker", "registry") for c in called)


def test_a_test_is_parametrized_over_what_its_kinds_run_over():
    assert parametrized_over("t", ["vector", "codec"], ["encode", "decode"]) == "codec"
    assert parametrized_over("t", ["vector", "broker", "target"], ["behaviour"]) == "target"
    assert parametrized_over("t", ["vector", "broker", "target", "provider"], ["om-message"]) == "target+provider"
    assert parametrized_over("t", ["vector"], []) == "plain"
    assert parametrized_over("t", ["vector", "client"], ["address"]) == "client"


@pytest.mark.parametrize("fixtures, taken, message", [
    (["vector", "codec"], ["encode", "behaviour"], "run over different things"),
    (["vector", "target"], ["encode"], "a test of kind encode takes `codec`"),
    (["vector", "target", "provider"], ["behaviour"], "no provider runs vectors of kind behaviour"),
    (["vector", "codec"], ["nope"], "no registered vector kind 'nope'"),
])
def test_a_test_that_does_not_take_what_its_kinds_need_is_a_collection_error(fixtures, taken, message):
    with pytest.raises(pytest.Collector.CollectError, match=message):
        parametrized_over("t.py::test", fixtures, taken)
