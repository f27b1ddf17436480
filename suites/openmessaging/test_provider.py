"""openmessaging through a real OpenMessaging provider: every vector of vectors/openmessaging/,
through each provider of fixtures/provision/providers.yaml on every catalog target it names (its
shim process: docs/process-protocol.md). The rows are the provider's (kind provider, role product,
`<name>-<version>@<target>`), never the broker's.
"""
import pytest

from .conftest import KINDS, SPEC, run_om


@pytest.mark.targets()
@pytest.mark.vectors(SPEC, kind=KINDS)
def test_provider(vector, broker, registry, provider, request, om_figures):
    run_om(request, vector, broker, registry, provider.key, om_figures)
