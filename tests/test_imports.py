"""The import graph of fixtures/, reports/, certify/ and cli/: no circles, and no import that runs
back up the order of rooms.

Every import statement counts, also one inside a function: a circle hidden in a function is a
circle all the same. A room is a package of fixtures/ (`fixtures.run`) or of reports/ (`reports.engine`;
a module at the top of reports/ is in the room `reports`, below its packages), or one of certify, cli.
ROOMS lists them bottom first; a module may import its own room and the rooms below it. A
lower room that must call something above takes a registration (as the protocol registry does),
never an import. A room's `__main__` is a command: it stands with cli, above every room.
"""
from __future__ import annotations

import ast
from collections import defaultdict

from .paths import ROOT

PACKAGES = ("fixtures", "reports", "certify", "cli")

# Bottom first; rooms of one tuple are side by side (neither above the other).
# fixtures.verdict is below fixtures.vectordata: the clause registry and its lint need the levels
# (verdict/levels.py) and a missing fact is a NotApplicable (verdict/outcomes.py), while the verdict
# code takes the clause registry as an argument and imports nothing of vectordata.
ROOMS = (
    ("fixtures", "fixtures.tree"),  # the package itself: its paths; which commit the tree is
    ("fixtures.verdict",),
    ("fixtures.vectordata",),
    ("fixtures.adapters", "fixtures.codecs", "fixtures.provision", "fixtures.process"),
    ("fixtures.run",),
    ("fixtures.clients",),          # client libraries under test: over fixtures.process, run by fixtures.kinds
    ("fixtures.kinds", "fixtures.measurements", "fixtures.openmessaging", "fixtures.faults", "fixtures.strategies",
     "fixtures.bench"),
    ("fixtures.links",),            # the second AMQP 1.0 client: runs behaviour vectors (fixtures.kinds) and
                                    # OpenMessaging rows over AMQP 1.0 (fixtures.openmessaging) again
    ("fixtures.plugin",),
    ("reports",),                   # the package itself: where the checkout is, what a local path is (paths.py)
    ("reports.rows",),              # the result row, and the rules every reader refuses one by
    ("reports.gate", "reports.views"),  # plain Python over rows: the gate and the auditor; the report's model
    ("reports.render",),            # the model rendered: HTML, Markdown, badges, the report folder
    ("reports.spark",),             # starting Spark: nothing below it needs a JVM
    ("reports.engine",),            # `reports build` and `reports diff` on Spark, over the session and the renderers
    ("reports.baseline",),          # DuckDB's build: the engine's store read through its logs, the same model
    ("reports.bench",),             # `reports bench` / `cluster`: runs the engine and the baseline as commands
    ("certify",),
    ("cli",),
)

# Imports that still run up, each with what removes it. The list only shrinks: an entry that no
# longer occurs fails the test too, so that it is deleted with the import.
KNOWN_UPWARD = {
    # expectations check `protocol:` against the registered protocol ids (adapters/registry.py)
    ("fixtures.verdict.expectations", "fixtures.adapters.registry"),
}


# Circles another change removes (the only ones left), by their modules. The list only shrinks.
KNOWN_CIRCLES: list[list[str]] = []


def _modules() -> dict[str, object]:
    mods = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            mods[name.removesuffix(".__init__")] = path
    return mods


def _imports(mods: dict) -> dict[str, dict[str, int]]:
    """module -> {imported module of ours: first line}, every import statement anywhere in it."""
    def resolve(name: str) -> str:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name

    edges: dict[str, dict[str, int]] = defaultdict(dict)
    for mod, path in mods.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package
                    for _ in range(node.level - 1):
                        up = up.rpartition(".")[0]
                    base = f"{up}.{node.module}" if node.module else up
                names = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            else:
                continue
            for name in names:
                target = resolve(name)
                if target and target != mod:
                    edges[mod].setdefault(target, node.lineno)
    return edges


def _circles(edges) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)

    for root in sorted(edges):
        if root in index:
            continue
        visit(root)
        work = [(root, iter(sorted(edges.get(root, ()))))]
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    visit(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while not comp or comp[-1] != v:
                        comp.append(stack.pop())
                        on.discard(comp[-1])
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def _room(mod: str) -> str:
    parts = mod.split(".")
    if parts[-1] == "__main__":
        return "cli"
    if parts[0] == "fixtures" or (parts[0] == "reports" and len(parts) > 1 and (ROOT / "reports" / parts[1]).is_dir()):
        return ".".join(parts[:2])
    return parts[0]


RANK = {room: i for i, rooms in enumerate(ROOMS) for room in rooms}


def _upward(edges) -> dict[tuple[str, str], str]:
    found = {}
    for mod, targets in edges.items():
        for target, line in targets.items():
            a, b = _room(mod), _room(target)
            if a != b and RANK[b] > RANK[a]:
                found[(mod, target)] = f"{mod} (line {line}) imports {target}: {b} is above {a}"
    return found


def test_every_module_is_in_a_room():
    mods = _modules()
    assert mods, "no modules found"
    assert [m for m in mods if _room(m) not in RANK] == []


def test_reports_keeps_at_most_10_modules_at_its_top():
    """reports/ holds its rooms; at its top only a few modules (its __init__, the command, its paths)."""
    top = sorted(p.name for p in (ROOT / "reports").glob("*.py"))
    assert len(top) <= 10, f"{len(top)} modules at the top of reports/ (at most 10: move them into a room): {top}"


def test_no_import_circles():
    circles = _circles(_imports(_modules()))
    new = [c for c in circles if c not in KNOWN_CIRCLES]
    assert new == [], "import circles (every import counts, also inside functions): " + "; ".join(
        " <-> ".join(c) for c in new)
    gone = [c for c in KNOWN_CIRCLES if c not in circles]
    assert gone == [], f"no longer circles: delete them from KNOWN_CIRCLES: {gone}"


def test_no_import_runs_up_the_rooms():
    found = _upward(_imports(_modules()))
    new = sorted(why for pair, why in found.items() if pair not in KNOWN_UPWARD)
    assert new == [], "imports that run up the room order (move the code down, or register it):\n" + "\n".join(new)


def test_the_known_upward_imports_still_exist():
    gone = sorted(KNOWN_UPWARD - set(_upward(_imports(_modules()))))
    assert gone == [], f"no longer imported: delete them from KNOWN_UPWARD: {gone}"


def test_the_check_sees_imports_inside_functions_and_relative_ones(tmp_path):
    """The graph builder on a tiny tree of its own: a relative import inside a function is an edge."""
    edges = _imports({"fixtures.run.a": _write(tmp_path / "a.py", "def f():\n    from ..plugin import keys\n"),
                      "fixtures.plugin.keys": _write(tmp_path / "keys.py", "import fixtures.run.a\n")})
    assert edges["fixtures.run.a"] == {"fixtures.plugin.keys": 2}
    assert _circles(edges) == [["fixtures.plugin.keys", "fixtures.run.a"]]
    assert list(_upward(edges)) == [("fixtures.run.a", "fixtures.plugin.keys")]


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path
