"""A MAY row where the implementation produced nothing for the MAY is `unsupported`, never a pass
(docs/verdicts.md, "Step roles"; fixtures/kinds/codec_checks.py `_permission_shown`).

The structured-mode vectors citing 3.2.3 ("Implementations MAY include the same ... as defined for
the binary mode") check that repeated attribute properties agree with the JSON event. A message
that repeats none satisfied that check vacuously and passed; it now shows nothing of the permission.
The rule is the check code's, for every codec and binding alike: shown here with the reference
codecs and a stand-in that adds the binary mode's properties to their structured message."""
from __future__ import annotations

import dataclasses

import pytest

from fixtures.codecs import values
from fixtures.codecs.bindings import PROFILES
from fixtures.codecs.model import Amqp091Message, AmqpMessage, Typed
from fixtures.codecs.registry import codecs_for
from fixtures.kinds import codec_checks as verify
from fixtures.vectordata.vectors import load_vectors
from fixtures.verdict.outcomes import Unsupported
from fixtures.verdict.verdicts import decide
from tests.paths import VECTORS

MAY_VECTORS = {"ce-amqp": "ce-amqp.structured.application-properties-agree",
               "ce-rabbitmq": "ce-rabbitmq.structured.headers-agree",
               "ce-rocketmq": "ce-rocketmq.structured.properties-agree"}


@pytest.fixture(scope="module")
def vs():
    return load_vectors(VECTORS)


def reference(spec):
    return next(c for c in codecs_for(spec) if c.info.name == "mqconform-reference")


class Repeating:
    """The reference codec, with its binary mode's attribute properties repeated on its structured
    message (`change` may alter one of them, to disagree with the JSON event)."""

    def __init__(self, spec, change=None):
        self.inner, self.spec, self.change = reference(spec), spec, change
        self.info, self.refusals = self.inner.info, self.inner.refusals

    def encode(self, event, mode):
        msg = self.inner.encode(event, mode)
        profile = PROFILES[self.spec]
        repeated = {k: v for k, v in profile.slots(self.inner.encode(event, "binary")).items()
                    if k not in profile.content_type_keys}
        if self.change:
            repeated.update(self.change)
        if isinstance(msg, AmqpMessage):
            return dataclasses.replace(msg, application_properties={**msg.application_properties, **repeated})
        if isinstance(msg, Amqp091Message):
            return dataclasses.replace(msg, headers={**msg.headers, **repeated})
        return dataclasses.replace(msg, properties={**msg.properties,
                                                    **{k: v.value if isinstance(v, Typed) else v for k, v in repeated.items()}})


def row(vector, codec, registry):
    try:
        verify.run_encode(vector, codec, registry)
    except Exception as exc:  # noqa: BLE001 - the row is decided from what was raised
        return decide(vector, registry, exc), exc
    return decide(vector, registry, None), None


@pytest.mark.parametrize("spec", sorted(MAY_VECTORS))
def test_a_structured_message_repeating_no_property_is_unsupported_not_a_pass(spec, vs):
    vector = next(v for v in vs.by_spec(spec) if v.id == MAY_VECTORS[spec])
    codec = reference(spec)
    written = codec.encode(values.to_event(vector.input["event"]), "structured")
    assert not PROFILES[spec].attributes(written), "the reference codec repeats no property (the case under test)"
    verdict, exc = row(vector, codec, vs.registry)
    assert isinstance(exc, Unsupported) and exc.feature == PROFILES[spec].structured_headers_clause
    assert verdict.outcome == "unsupported", verdict.message
    assert set(verdict.clause_outcomes.values()) == {"unsupported"}


@pytest.mark.parametrize("spec", sorted(MAY_VECTORS))
def test_repeated_properties_that_agree_pass(spec, vs):
    vector = next(v for v in vs.by_spec(spec) if v.id == MAY_VECTORS[spec])
    verdict, exc = row(vector, Repeating(spec), vs.registry)
    assert exc is None and verdict.outcome == "pass", verdict.message


@pytest.mark.parametrize("spec", sorted(MAY_VECTORS))
def test_repeated_properties_that_disagree_are_the_permission_taken_and_fail(spec, vs):
    vector = next(v for v in vs.by_spec(spec) if v.id == MAY_VECTORS[spec])
    prefix = PROFILES[spec].prefixes[0]
    other = Typed("string", "OTHER") if spec != "ce-rocketmq" else "OTHER"
    verdict, _ = row(vector, Repeating(spec, {f"{prefix}id": other}), vs.registry)
    assert verdict.outcome == "fail", verdict.message
    assert "the permitted (MAY) behaviour was taken" in verdict.message and "disagrees" in verdict.message


def test_the_rule_binds_every_binding_profile():
    # One clause per binding names the permission; the check finds it there, never per vector.
    assert {s: p.structured_headers_clause for s, p in PROFILES.items()} == {
        "ce-amqp": "ce-amqp/3.2.3/binary-headers-in-structured",
        "ce-rabbitmq": "ce-rabbitmq/3.2.3/binary-headers-in-structured",
        "ce-rocketmq": "ce-rocketmq/3.2.3/binary-headers-in-structured"}
