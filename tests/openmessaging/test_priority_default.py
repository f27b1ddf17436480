"""priority-default-order judges both halves of "the default priority is 5" in one row: the field
the unset messages were delivered with (5 or none), and their rank, which must be the 5s' rank
(in-memory brokers that order a backlog three ways; no broker)."""
from __future__ import annotations

import pytest

from fixtures.openmessaging import runner
from fixtures.verdict.verdicts import decide

from .test_runner import FakeBinding, FakeConsumer, FakeLive

VID = "openmessaging.system-header.priority-default-order"


class RankingBinding(FakeBinding):
    """Delivers the backlog highest priority first (stable), an unset priority ranked as `unset`;
    `unset=None`: in the order sent (no priority handling at all)."""

    def __init__(self, broker, protocol="amqp091", *, unset=None, **kw):
        super().__init__(broker, protocol, **kw)
        self.unset = unset

    def _open_consumer(self, dest, index, auto_ack):
        if self.unset is not None:
            self.queue.sort(key=lambda n: -n["headers"].get("priority", self.unset))
        return FakeConsumer(self)


def _row(om_vectors, monkeypatch, unset):
    vector = next(v for v in om_vectors.vectors if v.id == VID)
    monkeypatch.setattr(runner, "open_binding", lambda live_, protocol, mapping=None: RankingBinding(live_, protocol, unset=unset))
    try:
        _, found = runner.run_vector(vector, FakeLive("fakemq"), "amqp091", om_vectors.registry)
        return decide(vector, om_vectors.registry, None, found)
    except Exception as exc:  # noqa: BLE001 - the verdict of what the runner raised
        return decide(vector, om_vectors.registry, exc)


@pytest.mark.parametrize("unset", [None, 5])
def test_unset_priority_ranked_as_the_fives_passes(om_vectors, monkeypatch, unset):
    row = _row(om_vectors, monkeypatch, unset)
    assert row.outcome == "pass", row.message
    assert "observe.unset_priority: held under reading left-unset" in row.notes


def test_unset_priority_ranked_below_the_fours_fails_on_its_rank(om_vectors, monkeypatch):
    row = _row(om_vectors, monkeypatch, 0)
    assert row.outcome == "fail", row.message
    assert "observe.ranked_as_five" in str(row.failed_step), row.failed_step
    assert "observe.unset_priority" not in row.message      # the field half held: absent, reading left-unset
