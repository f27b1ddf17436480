"""A delivery guarantee in the broker profile is observed by its fault vectors too
(vectors/openmessaging/profile.yaml `under_faults`), and a broker seen keeping it in one row and
breaking it in another is `partial`, never `native` (reports/views/profile.py `combine`)."""
from __future__ import annotations

import json

import pytest

from fixtures.openmessaging import observation
from fixtures.openmessaging.profile import default_profile, from_fault, of_row
from reports.views.profile import combine


def test_every_guarantee_names_its_fault_checks():
    semantics = {r.under_faults[0]: r.id for r in default_profile().requirements if r.under_faults}
    assert semantics == {"at-least-once": "at-least-once", "at-most-once": "at-most-once",
                         "exactly-once": "exactly-once"}


@pytest.mark.parametrize("semantics,obs,status", [
    ("at-least-once", {"lost": 0, "duplicated": 3}, "native"),     # a copy is allowed at least once
    ("at-least-once", {"lost": 8, "duplicated": 0}, "partial"),
    ("at-most-once", {"lost": 5, "duplicated": 0}, "native"),      # a loss is allowed at most once
    ("at-most-once", {"lost": 0, "duplicated": 1}, "partial"),
    ("exactly-once", {"lost": 0, "duplicated": 1}, "partial"),
])
def test_a_fault_row_observes_its_guarantee(semantics, obs, status):
    [(rid, e)] = from_fault(semantics, "restart", obs, "over amqp091 on x").items()
    assert rid == semantics and e["status"] == status and "fault restart" in e["evidence"]


def test_the_cell_comes_from_the_record_alone(om_vectors):
    vector = next(v for v in om_vectors.vectors if v.id == "openmessaging.faults.at-least-once.kill")
    record = json.loads(json.dumps({"kind": observation.SCENARIO_KIND, "protocol": "amqp091", "product": "garagemq",
                                    "target": "garagemq", "role": "reference", "complete": True,
                                    "observed": observation.encode({"lost": 9, "duplicated": 0})}))
    cells = of_row(vector, record, {}, lambda name: None)
    assert cells["at-least-once"]["status"] == "partial"


def test_kept_in_one_row_and_broken_in_another_is_partial():
    kept = {"status": "native", "evidence": "redelivery: redelivered True", "impl": "p", "vector_id": "a", "n": 1}
    broken = {"status": "partial", "evidence": "fault kill: lost 9 (broken under the fault)", "impl": "p",
              "vector_id": "b", "n": 2}
    cell = combine([kept, broken])
    assert cell["status"] == "partial" and "redelivered" in cell["evidence"] and "lost 9" in cell["evidence"]
    assert cell["rows"] == {"native": 1, "partial": 2}
    assert combine([kept])["status"] == "native"
    assert combine([{**kept, "status": "emulated"}, {**kept, "status": "absent", "vector_id": "c"}])["status"] == "partial"
