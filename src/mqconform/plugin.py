"""The pytest plugin of an installed mqconform, loaded by its `pytest11` entry point: the modules
that `-p fixtures.plugin` registers in a checkout (fixtures/plugin/__init__.py), in the same order."""
import mqconform  # noqa: F401  (the tree on sys.path)
from fixtures.plugin import pytest_plugins  # noqa: F401  (pytest registers each module it names)
