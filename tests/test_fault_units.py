"""The units the xdist scheduler hands out (fixtures/run/scheduling.py): the targets longest first, a
target's fault stage (`<scope>#faults`) only once every other unit is out, and only to the worker that
ran the target's other tests (its stage runs there in the background), never to another."""
from fixtures.run.scheduling import FAULT_UNIT, next_units

WEIGHTS = {"a": 10.0, "b": 50.0, "c": 5.0}
A, B, C = "impl:a", "impl:b", "impl:c"


def test_other_units_first_the_longest_target_first():
    queue = [A, A + FAULT_UNIT, B, B + FAULT_UNIT, "suites/x.py"]
    assert next_units(queue, WEIGHTS, "n1", {}, ["n1", "n2"]) == ["suites/x.py"]    # no broker: first
    assert next_units([A, A + FAULT_UNIT, B, B + FAULT_UNIT], WEIGHTS, "n1", {}, ["n1", "n2"]) == [B]


def test_a_fault_stage_goes_to_the_worker_that_ran_its_target_and_only_then():
    owner = {A: "n1", B: "n2", C: "n1"}
    queue = [A + FAULT_UNIT, B + FAULT_UNIT, C + FAULT_UNIT]
    assert next_units(queue, WEIGHTS, "n1", owner, ["n1", "n2"]) == [A + FAULT_UNIT, C + FAULT_UNIT]
    assert next_units(queue, WEIGHTS, "n2", owner, ["n1", "n2"]) == [B + FAULT_UNIT]
    assert next_units([B + FAULT_UNIT], WEIGHTS, "n1", owner, ["n1", "n2"]) == []     # n2's: n1 waits
    assert next_units(queue + [C], WEIGHTS, "n2", owner, ["n1", "n2"]) == [C]          # not while others are left


def test_a_stage_nobody_ran_or_whose_worker_is_gone_goes_to_anyone():
    assert next_units([A + FAULT_UNIT], WEIGHTS, "n2", {}, ["n1", "n2"]) == [A + FAULT_UNIT]
    assert next_units([A + FAULT_UNIT], WEIGHTS, "n2", {A: "n1"}, ["n2"]) == [A + FAULT_UNIT]
