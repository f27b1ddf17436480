"""What a busy machine or chance may not decide: attempts again, and the chance of an order."""
from __future__ import annotations

import pytest

from fixtures.openmessaging import pool, runner
from fixtures.verdict.outcomes import Findings, VectorFailed


def _failing(subjects):
    err = VectorFailed("vector: what\nover p on t: check 1 (latency_ms): 6547 (at most 5000)", findings=Findings())
    err.failed_subjects = subjects
    return err


def _script(monkeypatch, results):
    calls = []

    def fake(vector, b, registry, held=None):
        calls.append(1)
        r = results[len(calls) - 1]
        if isinstance(r, BaseException):
            raise r
        return {}, Findings()
    monkeypatch.setattr(runner, "run_message", fake)
    return calls


def test_a_stall_then_a_pass_passes_with_the_attempt_noted(monkeypatch):
    calls = _script(monkeypatch, [_failing(("latency_ms",)), None])
    _, found = runner._run_message_timed(None, None, None)
    assert len(calls) == 2
    assert any("attempt 1 of 3 failed a timing check" in n and "6547" in n for n in found.notes)


def test_every_attempt_late_fails_with_every_attempt_noted(monkeypatch):
    calls = _script(monkeypatch, [_failing(("latency_ms",))] * 3)
    with pytest.raises(VectorFailed) as info:
        runner._run_message_timed(None, None, None)
    assert len(calls) == runner.TIMING_ATTEMPTS
    assert sum("failed a timing check" in n for n in info.value.findings.notes) == runner.TIMING_ATTEMPTS - 1


@pytest.mark.parametrize("subjects", [("header.messageId",), ("latency_ms", "body"), ()])
def test_a_failure_of_anything_but_timing_is_not_tried_again(monkeypatch, subjects):
    calls = _script(monkeypatch, [_failing(subjects), None])
    with pytest.raises(VectorFailed):
        runner._run_message_timed(None, None, None)
    assert len(calls) == 1


class _Broker:
    def __init__(self, alive=True):
        self._alive = alive

    def alive(self):
        return self._alive


def _unjudged(transient=True):
    from fixtures.verdict.outcomes import PreconditionFailed
    exc = PreconditionFailed("over p on t: delivery is setup here: 20 sent, 19 delivered", findings=Findings())
    exc.transient = transient
    return exc


def _runs(results):
    calls = []

    def run():
        calls.append(1)
        r = results[len(calls) - 1]
        if isinstance(r, BaseException):
            raise r
        return {}, Findings()
    return run, calls


def test_an_unjudged_vector_runs_once_more_and_says_so(monkeypatch):
    monkeypatch.setattr(pool, "AGAIN_PAUSE_S", 0)
    run, calls = _runs([_unjudged(), None])
    _, found = pool.run_once_more_if_unjudged(run, _Broker())
    assert len(calls) == 2
    assert any("judged on a second attempt" in n and "19 delivered" in n for n in found.notes)


def test_unjudged_twice_is_an_error_with_both_attempts(monkeypatch):
    from fixtures.verdict.outcomes import PreconditionFailed
    monkeypatch.setattr(pool, "AGAIN_PAUSE_S", 0)
    run, calls = _runs([_unjudged(), _unjudged()])
    with pytest.raises(PreconditionFailed) as info:
        pool.run_once_more_if_unjudged(run, _Broker())
    assert len(calls) == 2 and any("first was not judged either" in n for n in info.value.findings.notes)


@pytest.mark.parametrize("first,broker", [
    (_failing(("latency_ms",)), _Broker()),          # a judged outcome is never run again
    (_unjudged(transient=False), _Broker()),         # an error that repeats by nature
    (_unjudged(), _Broker(alive=False)),             # the broker died
])
def test_judged_outcomes_and_lasting_errors_are_not_run_again(monkeypatch, first, broker):
    monkeypatch.setattr(pool, "AGAIN_PAUSE_S", 0)
    run, calls = _runs([first, None])
    with pytest.raises(type(first)):
        pool.run_once_more_if_unjudged(run, broker)
    assert len(calls) == 1


def test_the_chance_of_an_order_is_counted_exactly():
    from math import comb

    from fixtures.verdict.orders import chance_of_at_most
    assert chance_of_at_most(0, 10, 10) == 1 / comb(20, 10)       # only one order puts every expedited first
    assert chance_of_at_most(100, 10, 10) == 1.0
    assert abs(chance_of_at_most(50, 10, 10) - 0.5147) < 1e-3     # the middle of a symmetric count
    assert chance_of_at_most(19, 10, 10) <= 0.01 < chance_of_at_most(20, 10, 10)
    assert chance_of_at_most(10, 10, 10) <= 0.001 < chance_of_at_most(11, 10, 10)
