"""The units the xdist scheduler hands out (fixtures/run/scheduling.py): the targets longest first, a
target's fault stage (`<scope>#faults`) only once every other unit is out, and only to the worker that
ran the target's other tests (its stage runs there in the background), never to another."""
import pytest

from fixtures.run.scheduling import FAULT_UNIT, next_units

WEIGHTS = {"a": 10.0, "b": 50.0, "c": 5.0}
A, B, C = "impl:a", "impl:b", "impl:c"


def test_other_units_first_the_longest_target_first():
    queue = [A, A + FAULT_UNIT, B, B + FAULT_UNIT, "suites/x.py"]
    assert next_units(queue, WEIGHTS, "n1", {}, ["n1", "n2"]) == ["suites/x.py"]    # no broker: first
    assert next_units([A, A + FAULT_UNIT, B, B + FAULT_UNIT], WEIGHTS, "n1", {}, ["n1", "n2"]) == [B]


def test_a_fault_stage_goes_to_the_worker_that_ran_its_target_and_only_then():
    owner = {A: "n1", B: "n2", C: "n1"}
    queue = [A + FAULT_UNIT, B + FAULT_UNIT, C + FAULT_UNIT]
    assert next_units(queue, WEIGHTS, "n1", owner, ["n1", "n2"]) == [A + FAULT_UNIT, C + FAULT_UNIT]
    assert next_units(queue, WEIGHTS, "n2", owner, ["n1", "n2"]) == [B + FAULT_UNIT]
    assert next_units([B + FAULT_UNIT], WEIGHTS, "n1", owner, ["n1", "n2"]) == []     # n2's: n1 waits
    assert next_units(queue + [C], WEIGHTS, "n2", owner, ["n1", "n2"]) == [C]          # not while others are left


def test_a_stage_nobody_ran_or_whose_worker_is_gone_goes_to_anyone():
    assert next_units([A + FAULT_UNIT], WEIGHTS, "n2", {}, ["n1", "n2"]) == [A + FAULT_UNIT]
    assert next_units([A + FAULT_UNIT], WEIGHTS, "n2", {A: "n1"}, ["n2"]) == [A + FAULT_UNIT]


def test_a_fault_test_never_touches_its_broker_while_the_stage_runs(monkeypatch):
    """A fault vector's result comes from the target's fault stage, which restarts the broker in the
    background: the waiting test opens no connection (one refused mid-restart had the target marked
    dead in run b11); a vector of any other kind names its adapter by its shared connection."""
    import types

    from fixtures.openmessaging import faults
    from suites.openmessaging import conftest as om_conftest

    touched, named = [], []

    class Broker:
        def name_library(self, protocol):
            named.append(protocol)

        def adapter(self, protocol):
            touched.append(protocol)
            raise AssertionError("the broker was touched")
    monkeypatch.setattr(om_conftest.om_second, "witnessed", lambda run, *a, **k: ({}, types.SimpleNamespace()))
    monkeypatch.setattr(om_conftest, "_observed", lambda *a, **k: None)
    monkeypatch.setattr(om_conftest, "findings", lambda node: types.SimpleNamespace(merge=lambda found: None))
    request = types.SimpleNamespace(config=types.SimpleNamespace(getoption=lambda *a, **k: False), node=None)
    fault_vector = types.SimpleNamespace(id="openmessaging.faults.at-least-once.restart", kind="om-fault")
    assert faults.is_fault(fault_vector)
    om_conftest.run_om(request, fault_vector, Broker(), None, "amqp091", None)
    assert touched == [] and named == ["amqp091"]      # its row names the library all the same
    other = types.SimpleNamespace(id="openmessaging.delivery-semantics.at-least-once", kind="om-scenario")
    with pytest.raises(AssertionError, match="touched"):
        om_conftest.run_om(request, other, Broker(), None, "amqp091", None)


def test_a_row_names_the_library_of_its_own_protocol_not_the_brokers_others():
    """Review 18: a broker's rows named every library opened on it so far (pika on an AMQP 1.0 row,
    in whatever order the tests came); a row with a protocol names that protocol's library alone."""
    import types

    from fixtures.adapters import registry
    from fixtures.run.brokers import BrokerPool

    pool = BrokerPool("r" * 32)
    target = types.SimpleNamespace(key=("t", ""), name="t")
    pool._brokers[target.key] = types.SimpleNamespace(identity=lambda: {"name": "t"},
                                                      libraries=["pika 1.3.2", "python-qpid-proton 0.40.0"])
    amqp10 = registry.get("amqp10").adapter.library
    assert pool.identity(target, "amqp10") == ({"name": "t"}, amqp10)
    assert pool.identity(target) == ({"name": "t"}, "pika 1.3.2, python-qpid-proton 0.40.0")   # a row of several
    assert pool.identity(target, "no-such-protocol")[1] == "pika 1.3.2, python-qpid-proton 0.40.0"
