"""Applicability from the text: version bounds, and the reason quoting the sentence."""
import pytest

from fixtures.vectordata.registry import Applicability
from fixtures.verdict.applicability import version_in, why_not


@pytest.mark.parametrize("version, bounds, ok", [
    ("4.0.5", ">=4.0", True), ("3.10.8", ">=4.0", False), ("4.0.0-beta.1", ">=4.0", True),
    ("4.0.5", "4.0.*", True), ("4.1.0", "4.0.*", False), ("4.3.6", ">=4.0,<4.2", False),
    ("4.1.2", ">=4.0, <4.2", True), ("3.13", "==3.13", True), ("3.13.7", "==3.13", False), ("nightly", ">=4.0", False),
    ("4.0.0-beta.1", "4.0.0-*", True), ("4.0.0", "4.0.0-*", False), ("4.0.5", "4.0.0-*", False),
    ("4.1.0-rc.1", "4.0.0-*", False),
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


def test_a_text_about_codecs_does_not_describe_brokers():
    codecs = (Applicability(None, None, "it solely defines how CloudEvents are expressed as AMQP 1.0 messages.", "codec"),)
    assert why_not(codecs, "mqconform-reference", "0.1.0", "codec") is None
    reason = why_not(codecs, "rabbitmq", "4.0.5", "broker")
    assert "codecs" in reason and "solely defines" in reason and "broker rabbitmq 4.0.5" in reason


def test_another_specs_sentence_is_quoted_too():
    draft = (Applicability("rabbitmq", "4.0.0-*", "added this to the 4.0.0 milestone", None,
                           ("rabbitmq-address@4.0", "it differs from the draft")),)
    reason = why_not(draft, "rabbitmq", "4.0.5", "broker")
    assert "4.0.0 milestone" in reason and 'rabbitmq-address@4.0 says: "it differs from the draft"' in reason
