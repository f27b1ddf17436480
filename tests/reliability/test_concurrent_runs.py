"""Two runs at once on one machine, against the same catalog target: each starts its own broker
(container names carry the run id and pid, host ports are the engine's choice), both overlap in
time, both finish with the same, right rows, and neither leaves a container."""
from __future__ import annotations

import time

import pytest

from .vectors import QUICK_COUNT, QUICK_GARAGEMQ

pytestmark = [pytest.mark.containers]


def test_two_sessions_against_the_same_target_at_once(inner):
    a = inner("run-a", *QUICK_GARAGEMQ, pace_s=0.7)
    b = inner("run-b", *QUICK_GARAGEMQ, pace_s=0.7)
    marks = {s.run_id: s.wait_marker() for s in (a, b)}
    # both brokers are up and both sessions still run vectors: they really overlap
    assert a.proc.poll() is None and b.proc.poll() is None, "the sessions did not overlap; raise pace_s"
    ports_a, ports_b = (marks[s.run_id]["ports"] for s in (a, b))
    assert ports_a and ports_b, f"a broker did not start: {a.rows()[:1]} {b.rows()[:1]}"
    assert not set(ports_a.values()) & set(ports_b.values()), (ports_a, ports_b)
    names_a, names_b = a.containers(), b.containers()
    assert len(names_a) == len(names_b) == 1 and names_a != names_b, (names_a, names_b)

    t0 = time.monotonic()
    assert a.wait(120) == 0, a.output()
    assert b.wait(max(10, 120 - (time.monotonic() - t0))) == 0, b.output()
    rows_a, rows_b = a.rows(), b.rows()
    assert len(rows_a) == len(rows_b) == QUICK_COUNT
    outcomes = [sorted((r["vector_id"], r["outcome"]) for r in rows) for rows in (rows_a, rows_b)]
    assert outcomes[0] == outcomes[1] and all(o == "pass" for _, o in outcomes[0]), outcomes
    # MQCONFORM_RUN_ID (Inner.run_id) names each session: its rows and its containers
    run_ids = [{r["run_id"] for r in rows} for rows in (rows_a, rows_b)]
    assert len(run_ids[0]) == len(run_ids[1]) == 1 and run_ids[0] != run_ids[1], run_ids
    # OpenMessaging rows are the reference provider's: the broker's provenance is there as broker_*
    assert {r["implementation"]["provenance"]["broker_container.name"] for r in rows_a} == set(names_a)
    assert {r["implementation"]["provenance"]["broker_container.name"] for r in rows_b} == set(names_b)
    assert a.containers() == [] and b.containers() == []
