"""Drawn CloudEvents through every broker of the run, for every binding its protocols carry.

For each target, each CloudEvents binding whose protocol it speaks (ce-amqp over AMQP 1.0,
ce-rabbitmq over AMQP 0-9-1, ce-rocketmq over RocketMQ gRPC) and both content modes, hypothesis
draws events (fixtures/strategies) and each goes through the broker and back: it must come back
unchanged and decode to the same event (fixtures/strategies/brokers.py). Cross-protocol pairs are
measured, not asserted, by suites/cloudevents/test_cross_protocol.py: no clause asks a broker to
convert between protocols.

These are not conformance rows: a failure is a pytest failure that prints the shrunk event and the
`python -m fixtures.strategies save` command that makes it a vector, which then runs on every
target. Examples per case follow the hypothesis profile (quick: 25, derandomized).
"""
import pytest
from hypothesis import HealthCheck, given, settings

from fixtures.codecs.base import MODES
from fixtures.codecs.bindings import PROFILES
from fixtures.plugin.targets import reach, run_targets
from fixtures.run.caseid import CaseId
from fixtures.strategies import events
from fixtures.strategies.brokers import check_through_broker


def pytest_generate_tests(metafunc):
    if "ptarget" not in metafunc.fixturenames:
        return
    params = []
    for target in run_targets(metafunc.config):
        for spec, profile in PROFILES.items():
            if profile.protocol in target.protocols and target.runs_spec(spec):
                # the case id names the target: one worker per target under --dist loadgroup
                params += [pytest.param(spec, mode, target, id=str(CaseId(f"{spec}-{mode}", target.name))) for mode in MODES]
    metafunc.parametrize("spec,mode,ptarget", params)


@pytest.fixture
def broker(ptarget, request):
    """The broker behind `ptarget` (this module's own target parameter: its cases write no rows)."""
    return reach(request, ptarget)


# The broker is started once per target and shared (the run's BrokerPool), so the function-scoped fixture is safe.
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large])
@given(event=events())
def test_event_survives_the_broker(spec, mode, broker, event):
    check_through_broker(broker, spec, mode, event)
