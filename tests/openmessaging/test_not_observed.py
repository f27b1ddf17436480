"""What the run could not observe within its bounds judges nothing: a failure given back only after a
timeout of minutes, a send that got no answer (in-memory binding, no broker)."""
from __future__ import annotations

from .test_runner import FakeBinding, run


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


def test_a_send_that_got_no_answer_within_a_bound_is_setup_never_a_verdict(om_vectors, monkeypatch):
    """delivery_judges make a refused send fail the vector's clauses; a send that timed out (ours or
    the provider's own send timeout) refused nothing: a precondition error, to be observed again."""
    from fixtures.adapters.base import AdapterTimeout
    from fixtures.openmessaging.binding import SendFailed

    def timed_out(self, dest, om, **kw):
        raise SendFailed("sending a message: no answer", AdapterTimeout("no confirm within 10s"))
    monkeypatch.setattr(FakeBinding, "_send", timed_out)
    row = run(om_vectors, monkeypatch, "openmessaging.system-header.priority-range")
    assert row.outcome == "error" and row.error_kind == "precondition", row.message
    refused = SendFailed("the provider failed send: Refused: no", None)
    assert not refused.timed_out and SendFailed("x", None, timed_out=True).timed_out
