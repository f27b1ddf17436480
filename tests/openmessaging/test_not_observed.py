"""What the run could not observe within its bounds judges nothing: a failure given back only after a
timeout of minutes (in-memory binding, no broker)."""
from __future__ import annotations

from .test_runner import run


def test_a_failed_consumption_given_back_only_past_the_bound_is_not_observed(om_vectors, monkeypatch):
    """A provider whose only failure signal is to leave the message unacked, given back after a
    timeout of minutes: the failed consumption's redelivery is not observed (never failed); the
    counts that were observed are judged."""
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.delivery-count-counts", redeliver=True,
              lacks_fail="given back after a timeout of minutes", provider_role="product")
    assert row.outcome == "fail", row.message
    assert row.clause_outcomes.get("openmessaging/system-header/failed-consumption-redelivered") != "fail"
    assert "count_step_after_crash: 0 (expected 1)" in row.message
    assert "failed_consumption_redelivered" not in row.message
