"""Run an inner pytest session of the suites, as a user would, and read its result rows."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from .paths import ROOT


def run_pytest(args, tmp_path, *, env=None, timeout=600):
    """(completed process, result rows, seconds) of `python -m pytest ARGS` in the project,
    results in tmp_path/results.jsonl; tmp_path is importable (for -p plugins written there)."""
    results = tmp_path / "results.jsonl"
    full_env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]), **(env or {})}
    full_env.pop("PYTEST_XDIST_WORKER", None)
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--results", str(results),
                           *args], cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=timeout)
    rows = [json.loads(line) for line in results.read_text().splitlines()] if results.exists() else []
    return proc, rows, time.monotonic() - t0
