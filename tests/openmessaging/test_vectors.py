"""The OpenMessaging vectors load (schema, the general lint and the OpenMessaging lint) and cover
every testable clause; the lint refuses a vector that could end unsupported on a MUST."""
import shutil

import pytest

from fixtures.openmessaging.scenarios import SCENARIOS
from fixtures.vectordata.vectors import VectorError, load_vectors
from tests.paths import ROOT


def test_every_testable_clause_has_a_vector(om_vectors):
    covered = {c for v in om_vectors.by_spec("openmessaging") for c in v.clauses}
    testable = {c.id for c in om_vectors.registry.specs["openmessaging"].clauses if c.testable}
    assert testable - covered == set()


def test_no_problem_in_the_tree(om_tree):
    found: list[str] = []
    load_vectors(om_tree, found)
    assert found == []


def test_scenarios_named_by_vectors_exist(om_vectors):
    for kind in ("om-scenario", "om-fault"):
        for v in om_vectors.by_spec("openmessaging", kind=kind):
            assert v.input["scenario"] in SCENARIOS, v.id


def test_the_fault_vectors_are_of_the_fault_kind(om_vectors):
    fault = om_vectors.by_spec("openmessaging", kind="om-fault")
    assert {v.input["scenario"] for v in fault} == {"fault", "durability-restart"}
    assert all(v.id.startswith("openmessaging.faults.") or v.id.endswith("durability-survives-restart") for v in fault)


_FAULT = ("  - id: openmessaging.bad.fault\n"
          "    clauses: [openmessaging/delivery-semantics/at-least-once]\n    kind: {kind}\n"
          "    status: tentative\n    description: d\n    readings: [mode, classification]\n"
          "    input: {{scenario: fault, params: {{fault: {fault}, semantics: at-least-once}}}}\n"
          "    expect: {{checks: [{{of: observe.lost, is: {{equals: 0}}}}]}}\n")


def test_a_fault_vector_loads_as_its_own_kind(tmp_path):
    assert [v.kind for v in load_vectors(_tree(tmp_path, _FAULT.format(kind="om-fault", fault="kill"))).vectors] == ["om-fault"]


def test_a_fault_vector_declared_as_a_scenario_names_file_line_and_field(tmp_path):
    _tree(tmp_path, _FAULT.format(kind="om-scenario", fault="kill"))
    with pytest.raises(VectorError) as exc:
        load_vectors(tmp_path)
    text = str(exc.value)
    assert "bad.yaml:10" in text and "openmessaging.bad.fault" in text and "input.scenario" in text and "'fault'" in text


def test_an_unknown_fault_is_refused_by_the_kinds_lint(tmp_path):
    _tree(tmp_path, _FAULT.format(kind="om-fault", fault="reboot"))
    with pytest.raises(VectorError, match=r"bad.yaml:10.*params.fault, one of restart, kill, pause, cut \(got 'reboot'\)"):
        load_vectors(tmp_path)


def test_one_level_per_vector_and_optional_clauses_in_their_own_vectors(om_vectors):
    reg = om_vectors.registry
    for v in om_vectors.by_spec("openmessaging"):
        groups = {reg.clauses[c].group for c in v.clauses}
        assert len(groups) == 1, v.id
        if any(c.endswith("-optional") for c in v.clauses):
            assert groups == {"MAY"}, v.id


def _tree(tmp_path, text: str):
    (tmp_path / "clauses").mkdir()
    shutil.copy(ROOT / "vectors" / "clauses" / "openmessaging.yaml", tmp_path / "clauses")
    (tmp_path / "openmessaging").mkdir()
    (tmp_path / "openmessaging" / "bad.yaml").write_text(
        "spec: openmessaging\ntopic: bad\nvectors:\n" + text, encoding="utf-8")
    return tmp_path


def test_a_bad_check_names_file_line_and_field(tmp_path):
    _tree(tmp_path, "  - id: openmessaging.bad.x\n"
          "    clauses: [openmessaging/type-system/integer-range]\n    kind: om-message\n    status: stable\n"
          "    description: d\n    input: {message: {body: {text: a}}}\n"
          "    expect: {checks: [{of: header.messageId, is: bogus}]}\n")
    with pytest.raises(VectorError) as exc:
        load_vectors(tmp_path)
    assert "bad.yaml:" in str(exc.value) and "openmessaging.bad.x" in str(exc.value)


def test_a_must_vector_needing_an_optional_header_must_name_it(tmp_path):
    _tree(tmp_path, "  - id: openmessaging.bad.priority\n"
          "    clauses: [openmessaging/system-header/priority-range]\n    kind: om-message\n    status: stable\n"
          "    description: d\n    input: {message: {headers: {priority: 3}, body: {text: a}}}\n"
          "    expect: {checks: [{of: header.priority, is: sent}]}\n")
    with pytest.raises(VectorError) as exc:
        load_vectors(tmp_path)
    text = str(exc.value)
    assert "bad.yaml:10" in text and "OPTIONAL" in text and "optional_feature: openmessaging/system-header/priority-optional" in text


def test_a_scenario_needing_an_optional_feature_must_name_it(tmp_path):
    _tree(tmp_path, "  - id: openmessaging.bad.delay\n"
          "    clauses: [openmessaging/system-header/delay-time-delivered-after]\n    kind: om-scenario\n"
          "    status: stable\n    description: d\n    readings: [lower-bound, prompt]\n"
          "    input: {scenario: delay}\n"
          "    expect: {checks: [{of: observe.delayed_delivered, is: {equals: true}}]}\n")
    with pytest.raises(VectorError, match="delay-time-optional"):
        load_vectors(tmp_path)


def test_a_vector_omitting_a_reading_is_refused(tmp_path):
    _tree(tmp_path, "  - id: openmessaging.bad.count\n"
          "    clauses: [openmessaging/system-header/delivery-count-counts-deliveries]\n    kind: om-message\n"
          "    status: stable\n    description: d\n    input: {message: {body: {text: a}}}\n"
          "    expect: {checks: [{of: header.deliveryCount, is: {equals: 1}}]}\n")
    with pytest.raises(VectorError, match="omits reading 'first-is-one'"):
        load_vectors(tmp_path)


def test_a_required_header_check_needs_a_present_check(tmp_path):
    _tree(tmp_path, "  - id: openmessaging.bad.store\n"
          "    clauses: [openmessaging/system-header/store-host-required, openmessaging/system-header/store-host-set-by-server]\n"
          "    kind: om-message\n    status: stable\n    description: d\n    input: {message: {body: {text: a}}}\n"
          "    expect: {checks: [{of: header.storeHost, is: non-empty-string, judges: [system-header/store-host-required, "
          "system-header/store-host-set-by-server]}]}\n")
    with pytest.raises(VectorError, match="is: present"):
        load_vectors(tmp_path)
