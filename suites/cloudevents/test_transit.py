"""CloudEvents messages through brokers (a measurement, fixtures/measurements/transit.py).

The bindings describe codecs, not brokers ("This specification does not prescribe rules
constraining transfer or settlement of event messages ..."), so these cases write no
conformance rows: for each vector of each binding and each broker that speaks the binding's
protocol, they record whether the message came back, how it changed, and whether it still
satisfies the vector, in `transit.jsonl` and `transit.md` beside the results file. A case
fails only when the broker cannot be used at all.
"""
import pytest

from fixtures.adapters import registry as adapters
from fixtures.codecs.bindings import PROFILES
from fixtures.measurements import transit
from fixtures.plugin.run import results_path, run_id
from fixtures.plugin.targets import reach, run_targets
from fixtures.plugin.vectors import vector_set
from fixtures.run.caseid import CaseId

_ROWS = []
SPECS = ("ce-amqp", "ce-rabbitmq", "ce-rocketmq")


def pytest_generate_tests(metafunc):
    if "xvector" not in metafunc.fixturenames:
        return
    vs = vector_set(metafunc.config)
    cases = []
    if not isinstance(vs, Exception):
        for spec in SPECS:
            protocol = PROFILES[spec].protocol
            targets = [t for t in run_targets(metafunc.config) if protocol in t.protocols]
            # the case id names the target: the unit of work under --dist loadgroup (fixtures/run/scheduling.py)
            cases += [pytest.param(v, t, id=str(CaseId(v.id, t.name)))
                      for v in vs.by_spec(spec) if v.kind in ("encode", "decode") for t in targets]
    metafunc.parametrize("xvector,xtarget", cases)


@pytest.fixture(scope="module")
def observations(request):
    yield _ROWS
    path = results_path(request.config)
    if path is not None and _ROWS:
        transit.record(_ROWS, path.with_name(path.stem + ".transit.jsonl"), path.with_name(path.stem + ".transit.md"),
                       run_id(request.config))
    # The module fixture can be set up again in one worker (xdist hands out one target at a
    # time): rows already written must not be written twice.
    _ROWS.clear()
    _BATCHES.clear()


def test_transit(xvector, xtarget, observations, request):
    broker, registry = reach(request, xtarget), vector_set(request.config).registry
    # RocketMQ's vectors of a target go through its topic together (one round trip each was the run's
    # critical path): the first case of the target sends them all, each case records its own.
    if PROFILES[xvector.spec].protocol == adapters.the_one_offering("topics").id:
        obs = _batched(request, broker, xtarget, registry).pop(xvector.id, None) or \
            transit.observe(broker, xvector, registry)
    else:
        obs = transit.observe(broker, xvector, registry)
    observations.append({**obs, "run_id": run_id(request.config)})


_BATCHES: dict[str, dict] = {}


def _batched(request, broker, target, registry) -> dict:
    """The observations of this session's RocketMQ transit cases of `target`, made once."""
    if target.name not in _BATCHES:
        mine = [i.callspec.params["xvector"] for i in request.session.items
                if getattr(i, "originalname", None) == "test_transit"
                and i.callspec.params["xtarget"].name == target.name
                and PROFILES[i.callspec.params["xvector"].spec].protocol == adapters.the_one_offering("topics").id]
        _BATCHES[target.name] = transit.observe_many(broker, mine, registry)
    return _BATCHES[target.name]
