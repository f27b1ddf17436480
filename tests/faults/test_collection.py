"""Fault vectors in the collection (fixtures/plugin/collect.py): after every other test of their
target, and deselected (no rows) without --faults."""
from types import SimpleNamespace

from fixtures.plugin.collect import in_scope_order, without_faults


class _Item:
    def __init__(self, nodeid, kind="om-message", scenario=None):
        self.nodeid = nodeid
        target = SimpleNamespace(name=nodeid.rsplit("::", 1)[-1].rstrip("]"))
        vector = SimpleNamespace(spec="openmessaging", kind=kind, input={"scenario": scenario} if scenario else {})
        self.callspec = SimpleNamespace(params={"vector": vector, "target": target})

    def get_closest_marker(self, name):
        return SimpleNamespace(args=("amqp091",)) if name == "targets" else None


class _Config:
    def __init__(self, faults):
        self.faults, self.deselected = faults, []
        self.hook = SimpleNamespace(pytest_deselected=lambda items: self.deselected.extend(items))

    def getoption(self, name):
        assert name == "faults"
        return self.faults


def _items():
    """Faulting is the kind's (om-fault), never the scenario's name: an om-scenario is never faulting."""
    return [_Item("om.py::t[f1::a]", "om-fault", "fault"), _Item("om.py::t[v1::a]"),
            _Item("om.py::t[r1::a]", "om-fault", "durability-restart"),
            _Item("om.py::t[v2::b]", "om-scenario", "redelivery"), _Item("om.py::t[v3::a]", "om-scenario", "fault")]


def test_a_targets_fault_vectors_run_after_all_its_other_tests():
    order = [i.nodeid for i in in_scope_order(_items())]
    assert order == ["om.py::t[v1::a]", "om.py::t[v3::a]", "om.py::t[f1::a]", "om.py::t[r1::a]", "om.py::t[v2::b]"]


def test_without_the_option_fault_vectors_are_deselected():
    items, config = _items(), _Config(False)
    without_faults(config, items)
    assert [i.nodeid for i in config.deselected] == ["om.py::t[f1::a]", "om.py::t[r1::a]"]
    assert len(items) == 3


def test_with_the_option_they_stay():
    items, config = _items(), _Config(True)
    without_faults(config, items)
    assert len(items) == 5 and config.deselected == []
