"""registry: which codecs run for which binding."""
from __future__ import annotations

import pytest

from fixtures.codecs.base import Codec
from fixtures.codecs.registry import BINDINGS, all_codecs, codecs_for


@pytest.mark.parametrize("binding, names", [
    ("ce-amqp", ["mqconform-reference", "cloudevents-sdk-python"]),
    ("ce-rabbitmq", ["mqconform-reference", "cloudevents-sdk-python"]),
    ("ce-rocketmq", ["mqconform-reference"]),
])
def test_codecs_for(binding, names):
    codecs = codecs_for(binding)
    assert [c.info.name for c in codecs] == names
    assert all(isinstance(c, Codec) and c.info.binding == binding for c in codecs)


def test_reference_version_is_the_project_version():
    assert {c.info.version for c in all_codecs() if c.info.name == "mqconform-reference"} == {"0.1.0"}


def test_all_codecs_and_non_bindings():
    assert len(all_codecs()) == 5 and BINDINGS == ("ce-amqp", "ce-rabbitmq", "ce-rocketmq")
    assert codecs_for("rabbitmq-address@4.0") == []
