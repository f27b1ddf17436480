"""The wheel's package files and its and the sdist's BUILD.json: the commit the tree was built from, and whether tracked files
differed from it (read by fixtures/tree.py tree_commit in an installed mqconform, where there is no git).
From a checkout it is git's answer; from an sdist, the BUILD.json the sdist carries."""
from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import tomllib
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _commit(root: Path) -> dict:
    """The commit, and whether what the wheel takes differs from it: a tracked file changed, or a file
    git does not ignore and does not track under a folder the wheel takes (it would be shipped)."""
    carried = root / "BUILD.json"
    if carried.is_file():
        return json.loads(carried.read_text(encoding="utf-8"))
    taken = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]["build"][
        "targets"]["wheel"]["only-include"]
    try:
        sha = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all", "--",
                                *taken, "src/mqconform"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        sha, dirty = "", ""
    return {"commit": sha or None, "dirty": bool(dirty)}


class BuildInfo(BuildHookInterface):
    _tmp: str | None = None

    def initialize(self, version, build_data):
        self._tmp = tempfile.mkdtemp(prefix="mqconform-build-")
        path = Path(self._tmp) / "BUILD.json"
        path.write_text(json.dumps(_commit(Path(self.root))) + "\n", encoding="utf-8")
        # In the wheel every path is put under mqconform/ (pyproject's `sources`): the package's own
        # files (src/mqconform/) at its top, beside the tree; the sdist keeps the checkout's paths.
        build_data["force_include"][str(path)] = "BUILD.json"
        if self.target_name == "wheel":
            for f in sorted((Path(self.root) / "src" / "mqconform").glob("*.py")):
                build_data["force_include"][str(f)] = f.name

    def finalize(self, version, build_data, artifact_path):
        # BUILD.json is in the artifact now: its folder goes (every build left one in the temp folder)
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)
