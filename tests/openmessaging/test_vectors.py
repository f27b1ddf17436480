"""The OpenMessaging vectors load against the schema and cover every testable clause."""
from pathlib import Path

import pytest

from fixtures.openmessaging.scenarios import SCENARIOS
from fixtures.vectors import VectorError, load_vectors

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def vs():
    return load_vectors(ROOT / "vectors")


def test_every_testable_clause_has_a_vector(vs):
    covered = {c for v in vs.by_spec("openmessaging") for c in v.clauses}
    testable = {c.id for c in vs.registry.specs["openmessaging"].clauses if c.testable}
    assert testable - covered == set()


def test_scenarios_named_by_vectors_exist(vs):
    for v in vs.by_spec("openmessaging", kind="om-scenario"):
        assert v.input["scenario"] in SCENARIOS, v.id


def test_a_bad_check_names_file_line_and_field(tmp_path):
    import shutil
    shutil.copytree(ROOT / "vectors" / "clauses", tmp_path / "clauses")
    (tmp_path / "openmessaging").mkdir()
    (tmp_path / "openmessaging" / "bad.yaml").write_text(
        "spec: openmessaging\ntopic: bad\nvectors:\n  - id: openmessaging.bad.x\n"
        "    clauses: [openmessaging/type-system/string]\n    kind: om-message\n    status: stable\n"
        "    description: d\n    input: {message: {body: {text: a}}}\n"
        "    expect: {checks: [{of: header.messageId, is: bogus}]}\n", encoding="utf-8")
    with pytest.raises(VectorError) as exc:
        load_vectors(tmp_path)
    assert "bad.yaml:" in str(exc.value) and "openmessaging.bad.x" in str(exc.value)
