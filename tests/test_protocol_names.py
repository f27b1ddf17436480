"""Nothing outside a protocol's adapter and binding modules names a protocol id.

A place that must choose by protocol asks the protocol registry (fixtures/adapters/registry.py: a
registered attribute or part) instead of comparing with an id. This scans the Python modules of
fixtures/ (but the modules listed in OWNERS), reports/, certify/ and cli/ for a string literal that is
a protocol id, or holds one as a word ("mqconform-om/amqp091@x"), and names file and line of each.
Comments and docstrings may name protocols: they are not code.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("fixtures", "reports", "certify", "cli")
PROTOCOL_IDS = ("amqp091", "amqp10", "rocketmq-grpc")

# The modules that may name protocol ids, and why:
OWNERS = (
    "fixtures/adapters/",                  # each protocol's adapter registers its id; product parts choose a protocol's login
    "fixtures/codecs/",                    # the CloudEvents bindings: each is the binding of one protocol
    "fixtures/openmessaging/amqp091.py",   # the OpenMessaging bindings, one module per protocol
    "fixtures/openmessaging/amqp10.py",
    "fixtures/openmessaging/rocketmq.py",
    "fixtures/links/",                     # the second AMQP 1.0 client: an adapter of one protocol (its queues
                                           # made over AMQP 0-9-1 beside it, as fixtures/adapters/ do)
)

# A protocol id as a word of a literal: not a fact or a field that starts with one (`amqp10_auto_create`).
_NAMED = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, PROTOCOL_IDS)) + r")(?![\w-])")


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                found.add(id(body[0].value))
    return found


def literals_naming_protocols(path: Path, source: str) -> list[str]:
    """`FILE:LINE: 'literal'` for each string literal of the code that names a protocol id."""
    tree = ast.parse(source, filename=str(path))
    docs = _docstrings(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs \
                and _NAMED.search(node.value):
            out.append(f"{path}:{node.lineno}: {node.value!r}")
    return sorted(out, key=lambda s: (int(s.split(":")[1]), s))


def _scanned_modules():
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if not any(rel == o or (o.endswith("/") and rel.startswith(o)) for o in OWNERS):
                yield rel, path


def test_owners_exist():
    for owner in OWNERS:
        assert (ROOT / owner).exists(), f"{owner} is listed as a module that may name protocols but does not exist"


def test_no_module_outside_the_protocols_names_a_protocol_id():
    found = []
    for rel, path in _scanned_modules():
        found += literals_naming_protocols(Path(rel), path.read_text(encoding="utf-8"))
    found.sort(key=lambda s: (s.split(":")[0], int(s.split(":")[1])))
    assert not found, ("protocol ids named outside their adapter and binding modules (ask "
                       "fixtures/adapters/registry.py instead):\n" + "\n".join(found))


def test_the_scan_sees_code_and_not_comments_or_docstrings():
    source = ('"""Over amqp10."""\n'
              'def f(broker):\n'
              '    """amqp091 here is prose."""\n'
              '    # broker.adapter("amqp10") in a comment\n'
              '    facts = {"amqp10_auto_create": "true"}\n'
              '    return broker.adapter("amqp10"), f"mqconform-om/{x}", "mqconform-om/amqp091@t"\n')
    found = literals_naming_protocols(Path("m.py"), source)
    assert found == ["m.py:6: 'amqp10'", "m.py:6: 'mqconform-om/amqp091@t'"]
