"""The collection order (fixtures/plugin/collect.py in_scope_order): a scope's tests together, in the
order scopes first come, and a target's pooled OpenMessaging tests after its other tests."""
from types import SimpleNamespace

from fixtures.plugin.collect import in_scope_order


class _Item:
    def __init__(self, nodeid, om=False):
        self.nodeid = nodeid
        target = SimpleNamespace(name=nodeid.rsplit("::", 1)[-1].rstrip("]")) if "[" in nodeid else None
        spec, kind = ("openmessaging", "om-message") if om else ("ce-amqp", "behaviour")
        self.callspec = SimpleNamespace(params={"vector": SimpleNamespace(spec=spec, kind=kind, input={}), "target": target})
        self._om = om

    def get_closest_marker(self, name):
        return SimpleNamespace(args=("amqp10",)) if name == "targets" and self._om else None

    def __repr__(self):
        return self.nodeid


def test_a_targets_openmessaging_tests_come_after_its_others_and_scopes_stay_together():
    items = [_Item("c.py::t[v1::ref]"), _Item("x.py::t[v1::a]"), _Item("x.py::t[v1::b]"),
             _Item("om.py::t[v1::a]", om=True), _Item("om.py::t[v1::b]", om=True), _Item("p.py::t[v1::a]"),
             _Item("p.py::t[v1::b]"), _Item("plain.py::test_x")]
    order = [i.nodeid for i in in_scope_order(items)]
    assert order == ["c.py::t[v1::ref]", "x.py::t[v1::a]", "p.py::t[v1::a]", "om.py::t[v1::a]",
                     "x.py::t[v1::b]", "p.py::t[v1::b]", "om.py::t[v1::b]", "plain.py::test_x"]


def test_a_collection_without_pooled_tests_keeps_its_order():
    items = [_Item("x.py::t[v1::a]"), _Item("x.py::t[v1::b]"), _Item("p.py::t[v1::a]")]
    assert in_scope_order(items) == items
