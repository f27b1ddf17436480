"""The CloudEvents Python SDK in process (fixtures/codecs/sdk_*.py) and through its shim
(shims/cloudevents-python/, docs/codec-protocol.md) give the same verdict on every ce-amqp and
ce-rabbitmq vector: the protocol neither adds nor hides a verdict of the SDK.

A verdict is the row's outcome, its error kind and its clause outcomes; messages differ by design
(a refusal is the SDK's exception in process, the shim's `rejected` through the protocol)."""
from __future__ import annotations

import pytest

from fixtures.codecs.process_codec import ProcessCodec, close_all
from fixtures.codecs.registry import codecs_for, load_process_codecs
from fixtures.kinds import codec_checks as verify
from fixtures.vectordata.vectors import load_vectors
from fixtures.verdict.verdicts import decide
from tests.paths import VECTORS

SPECS = ("ce-amqp", "ce-rabbitmq")
SDK = "cloudevents-sdk-python"

# Vectors whose verdicts differ, with why (none known: an entry here must say which side is right).
DIFFERENCES: dict[str, str] = {}


def verdict(vector, codec, registry):
    run = verify.run_encode if vector.kind == "encode" else verify.run_decode
    try:
        run(vector, codec, registry)
        exc = None
    except Exception as e:  # noqa: BLE001 - the row's verdict is decided from whatever was raised
        exc = e
    v = decide(vector, registry, exc)
    return (v.outcome, v.error_kind, dict(v.clause_outcomes)), v.message


@pytest.fixture(scope="module")
def vector_set():
    return load_vectors(VECTORS)


@pytest.fixture(scope="module")
def shim_spec():
    spec = next(s for s in load_process_codecs() if s.name == SDK)
    yield spec
    close_all()


@pytest.mark.parametrize("spec", SPECS)
def test_every_vector_has_the_same_verdict_in_process_and_through_the_shim(spec, vector_set, shim_spec):
    in_process = next(c for c in codecs_for(spec) if c.info.name == SDK)
    through = ProcessCodec(shim_spec, spec)
    vectors = vector_set.by_spec(spec)
    assert vectors
    differ = []
    for vector in vectors:
        a, a_msg = verdict(vector, in_process, vector_set.registry)
        b, b_msg = verdict(vector, through, vector_set.registry)
        if a != b and vector.id not in DIFFERENCES:
            differ.append(f"{vector.id}: in process {a[:2]} ({a_msg[:300]}); through the shim {b[:2]} ({b_msg[:300]})")
        if a == b and vector.id in DIFFERENCES:
            differ.append(f"{vector.id}: listed in DIFFERENCES but the verdicts agree now")
    assert through.info.version == in_process.info.version
    assert not differ, "\n".join(differ)
