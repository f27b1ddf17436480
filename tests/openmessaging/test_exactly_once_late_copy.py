"""exactly-once: deliveries after the retry's drain are told apart by body and message id. A copy of
the retried message that comes after a drain without a barrier, with an id not yet seen, counts as
the retry's delivery; a copy the drain already acknowledged coming back (same id, or after a
barrier, or more copies than sends) is an acknowledged message delivered again. Pure code: a
scripted broker."""
from types import SimpleNamespace

from fixtures.openmessaging import delivery_semantics

RETRY, CRASH = b"exactly-once", b"exactly-once-crash"


class _Delivery:
    def __init__(self, body, mid):
        self.om = SimpleNamespace(body=body, headers={"messageId": mid})

    def ack(self):
        pass


class _Consumer:
    """Gives the scripted (body, message id) deliveries of its turn, one per receive, then None."""

    def __init__(self, script):
        self.script = list(script)

    def receive(self, timeout):
        return _Delivery(*self.script.pop(0)) if self.script else None

    def close(self):
        pass


def _run(turns):
    consumers = iter(turns)
    support = SimpleNamespace(support=lambda product: "no duplicate id header")
    b = SimpleNamespace(
        protocol="amqp10", product="fakemq", ordered_by=None,
        broker=SimpleNamespace(target=SimpleNamespace(name="fakemq-1")),
        mapping=SimpleNamespace(feature=lambda name, protocol: support), destination=lambda *a: "q",
        send=lambda dest, om, **kw: None, consumer=lambda dest, **kw: _Consumer(next(consumers)),
        quiet_s=lambda: 0.01, quiet_why=lambda: "test", redelivery_wait_s=lambda: 0.05,
        redelivery_quiet_s=lambda: (0.01, "test"), arrival_bound_s=lambda count=1: 0.05,
        arrival_gap_s=lambda: 0.05, arrival_why=lambda count=1: "test")
    return delivery_semantics.exactly_once(b, {})


def test_a_late_copy_of_the_retry_is_the_retrys_not_the_acked_message_again():
    # drain: one copy; the dying consumer: the second copy (new id), then the second message;
    # the next consumer: the second message again; the last one: nothing
    obs = _run([[(RETRY, "a")], [(RETRY, "b"), (CRASH, "c")], [(CRASH, "c")], []])
    assert obs["retry_deliveries"] == 2 and obs["crash_redelivered"] and not obs["acked_delivered_again"]
    assert any("after its drain" in n for n in obs["notes"])


def test_an_acknowledged_copy_coming_back_is_an_acknowledged_message_delivered_again():
    # a de-duplicating broker keeps one copy (id a); the drain acks it; it comes back later
    obs = _run([[(RETRY, "a")], [(CRASH, "c")], [(CRASH, "c")], [(RETRY, "a")]])
    assert obs["retry_deliveries"] == 1 and obs["acked_delivered_again"]


def test_more_copies_than_sends_are_deliveries_again():
    obs = _run([[(RETRY, "a"), (RETRY, "b")], [(RETRY, None), (CRASH, "c")], [(CRASH, "c")], []])
    assert obs["retry_deliveries"] == 2 and obs["acked_delivered_again"]


def test_the_acked_second_message_coming_again_is_seen():
    obs = _run([[(RETRY, "a"), (RETRY, "b")], [(CRASH, "c")], [(CRASH, "c")], [(CRASH, "c")]])
    assert obs["retry_deliveries"] == 2 and obs["acked_delivered_again"]


def test_after_a_barrier_no_copy_is_late():
    late = [SimpleNamespace(om=SimpleNamespace(headers={"messageId": "b"}))]
    drained = [SimpleNamespace(om=SimpleNamespace(headers={"messageId": "a"}))]
    assert delivery_semantics.late_copies(SimpleNamespace(ordered_by="AMQP 0-9-1 4.7"), drained, late, sends=2) == (0, 1)
    assert delivery_semantics.late_copies(SimpleNamespace(ordered_by=None), drained, late, sends=2) == (1, 0)
