"""The binding interface: one abstract class, the same names in every protocol module, no import
cycle between the modules of fixtures/openmessaging/."""
import ast
import inspect
from pathlib import Path

import pytest

from fixtures.openmessaging import binding, protocols
from tests.paths import ROOT

PACKAGE = ROOT / "fixtures" / "openmessaging"


def _local_imports(path: Path) -> set[str]:
    """Modules of the package that `path` imports (at module level or inside functions)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("fixtures.openmessaging."):
            out.add(node.module.split(".")[2])
    return out & {p.stem for p in PACKAGE.glob("*.py")}


def test_no_import_cycle_in_the_package():
    graph = {p.stem: _local_imports(p) for p in PACKAGE.glob("*.py")}
    state: dict[str, int] = {}

    def visit(node, stack):
        if state.get(node) == 1:
            raise AssertionError("import cycle: " + " -> ".join(stack + [node]))
        if state.get(node) == 2:
            return
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            visit(nxt, stack + [node])
        state[node] = 2
    for n in sorted(graph):
        visit(n, [])
    # the protocol modules import binding.py, never each other nor protocols.py
    for proto in ("amqp091", "amqp10", "rocketmq"):
        assert not graph[proto] & {"amqp091", "amqp10", "rocketmq", "protocols", "runner"}, (proto, graph[proto])
    assert not graph["binding"] & {"amqp091", "amqp10", "rocketmq", "protocols"}


def test_binding_is_abstract_and_documents_its_methods():
    assert inspect.isabstract(binding.Binding) and inspect.isabstract(binding.Consumer)
    for cls in (binding.Binding, binding.Consumer):
        for name in cls.__abstractmethods__:
            assert inspect.getdoc(getattr(cls, name)), (cls.__name__, name)
    with pytest.raises(TypeError):
        binding.Binding(None)


@pytest.mark.parametrize("protocol", sorted(protocols.MODULES))
def test_every_protocol_module_exposes_the_same_interface(protocol):
    module = protocols.MODULES[protocol]
    for name in protocols.INTERFACE:
        assert hasattr(module, name), (protocol, name)
    assert module.PROTOCOL == protocol
    classes = [c for _, c in inspect.getmembers(module, inspect.isclass)
               if issubclass(c, binding.Binding) and c is not binding.Binding]
    assert len(classes) == 1 and not inspect.isabstract(classes[0]), protocol
    consumers = [c for _, c in inspect.getmembers(module, inspect.isclass)
                 if issubclass(c, binding.Consumer) and c.__module__ == module.__name__]
    assert len(consumers) == 1 and not inspect.isabstract(consumers[0]), protocol
    params = list(inspect.signature(module.property_to_native).parameters)
    assert params == ["name", "v", "mapping"], (protocol, params)


def test_every_binding_mapping_protocol_is_a_module():
    from fixtures.openmessaging.mapping import default_mapping
    assert set(default_mapping().protocols) == set(protocols.MODULES)
