"""The waits a row depended on (fixtures/verdict/waits.py), the early-start handoff (fixtures/run/brokers.py) and
the order targets are handed to xdist workers (fixtures/run/scheduling.py): pure code, no broker."""
from __future__ import annotations

import json
import threading
from concurrent.futures import Future
from types import SimpleNamespace

import pytest

from fixtures.plugin.targets import start_parallel
from fixtures.run.brokers import _attach, _publish, not_started
from fixtures.run.clock import slowest
from fixtures.run.targets import Target
from fixtures.verdict import waits


def _broker(name="b"):
    return SimpleNamespace(shared={}, target=SimpleNamespace(name=name))


def test_quiet_period_is_round_trips_above_a_floor_measured_once():
    b, calls = _broker(), []

    def rt():
        calls.append(1)
        return [0.2, 0.1, 0.3][len(calls) - 1]
    assert waits.quiet_s(b, "amqp10", rt) == pytest.approx(waits.QUIET_ROUND_TRIPS * 0.2)
    assert waits.quiet_s(b, "amqp10", rt) == pytest.approx(waits.QUIET_ROUND_TRIPS * 0.2)
    assert len(calls) == waits.CALIBRATION_SAMPLES           # the median of the samples, kept a while
    assert "round trip 200.0 ms" in waits.quiet_why(b, "amqp10")
    assert waits.quiet_s(_broker(), "amqp10", lambda: 0.001) == waits.QUIET_FLOOR_S


def test_the_quiet_period_is_measured_again_after_a_while(monkeypatch):
    b, now = _broker(), [100.0]
    monkeypatch.setattr(waits.time, "monotonic", lambda: now[0])
    assert waits.quiet_s(b, "amqp10", lambda: 0.5) == pytest.approx(waits.QUIET_ROUND_TRIPS * 0.5)
    now[0] += waits.RECALIBRATE_S + 1                        # the load that slowed the first one is gone
    assert waits.quiet_s(b, "amqp10", lambda: 0.001) == waits.QUIET_FLOOR_S


def test_a_failed_calibration_leaves_the_conservative_period_and_says_why():
    b = _broker()

    def broken():
        raise OSError("no route")
    assert waits.quiet_s(b, "amqp091", broken) == waits.UNCALIBRATED_S
    assert "not measured (OSError: no route)" in waits.quiet_why(b, "amqp091")


def test_waits_become_one_note_per_kind():
    waits.start()
    waits.note("no message", 0.25, "quiet")
    waits.note("no message", 0.5, "quiet")
    waits.note("the redelivery", 4.0)
    assert waits.take() == ["waited 0.75 s: no message x2 (quiet)", "waited 4.00 s: the redelivery"]
    assert waits.take() == []


def test_watching_notes_a_block_also_when_it_raises():
    waits.start()
    with pytest.raises(KeyError), waits.watching("a receive", "quiet"):
        raise KeyError("lost")
    assert waits.take()[0].endswith(": a receive (quiet)")


def test_a_job_collects_its_own_waits_not_the_process_s():
    waits.start()
    seen = {}

    def job():
        with waits.collecting() as mine:
            waits.note("job wait", 1.0)
        seen["mine"] = waits.as_notes(mine)
    t = threading.Thread(target=job)
    t.start()
    t.join()
    assert seen["mine"] == ["waited 1.00 s: job wait"]
    assert waits.take() == []


def _target(name="rabbitmq-4.0.5"):
    return Target(name=name, protocols=("amqp091",), product="rabbitmq", version="4.0.5", catalog_name=name)


def test_handoff_ready_failed_and_not_started(tmp_path):
    desc = {"name": "rabbitmq-4.0.5", "variant": None, "product": "rabbitmq", "version": "4.0.5",
            "host": "127.0.0.1", "ports": {"amqp091": 1234}, "credentials": {"username": "guest"},
            "provenance": {"target": "rabbitmq-4.0.5"}, "container_id": "c" * 64, "container_name": "n",
            "ready_s": 1.5}
    ok = Future()
    ok.set_result(SimpleNamespace(describe=lambda: desc))
    _publish(tmp_path, _target(), ok)
    f = next(tmp_path.glob("*.json"))
    assert f.stat().st_mode & 0o777 == 0o600                 # it holds the broker's credentials
    c = _attach(tmp_path, _target(), 1)
    assert (c.host, c.port("amqp091"), c.container_id) == ("127.0.0.1", 1234, "c" * 64)

    bad = Future()
    bad.set_exception(RuntimeError("image missing"))
    _publish(tmp_path, _target("garagemq"), bad)
    with pytest.raises(RuntimeError, match="image missing"):
        _attach(tmp_path, _target("garagemq"), 1)

    not_started(tmp_path, [_target("artemis"), _target("rabbitmq-4.0.5")])
    assert _attach(tmp_path, _target("artemis"), 1) is None   # the worker starts it itself
    assert json.loads(f.read_text())["status"] == "ready"     # a published one is not overwritten


def test_handoff_wait_is_bounded(tmp_path):
    with pytest.raises(TimeoutError, match="did not hand over"):
        _attach(tmp_path, _target(), 0.2)


def test_start_parallel_from_the_environment(monkeypatch):
    monkeypatch.setenv("MQCONFORM_START_PARALLEL", "3")
    assert start_parallel(7) == 3
    monkeypatch.setenv("MQCONFORM_START_PARALLEL", "many")
    with pytest.raises(pytest.UsageError, match="MQCONFORM_START_PARALLEL='many'"):
        start_parallel(7)
    monkeypatch.delenv("MQCONFORM_START_PARALLEL")
    assert 1 <= start_parallel(7) <= 7


def test_rank_puts_brokerless_scopes_first_then_the_heaviest_target():
    pytest.importorskip("xdist")
    from fixtures.run.scheduling import rank
    weights = {"rabbitmq-4.0.5": 200, "garagemq": 60}
    scopes = ["impl:garagemq", "impl:rabbitmq-4.0.5", "impl:mqconform-reference", "suites/properties/test_x.py"]
    assert sorted(scopes, key=lambda s: rank(s, weights)) == [
        "impl:mqconform-reference", "suites/properties/test_x.py", "impl:rabbitmq-4.0.5", "impl:garagemq"]


def test_slowest_lists_the_waits_of_the_slowest_rows():
    rows = [{"duration_s": d, "implementation": {"name": "x"}, "vector_id": f"v{d}",
             "test_id": f"suites/a.py::test_amqp091[v{d}::x]", "notes": [f"waited {d} s: a | b", "other"]}
            for d in (1.0, 3.0, 2.0)]
    lines = slowest(rows, 2)
    assert lines[-2].startswith("| 3.00 | x | v3.0 | test_amqp091 | 3.0 s: a / b |")
    assert lines[-1].startswith("| 2.00 |")
    assert slowest([]) == []
