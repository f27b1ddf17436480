"""A run split across machines (fixtures/run/shards.py): the split is deterministic, keeps a target's
tests together, covers every test once, and is refused where it cannot be one; the gate judges a
split run whole (reports/gate/shards.py)."""
import random

import pytest

from fixtures.run import shards
from reports.gate import shards as gate_shards


def ids(unit: str, n: int) -> list[str]:
    return [f"suites/x/test_x.py::test_x[vec.{k}::{unit}]" for k in range(n)]


NODEIDS = (ids("rocketmq-5.5.0", 30) + ids("rabbitmq-4.3.6", 50) + ids("garagemq", 20) + ids("mqconform-reference", 60)
           + ids("cloudevents-sdk-python", 60) + ids("rocketmq-5.3.3", 25) + ["suites/y/test_plain.py::test_plain"])


def test_parse_reads_i_of_n_and_refuses_what_is_not_one():
    assert shards.parse(None, None) is None
    s = shards.parse("2/3", "pipeline-41")
    assert (s.index, s.count, s.run, str(s)) == (2, 3, "pipeline-41", "2/3")
    assert s.record("d1") == {"run": "pipeline-41", "index": 2, "count": 3, "split": "d1"}
    for bad in ("0/2", "3/2", "1-2", "a/b", "", "1/0", "1/1001"):
        with pytest.raises(ValueError, match="--shard"):
            shards.parse(bad, "r")
    with pytest.raises(ValueError, match="--sharded-run"):
        shards.parse("1/2", None)            # the shards of one run need one id
    with pytest.raises(ValueError, match="--sharded-run"):
        shards.parse("1/2", "two words")
    with pytest.raises(ValueError, match="without --shard"):
        shards.parse(None, "r")


@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_every_test_runs_in_exactly_one_shard_and_a_unit_stays_in_one(count):
    splits = [shards.split(NODEIDS, shards.Shard(i, count, "r")) for i in range(1, count + 1)]
    runs = [keep for keep, _, _ in splits]
    assert len({digest for _, _, digest in splits}) == 1                # every shard made the same split
    every = sorted(k for run in runs for k in run)
    assert every == list(range(len(NODEIDS)))                      # each test once
    for run in runs:
        units = {NODEIDS[k].rsplit("::", 1)[-1] for k in run}
        for other in runs:
            if other is not run:
                assert not units & {NODEIDS[k].rsplit("::", 1)[-1] for k in other}   # a broker starts once


def test_the_split_depends_on_the_units_only_not_their_order():
    shuffled = list(NODEIDS)
    random.Random(7).shuffle(shuffled)
    for i in (1, 2):
        a = {NODEIDS[k] for k in shards.split(NODEIDS, shards.Shard(i, 2, "r"))[0]}
        b = {shuffled[k] for k in shards.split(shuffled, shards.Shard(i, 2, "r"))[0]}
        assert a == b


def test_longest_first_onto_the_least_loaded_shard_by_names_alone():
    units = ["impl:rocketmq-5.5.0", "impl:rocketmq-5.3.3", "impl:rabbitmq-4.3.6", "impl:garagemq",
             "impl:mqconform-reference"]
    where = shards.assign(units, 2)
    # measured costs, longest first: 141.7 s -> 1; 106.3 s -> 2; 105.0 s -> 2 (106.3 < 141.7); 13.2 s -> 1
    assert where["impl:rocketmq-5.5.0"] == 1 and where["impl:rocketmq-5.3.3"] == 2
    assert where["impl:rabbitmq-4.3.6"] == 2 and where["impl:garagemq"] == 1
    loads = {1: 0.0, 2: 0.0}
    for unit, i in where.items():
        loads[i] += shards.cost(unit)
    assert abs(loads[1] - loads[2]) <= max(shards.cost(u) for u in where)
    # a unit the table does not know (an --endpoint broker) costs the same whatever this machine
    # collected or probed of it: the split cannot differ between machines
    assert shards.cost("impl:vendor-broker") == shards.UNKNOWN_COST_S
    few, many = ids("vendor-broker", 4) + NODEIDS, ids("vendor-broker", 400) + NODEIDS
    assert shards.split(few, shards.Shard(1, 2, "r"))[2] == shards.split(many, shards.Shard(1, 2, "r"))[2]


def test_more_shards_than_units_is_refused_naming_the_units():
    with pytest.raises(shards.TooFewUnits, match=r"2 unit\(s\).*garagemq.*fewer than 3 shards"):
        shards.split(ids("garagemq", 3) + ids("rabbitmq-4.3.6", 2), shards.Shard(1, 3, "r"))


def _row(run, index, count, impl="a", split="d"):
    return {"impl": impl, "shard": {"run": run, "index": index, "count": count, "split": split}}


def test_the_gate_refuses_a_split_run_with_a_shard_missing_and_names_it():
    assert gate_shards.problems([_row("p1", 1, 2), _row("p1", 2, 2, "b"), {"impl": "c", "shard": None}]) == []
    (line,) = gate_shards.problems([_row("p1", 1, 3), _row("p1", 3, 3)])
    assert "sharded run p1" in line and "2/3 missing" in line
    (line,) = gate_shards.problems([_row("p1", 1, 2), _row("p1", 2, 3)])
    assert "disagree on how many" in line
    (line,) = gate_shards.problems([_row("p1", 1, 2), _row("p1", 2, 2, split="other")])
    assert "split differently" in line
    assert gate_shards.alone([_row("p1", 1, 2)]) == [
        "shard 1/2 of sharded run p1 judged alone; the run is judged by a gate given every shard's results"]


def test_a_shard_superseded_by_a_later_run_still_counts_for_its_split_run():
    """Shard 2's implementation ran again later (unsharded): the judged rows are shard 1's and the later
    run's, and shard 2 is among what was read: the split run is whole."""
    seen = gate_shards.Seen()
    for r in (_row("p1", 1, 2), _row("p1", 2, 2, "b")):
        seen.add(r["shard"])
    judged = [_row("p1", 1, 2), {"impl": "b", "shard": None}]
    assert gate_shards.problems(judged, seen) == []
    assert gate_shards.problems(judged) != []          # judged alone, shard 2 is nowhere


@pytest.mark.parametrize("shard, why", [
    ({"run": "x"}, "is not I/N"), ("1/2", "not an object"), ({"run": "x", "index": 0, "count": 2}, "is not I/N"),
    ({"run": "x", "index": 3, "count": 2}, "is not I/N"), ({"run": "", "index": 1, "count": 1}, "shard.run"),
    ({"run": "x", "index": 1, "count": 1, "split": 7}, "shard.split"),
])
def test_a_malformed_shard_field_makes_the_row_invalid(shard, why):
    from reports.rows.validate import record_problem

    row = {"run_id": "r", "run_started": "2026-11-30T00:00:00Z", "spec": "s", "vector_id": "v",
           "implementation": {"name": "i"}, "outcome": "pass", "shard": shard}
    assert why in (record_problem(row) or "")
    assert record_problem({**row, "shard": {"run": "x", "index": 1, "count": 2, "split": "d"}}) is None
