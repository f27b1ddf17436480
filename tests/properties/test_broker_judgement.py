"""The broker round-trip judgement's pure parts (fixtures/strategies/brokers.py): which listed
deviations it tolerates, and that it tolerates nothing the expectations do not list."""
from fixtures.codecs.model import Amqp091Message, Typed
from fixtures.strategies import brokers


def test_messages_known_not_to_be_delivered_are_recognised_for_their_broker_only():
    empty = Amqp091Message(properties={}, headers={"ce-id": Typed("string", "1")}, body=b"")
    with_bytes = Amqp091Message(properties={}, headers={"ce-x": Typed("binary", b"\x00")}, body=b"a")
    plain = Amqp091Message(properties={}, headers={"ce-id": Typed("string", "1")}, body=b"a")

    def undelivered(name, message):
        return [why for why, test in brokers.UNDELIVERED.get(name, ()) if test(message)]
    assert undelivered("garagemq", empty) == ["an empty body is never confirmed"]
    assert undelivered("garagemq", with_bytes)[0].startswith("a byte-array")
    assert undelivered("garagemq", plain) == [] and undelivered("rabbitmq-4.0.5", empty) == []


DEV = brokers.BrokerDeviation("drops x", ("ce-rocketmq.binary.every-attribute-a-property",),
                              lambda status, detail: status == "changed" and detail == ["x lost"])


def test_a_listed_deviation_explains_only_its_change_on_its_broker(monkeypatch):
    monkeypatch.setattr(brokers, "BROKER_DEVIATIONS", {"rocketmq-5.3.3": (DEV,)})
    monkeypatch.setattr(brokers, "_listed_for", lambda impl, dev, today=None: True)
    assert brokers._known("rocketmq-5.3.3", status="changed", detail=["x lost"]) is DEV
    assert brokers._known("rocketmq-5.3.3", status="changed", detail=["y lost"]) is None
    assert brokers._known("garagemq", status="changed", detail=["x lost"]) is None


def test_a_deviation_holds_only_while_its_vector_is_listed(monkeypatch):
    monkeypatch.setattr(brokers, "BROKER_DEVIATIONS", {"rocketmq-5.3.3": (DEV,)})
    monkeypatch.setattr(brokers, "_listed", lambda: ())
    assert brokers._known("rocketmq-5.3.3", status="changed", detail=["x lost"]) is None


def test_every_deviation_names_vectors_that_exist():
    from fixtures.plugin import ROOT
    from fixtures.vectordata.vectors import load_vectors

    ids = {v.id for v in load_vectors(ROOT / "vectors").vectors}
    for devs in brokers.BROKER_DEVIATIONS.values():
        for dev in devs:
            assert dev.vectors and set(dev.vectors) <= ids, dev.name
