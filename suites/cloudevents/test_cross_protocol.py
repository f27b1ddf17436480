"""Cross-protocol survival on brokers that offer AMQP 1.0 and AMQP 0-9-1 (a measurement).

Each ce-amqp encode vector's message is published over AMQP 1.0 and consumed over
0-9-1, and each ce-rabbitmq one the other way (fixtures/measurements/crossproto.py). No clause
asks a broker to convert between protocols, so these cases write no conformance
rows: they record what survived in `cross-protocol.jsonl` and `cross-protocol.md`
beside the results file. A case fails only when the broker cannot be used at all.
"""
import pytest

from fixtures.measurements import crossproto
from fixtures.plugin.run import results_path, run_id
from fixtures.plugin.targets import reach, run_targets
from fixtures.plugin.vectors import vector_set
from fixtures.run.caseid import CaseId

_ROWS = []


def pytest_generate_tests(metafunc):
    if "xvector" not in metafunc.fixturenames:
        return
    vs = vector_set(metafunc.config)
    vectors = [] if isinstance(vs, Exception) else [
        v for spec in ("ce-amqp", "ce-rabbitmq") for v in vs.by_spec(spec, "encode")]
    targets = [t for t in run_targets(metafunc.config) if {"amqp10", "amqp091"} <= set(t.protocols) and t.runs_spec("ce-amqp")]
    # the case id names the target: the unit of work under --dist loadgroup (fixtures/run/scheduling.py)
    metafunc.parametrize("xvector,xtarget", [pytest.param(v, t, id=str(CaseId(v.id, t.name))) for v in vectors for t in targets])


@pytest.fixture(scope="module")
def observations(request):
    yield _ROWS
    path = results_path(request.config)
    if path is not None and _ROWS:
        crossproto.record(_ROWS, path.with_name(path.stem + ".cross-protocol.jsonl"),
                          path.with_name(path.stem + ".cross-protocol.md"), run_id(request.config))
    # The module fixture can be set up again in one worker (xdist hands out one target at a
    # time): rows already written must not be written twice.
    _ROWS.clear()


def test_cross_protocol(xvector, xtarget, observations, request):
    try:
        obs = crossproto.cross(reach(request, xtarget), xvector)
    except ValueError as exc:   # the binding refuses this event: nothing to send
        pytest.skip(f"no message to send: {exc}")
    observations.append({**obs, "run_id": run_id(request.config)})
