"""The broker round-trip judgement's pure parts (fixtures/strategies/brokers.py): which listed
deviations it tolerates, and that it tolerates nothing the expectations do not list."""
from fixtures.codecs.model import Amqp091Message, RocketMQMessage, Typed
from fixtures.strategies import brokers


def test_empty_property_loss_is_only_that():
    lost = ["user property 'CE_x' lost (sent '')"]
    assert brokers._only_empty_properties_lost("changed", lost)
    assert not brokers._only_empty_properties_lost("changed", lost + ["body changed: sent b'a', received b'b'"])
    assert not brokers._only_empty_properties_lost("changed", ["user property 'CE_x' lost (sent 'v')"])
    assert not brokers._only_empty_properties_lost("not-delivered", "timeout")


def test_listed_deviations_are_recognised_for_their_broker_only():
    empty = Amqp091Message(properties={}, headers={"ce-id": Typed("string", "1")}, body=b"")
    with_bytes = Amqp091Message(properties={}, headers={"ce-x": Typed("binary", b"\x00")}, body=b"a")
    plain = Amqp091Message(properties={}, headers={"ce-id": Typed("string", "1")}, body=b"a")
    assert brokers._known("garagemq", message=empty).name == "an empty body is never confirmed"
    assert brokers._known("garagemq", message=with_bytes).name.startswith("a byte-array")
    assert brokers._known("garagemq", message=plain) is None
    assert brokers._known("rabbitmq-4.0.5", message=empty) is None
    lost = ["user property 'CE_x' lost (sent '')"]
    assert brokers._known("rocketmq-5.3.3", status="changed", detail=lost) is not None
    assert brokers._known("garagemq", status="changed", detail=lost) is None


def test_a_deviation_holds_only_while_its_vector_is_listed(monkeypatch):
    monkeypatch.setattr(brokers, "_listed", lambda: ())
    empty = RocketMQMessage(properties={}, body=b"")
    assert brokers._known("garagemq", message=Amqp091Message(properties={}, headers={}, body=b"")) is None
    assert brokers._known("rocketmq-5.3.3", status="changed", detail=["user property 'CE_x' lost (sent '')"]) is None
    assert brokers._known("rocketmq-5.3.3", message=empty) is None


def test_every_deviation_names_vectors_that_exist():
    from fixtures.plugin import ROOT
    from fixtures.vectors import load_vectors

    ids = {v.id for v in load_vectors(ROOT / "vectors").vectors}
    for devs in brokers.BROKER_DEVIATIONS.values():
        for dev in devs:
            assert dev.vectors and set(dev.vectors) <= ids, dev.name
