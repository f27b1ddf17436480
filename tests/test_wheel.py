"""mqconform as a distribution: the wheel built from this checkout, installed into a new virtualenv
with no checkout in sight, runs `mqconform --help`, `mqconform coverage`, loads its pytest plugin by
the `pytest11` entry point, and certifies a broker (RabbitMQ 4.0.5, one spec) into a bundle that its
own `mqconform verify` accepts; the installed tree is never written to (src/mqconform/__init__.py).

Slow (a wheel, an install of the dependencies, a certification with its report): marked `containers`."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .paths import ROOT

pytestmark = [pytest.mark.containers]


def _files(tree: Path) -> set[str]:
    return {str(p.relative_to(tree)) for p in tree.rglob("*") if "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the new virtualenv's bin folder, a working folder outside the checkout, the installed tree)."""
    d = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                            "-w", str(d / "dist"), str(ROOT)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = (d / "dist").glob("mqconform-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(d / "venv")], check=True, timeout=300)
    bin_ = d / "venv" / "bin"
    pip = subprocess.run([str(bin_ / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)],
                         capture_output=True, text=True, timeout=1500)
    assert pip.returncode == 0, pip.stderr[-3000:]
    tree = Path(subprocess.run([str(bin_ / "python"), "-c", "import mqconform; print(mqconform.HOME)"],
                               capture_output=True, text=True, check=True, cwd=d).stdout.strip())
    work = d / "work"
    work.mkdir()
    return bin_, work, tree


def _env(**more) -> dict:
    """The environment without a trace of the checkout (no PYTHONPATH, no virtualenv of its own)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, **more}


def test_the_wheel_is_one_package_holding_the_tree(installed):
    _, _, tree = installed
    assert tree.name == "mqconform" and (tree / "BUILD.json").is_file()
    for part in ("fixtures", "reports", "certify", "cli", "suites", "vectors/clauses", "expectations", "containers",
                 "shims", "scripts", "docs", "conftest.py"):
        assert (tree / part).exists(), part
    assert not (tree.parent / "fixtures").exists()     # no top-level name of the tree's outside the package


def test_help_and_coverage_run_from_the_console_script(installed):
    bin_, work, _ = installed
    help_ = subprocess.run([str(bin_ / "mqconform"), "--help"], cwd=work, env=_env(), capture_output=True,
                           text=True, timeout=120)
    assert help_.returncode == 0 and help_.stdout.startswith("usage: mqconform COMMAND"), help_.stderr
    cov = subprocess.run([str(bin_ / "mqconform"), "coverage"], cwd=work, env=_env(), capture_output=True,
                         text=True, timeout=300)
    assert cov.returncode == 0 and "rabbitmq-address@4.0" in cov.stdout and "total" in cov.stdout, cov.stderr


def test_pytest_loads_the_plugin_by_its_entry_point(installed):
    bin_, work, _ = installed
    proc = subprocess.run([str(bin_ / "python"), "-m", "pytest", "--help"], cwd=work, env=_env(), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and "--sharded-run" in proc.stdout and "--endpoint" in proc.stdout, proc.stderr[-2000:]


def test_certify_a_broker_and_verify_the_bundle_with_the_installed_commands(installed, tmp_path):
    from fixtures.provision import engine, start, stop_all
    from fixtures.verdict.records import new_run_id

    bin_, work, tree = installed
    before = _files(tree)
    eng = engine.ensure()
    rt = start("rabbitmq-4.0.5", run_id=new_run_id())
    try:
        url = f"mine=amqp://guest@{rt.host}:{rt.port('amqp091')}?amqp_address_v1=permitted"
        # Delta Lake's jars from the checkout's cache: the same jars, not fetched again
        env = _env(**eng.env, MQCONFORM_PASSWORD_mine="guest", XDG_CACHE_HOME=str(tmp_path / "cache"),
                   MQCONFORM_SPARK_IVY=str(ROOT / ".venv" / "spark-ivy"))
        proc = subprocess.run([str(bin_ / "mqconform"), "certify", "--endpoint", url, "--spec", "rabbitmq-address@4.0",
                               "--out", "bundle"], cwd=work, env=env, capture_output=True, text=True, timeout=1500)
        assert proc.returncode in (0, 1) and (work / "bundle" / "MANIFEST.sha256").is_file(), proc.stderr[-3000:]
        assert "check it with: mqconform verify" in proc.stderr
    finally:
        stop_all()
    # a wheel built from a checkout with local changes says so (BUILD.json), and verify refuses its
    # certificates unless told to accept them, as from such a checkout
    dirty = json.loads((tree / "BUILD.json").read_text(encoding="utf-8"))["dirty"]
    verify = subprocess.run([str(bin_ / "mqconform"), "verify", *(["--accept-local-changes"] if dirty else []), "bundle"],
                            cwd=work, env=env, capture_output=True, text=True, timeout=900)
    assert verify.returncode == 0, verify.stdout[-2000:] + verify.stderr[-2000:]
    assert _files(tree) == before                     # the installed tree was not written to
    assert (tmp_path / "cache" / "mqconform").is_dir()   # its state went to the user's cache
