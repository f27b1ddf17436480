"""Applicability from the text: version bounds, and the reason quoting the sentence."""
import pytest

from fixtures.applicability import version_in, why_not
from fixtures.registry import Applicability


@pytest.mark.parametrize("version, bounds, ok", [
    ("4.0.5", ">=4.0", True), ("3.10.8", ">=4.0", False), ("4.0.0-beta.1", ">=4.0", True),
    ("4.0.5", "4.0.*", True), ("4.1.0", "4.0.*", False), ("4.3.6", ">=4.0,<4.2", False),
    ("4.1.2", ">=4.0, <4.2", True), ("3.13", "==3.13", True), ("3.13.7", "==3.13", False), ("nightly", ">=4.0", False),
])
def test_version_bounds(version, bounds, ok):
    assert version_in(version, bounds) is ok


def test_bad_bound_is_an_error():
    with pytest.raises(ValueError):
        version_in("4.0", ">>4")


V2 = (Applicability("rabbitmq", ">=4.0", "RabbitMQ 4.0 introduces a new RabbitMQ specific AMQP address format, v2."),)


def test_described_products_apply_and_others_get_the_sentence():
    assert why_not(V2, "rabbitmq", "4.0.5") is None
    assert why_not((), "anything", None) is None
    reason = why_not(V2, "rabbitmq", "3.10.8")
    assert "RabbitMQ 4.0 introduces" in reason and "3.10.8" in reason
    assert "apache-activemq-artemis" in why_not(V2, "apache-activemq-artemis", "2.56.0")
    assert why_not(V2, "rabbitmq", None) is not None   # a version the broker did not say cannot be placed
