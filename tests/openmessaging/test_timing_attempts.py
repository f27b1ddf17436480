"""A latency check that fails is tried again on a fresh message; other failures are not."""
from __future__ import annotations

import pytest

from fixtures.openmessaging import runner
from fixtures.outcomes import Findings, VectorFailed


def _failing(subjects):
    err = VectorFailed("vector: what\nover p on t: check 1 (latency_ms): 6547 (at most 5000)", findings=Findings())
    err.failed_subjects = subjects
    return err


def _script(monkeypatch, results):
    calls = []

    def fake(vector, b, registry):
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
