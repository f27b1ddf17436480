"""ce-rocketmq: codec vectors (vectors/ce-rocketmq/*.yaml) against every codec of the binding.

Each vector file is one section or topic of the spec; the vectors carry their
clause ids and the verifiers quote them on failure.
"""
import pytest

from fixtures.kinds import codec_checks as verify


@pytest.mark.vectors("ce-rocketmq", kind="encode")
def test_encode(vector, codec, registry):
    verify.run_encode(vector, codec, registry)


@pytest.mark.vectors("ce-rocketmq", kind="decode")
def test_decode(vector, codec, registry):
    verify.run_decode(vector, codec, registry)
