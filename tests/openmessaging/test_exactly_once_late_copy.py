"""exactly-once without a barrier: a copy of the retried message that comes after the drain's quiet
period counts as the retry's delivery, never as the acknowledged message coming again (the scenario
tells its messages apart by body). Pure code: a scripted broker."""
from types import SimpleNamespace

from fixtures.openmessaging import scenarios


class _Delivery:
    def __init__(self, body, log):
        self.om = SimpleNamespace(body=body, headers={})
        self.log = log

    def ack(self):
        self.log.append(("ack", self.om.body))


class _Consumer:
    """Gives the scripted deliveries of its turn, one per receive, then None."""

    def __init__(self, script, log):
        self.script, self.log = list(script), log

    def receive(self, timeout):
        return _Delivery(self.script.pop(0), self.log) if self.script else None

    def close(self):
        pass


def _binding(turns):
    log, consumers = [], iter(turns)
    support = SimpleNamespace(support=lambda product: "no duplicate id header")
    return SimpleNamespace(
        protocol="amqp10", product="fakemq", ordered_by=None, broker=SimpleNamespace(target=SimpleNamespace(name="fakemq-1")),
        mapping=SimpleNamespace(feature=lambda name, protocol: support), destination=lambda *a: "q",
        send=lambda dest, om, **kw: None, consumer=lambda dest, **kw: _Consumer(next(consumers), log),
        quiet_s=lambda: 0.01, quiet_why=lambda: "test", redelivery_wait_s=lambda: 0.05,
        redelivery_quiet_s=lambda: (0.01, "test")), log


def test_a_late_copy_of_the_retry_is_the_retrys_not_the_acked_message_again():
    retry, crash = b"exactly-once", b"exactly-once-crash"
    # drain: one copy; the dying consumer: the late copy, then the second message; the next consumer:
    # the second message again; the last one: nothing
    b, _ = _binding([[retry], [retry, crash], [crash], []])
    obs = scenarios.exactly_once(b, {})
    assert obs["retry_deliveries"] == 2 and obs["crash_redelivered"] and not obs["acked_delivered_again"]
    assert any("after its drain" in n for n in obs["notes"])


def test_the_acked_message_coming_again_is_still_seen():
    retry, crash = b"exactly-once", b"exactly-once-crash"
    b, _ = _binding([[retry, retry], [crash], [crash], [retry, crash]])
    obs = scenarios.exactly_once(b, {})
    assert obs["retry_deliveries"] == 3 and obs["acked_delivered_again"]
