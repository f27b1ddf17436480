"""mqconform as an installed distribution (pip install mqconform): the project's tree, as a checkout has
it, is this package's folder (built by pyproject.toml's wheel target: fixtures/, reports/, certify/,
cli/, suites/, vectors/, expectations/, containers/, shims/, scripts/, docs/, conftest.py).

The rules it keeps:
- the tree's modules keep their own top-level names (fixtures, reports, certify, cli): importing
  mqconform puts this folder first on sys.path, so that they are found here, as in a checkout
  (where the checkout's root is on the path); nothing else of the tree is importable before that;
- an installed tree is not written to by what it runs: what a checkout keeps beside its files goes
  elsewhere (installed_defaults: the state folder and the bytecode of the processes it starts under
  the user's cache, results and out under the working directory), each only where the caller has
  not set it;
- BUILD_INFO (written into the wheel when it is built, never present in a checkout) says which
  commit the tree is: what a checkout reads from git (suite version, a certificate's commit).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HOME = Path(__file__).resolve().parent
BUILD_INFO = HOME / "BUILD.json"


def build_info() -> dict | None:
    """The commit the installed tree was built from ({"commit", "dirty"}), or None in a checkout."""
    try:
        return json.loads(BUILD_INFO.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def installed_defaults(environ=os.environ, cwd: Path | None = None) -> None:
    """Where an installed mqconform writes, unless the environment says: its state (engine, image and
    shim builds) under the user's cache, the main job's out/ and the plugin's results/ in the working
    directory; the main job runs this interpreter, not a checkout's .venv."""
    cwd = cwd or Path.cwd()
    cache = Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    environ.setdefault("MQCONFORM_STATE", str(cache / "mqconform"))
    # the bytecode of the processes it starts (pytest's rewritten suites, the scripts' Python) beside it
    environ.setdefault("PYTHONPYCACHEPREFIX", str(cache / "mqconform" / "pycache"))
    environ.setdefault("MQCONFORM_OUT", str(cwd / "out"))
    environ.setdefault("MQCONFORM_RESULTS_DIR", str(cwd / "results"))
    environ.setdefault("MQCONFORM_PYTHON", sys.executable)
    environ.setdefault("MQCONFORM_PROG", "mqconform")


if (HOME / "fixtures").is_dir() and str(HOME) not in sys.path:
    sys.path.insert(0, str(HOME))
if BUILD_INFO.exists():
    installed_defaults()
