"""Fault vectors in the collection (fixtures/plugin/collect.py): after every other test of their
target, and deselected (no rows) without --faults or with --no-faults; the main job passes --faults
unless told --no-faults."""
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

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
    def __init__(self, faults, no_faults=False):
        self.options, self.deselected = {"faults": faults, "no_faults": no_faults}, []
        self.hook = SimpleNamespace(pytest_deselected=lambda items: self.deselected.extend(items))

    def getoption(self, name):
        return self.options[name]


def _items():
    """Faulting is the kind's (om-fault), never the scenario's name: an om-scenario is never faulting."""
    return [_Item("om.py::t[f1::a]", "om-fault", "fault"), _Item("om.py::t[v1::a]"),
            _Item("om.py::t[r1::a]", "om-fault", "durability-restart"),
            _Item("om.py::t[v2::b]", "om-scenario", "redelivery"), _Item("om.py::t[v3::a]", "om-scenario", "fault")]


def test_fault_vectors_run_after_every_other_test_by_target():
    # A target's fault stage runs in the background from when the process moves on from its tests;
    # its fault tests, last of all, wait for it (fixtures/openmessaging/pool.py).
    order = [i.nodeid for i in in_scope_order(_items())]
    assert order == ["om.py::t[v1::a]", "om.py::t[v3::a]", "om.py::t[v2::b]", "om.py::t[f1::a]", "om.py::t[r1::a]"]


def test_without_the_option_fault_vectors_are_deselected():
    items, config = _items(), _Config(False)
    without_faults(config, items)
    assert [i.nodeid for i in config.deselected] == ["om.py::t[f1::a]", "om.py::t[r1::a]"]
    assert len(items) == 3


def test_with_the_option_they_stay():
    items, config = _items(), _Config(True)
    without_faults(config, items)
    assert len(items) == 5 and config.deselected == []


def test_no_faults_leaves_them_out_and_both_options_are_a_usage_error():
    items, config = _items(), _Config(False, no_faults=True)
    without_faults(config, items)
    assert len(items) == 3
    with pytest.raises(pytest.UsageError, match="--faults and --no-faults"):
        without_faults(_Config(True, no_faults=True), _items())


@pytest.mark.parametrize("args, passed", [((), True), (("--no-faults",), False), (("--faults",), False),
                                          (("--spec", "x", "--", "--no-faults"), True)])
def test_the_main_job_runs_the_faults_unless_told_no_faults(tmp_path, args, passed):
    # The script's own lines that choose, run with bash on the arguments (the script itself is the main job).
    import subprocess
    script = (Path(__file__).resolve().parents[2] / "scripts" / "conformance.sh").read_text()
    lines = re.search(r"^faults=\(--faults\)\n^for arg in .*$", script, re.M).group(0)
    out = subprocess.run(["bash", "-c", lines + '\necho "${faults[@]}"', "x", *args], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == ("--faults" if passed else "")
