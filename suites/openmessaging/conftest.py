"""Shared by the OpenMessaging suites: run a vector over one protocol of a target, keep its figures.

Every OpenMessaging vector of a target runs in a thread pool started when the target's first
test gets its broker (fixtures/openmessaging/pool.py), so timed vectors overlap with each
other and with the target's other tests. Figures a
vector measures (priority inversion rate, delivery lateness, ...) are written,
pass or fail, to `<results>.openmessaging-figures.jsonl` beside the results file, each line with its
run's id. What a
passing vector established (notes on what was tested, who set each header it checked, the
clauses whose checks held) goes into the row through the plugin's `findings`; a failing or
unjudged vector's exception carries its own.
"""
import json
import os
import threading

import pytest

from fixtures.links import om_second
from fixtures.openmessaging import faults, pool, runner
from fixtures.openmessaging.identity import reference_provider
from fixtures.plugin import keys
from fixtures.plugin.outcomes import findings, name_implementation
from fixtures.plugin.run import results_path

SPEC = runner.SPEC
KINDS = ("om-message", "om-scenario", "om-fault")   # the kinds these suites collect (fixtures/kinds/)
_LOCK = threading.Lock()


@pytest.fixture(scope="session")
def om_figures(request):
    path = results_path(request.config)
    if path is None:
        yield None
        return
    out = path.with_name(path.name + ".openmessaging-figures.jsonl")
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as fh:
        yield fh
    pool.shutdown()


def pytest_itemcollected(item):
    """Every test here runs mqconform's mapping over one protocol of a target: its row is the
    reference provider's (fixtures/openmessaging/identity.py), named at collection so that a row
    whose broker never started names it too."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    marker = item.get_closest_marker("targets")
    target, vector = params.get("target"), params.get("vector")
    if marker is None or not marker.args or getattr(vector, "spec", None) != SPEC or not hasattr(target, "product"):
        return
    protocol, version = marker.args[0], item.config.stash[keys.RUN]["suite_version"]
    name_implementation(item, lambda broker: reference_provider(broker, target.product, protocol, version))


def _observed(request, vector, protocol, found) -> None:
    """The record the row was judged from (fixtures/openmessaging/observation.py), pass or not, to
    `<results>.openmessaging-observations.jsonl` beside the results file: one line per row, by its run
    and test id, written whole with one append (xdist workers share the file), so that `audit` can
    judge the row again without a broker."""
    record = getattr(found, "observation", None)
    path = results_path(request.config)
    if record is None or path is None:
        return
    line = json.dumps({"run_id": request.config.stash[keys.RUN]["run_id"], "test_id": request.node.nodeid,
                       "vector_id": vector.id, "protocol": protocol, "observation": record}, sort_keys=True) + "\n"
    out = path.with_name(path.name + ".openmessaging-observations.jsonl")
    out.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, line.encode("utf-8"))
    finally:
        os.close(fd)


def run_om(request, vector, broker, registry, protocol, om_figures):
    # The shared connection names the client library in the result row. A provider under test runs in
    # its own process; a fault vector's result comes from the target's fault stage, which restarts,
    # kills and pauses the broker in the background while this test waits: this thread never touches
    # the broker then (a connection refused mid-restart would have the target marked dead, run b11):
    # its row names the protocol's client library without a connection.
    if not protocol.startswith("provider:"):
        if faults.is_fault(vector):
            broker.name_library(protocol)
        else:
            broker.adapter(protocol)
    try:
        # over AMQP 1.0 a failure is seen again by the second client (fixtures/links/om_second.py; --one-client: not)
        figures, found = om_second.witnessed(lambda: pool.result(request, vector, broker, protocol, registry), vector,
                                             broker, registry, protocol,
                                             engaged=not request.config.getoption("one_client", default=False))
    except Exception as exc:
        _observed(request, vector, protocol, getattr(exc, "findings", None))
        raise
    _observed(request, vector, protocol, found)
    findings(request.node).merge(found)
    if figures and om_figures is not None:
        with _LOCK:
            # the file gathers every run's figures, as the results file does its rows: each says its run
            om_figures.write(json.dumps({"run_id": request.config.stash[keys.RUN]["run_id"], "target": broker.target.name,
                                         "protocol": protocol, "vector_id": vector.id, "figures": figures},
                                        sort_keys=True) + "\n")
            om_figures.flush()
