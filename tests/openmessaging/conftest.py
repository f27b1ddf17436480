"""A private vector tree of OpenMessaging only (its clause file and vectors), so these tests do not
depend on other specs' files loading."""
import pytest

from fixtures.vectordata.registry import load_registry
from fixtures.vectordata.vectors import load_vectors
from tests.paths import ROOT


@pytest.fixture(scope="session")
def om_tree(tmp_path_factory):
    tree = tmp_path_factory.mktemp("om-tree")
    (tree / "clauses").mkdir()
    (tree / "clauses" / "openmessaging.yaml").symlink_to(ROOT / "vectors" / "clauses" / "openmessaging.yaml")
    (tree / "openmessaging").symlink_to(ROOT / "vectors" / "openmessaging")
    return tree


@pytest.fixture(scope="session")
def om_vectors(om_tree):
    return load_vectors(om_tree)


@pytest.fixture(scope="session")
def om_registry(om_tree):
    return load_registry(om_tree / "clauses")
