"""One exit-code convention across commands (cli/__main__.py CONVENTION): stated once in
`./mqconform --help`, referred to by each command's --help, and kept by each command's failure modes.

0 done and good; 1 done and bad; 2 usage or input error; 3 could not do its work. Interrupts (3)
are checked against a real broker in tests/provision/test_signals.py.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from cli.__main__ import COMMANDS, CONVENTION, REFER

from .paths import ROOT


def cli(*args, env=None, timeout=300):
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    full.pop("MQCONFORM_RUN_ID", None)
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=full, capture_output=True, text=True,
                          timeout=timeout)


def test_the_convention_is_stated_once_and_each_command_refers_to_it():
    top = cli("--help")
    assert top.returncode == 0 and CONVENTION in top.stdout, top.stdout
    for name in COMMANDS:
        h = cli(name, "--help")
        assert h.returncode == 0, (name, h.stderr)
        assert REFER in h.stdout, (name, h.stdout[-1500:])
        assert h.stdout.count("exit codes") == 1, (name, h.stdout)   # the command's own, not its home's too


def test_run_help_prints_no_script_internals():
    out = cli("run", "--help").stdout
    script = (ROOT / "scripts" / "conformance.sh").read_text().splitlines()
    comments = [ln[2:].strip() for ln in script if ln.startswith("# ") and len(ln) > 30]
    assert not [c for c in comments if c in out], out
    assert "wait_bounded" not in out and "bash" not in out and "$out" not in out, out


@pytest.mark.parametrize("args", [
    [],                                                   # no command
    ["nosuch"],                                           # unknown command
    ["certify"],                                          # --endpoint missing
    ["certify", "--endpoint", "x=http://host:5672"],      # not an amqp URL
    ["certify", "--endpoint", "x=amqp://u:p@127.0.0.1:1", "--spec", ""],
    ["certify", "--endpoint", "x=amqp://u:p@127.0.0.1:1", "--spec", "no-such-spec"],
    ["certify", "--endpoint", "x=amqp://u:p@127.0.0.1:1", "--expectations", "expectations"],
    ["verify", "/nonexistent/bundle"],
    ["report", "--no-such-option"],
    ["diff", "run-a", "run-b"],                           # --store missing
    ["gate", "--results", "/nonexistent/results.jsonl", "--expectations", "expectations"],
    ["bench"],
    ["bench", "brokers", "--target", "no-such-target"],
    ["coverage", "--no-such-option"],
    ["images", "no-such-target"],
    ["cleanup", "--no-such-option"],
    ["cleanup", "--endpoint", "x=ftp://host"],
    ["codec-check"],                                      # no COMMAND
    ["codec-check", "/nonexistent/shim"],
    ["certify", "--codec", "no command"],                 # not NAME=COMMAND
    ["certify", "--codec", "x=/nonexistent/shim"],
    ["verify", "/nonexistent/bundle", "--codec", "x=shim"],   # --codec without --rerun
], ids=lambda a: " ".join(a) or "(none)")
def test_a_usage_or_input_error_is_2_and_says_why_without_a_traceback(args):
    r = cli(*args)
    assert r.returncode == 2, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    said = r.stderr + r.stdout
    assert "Traceback" not in said and said.strip(), said


def test_spec_errors_name_the_option():
    r = cli("certify", "--endpoint", "x=amqp://u:p@127.0.0.1:1", "--spec", "")
    assert "--spec ''" in r.stderr and "running every spec" not in r.stderr + r.stdout, r.stderr
    r = cli("certify", "--endpoint", "x=amqp://u:p@127.0.0.1:1", "--spec", "nope*")
    assert "--spec 'nope*' matches no spec (known: ce-amqp" in r.stderr, r.stderr
    r = cli("certify", "--endpoint", "x=amqp://u:p@127.0.0.1:1", "--spec", "openmessaging")
    assert r.returncode == 2 and "a broker is not certified on openmessaging" in r.stderr, r.stderr


def test_an_existing_out_is_2(tmp_path):
    r = cli("certify", "--endpoint", "x=amqp://u:p@127.0.0.1:1", "--out", str(tmp_path))
    assert r.returncode == 2 and "exists" in r.stderr, r.stderr


def test_the_gate_is_1_on_uncovered_failures(tmp_path):
    import gzip

    sample = tmp_path / "results.jsonl"
    sample.write_bytes(gzip.decompress((ROOT / "tests" / "reports" / "data" / "results.jsonl.gz").read_bytes()))
    assert any(json.loads(line)["outcome"] in ("fail", "error", "xfail") for line in sample.read_text().splitlines() if line.strip())
    empty = tmp_path / "none.yaml"
    empty.write_text("expectations: []\n")
    # the sample predates vectors since removed from the registry: the ids are not what this test is about
    r = cli("gate", "--results", str(sample), "--expectations", str(empty), "--registry", "none")
    assert r.returncode == 1, r.stdout[-1000:] + r.stderr[-1000:]


def test_cleanup_of_a_broker_that_cannot_be_listed_is_3():
    r = cli("cleanup", "--endpoint", "x=amqp://u:p@127.0.0.1:1?management=http://127.0.0.1:1")
    assert r.returncode == 3 and "cannot list" in r.stderr and "Traceback" not in r.stderr, r.stderr


@pytest.mark.containers
def test_run_with_a_spec_matching_nothing_is_2(tmp_path):
    r = subprocess.run([str(ROOT / "mqconform"), "run", "--spec", "no-such-spec", "--endpoint",
                        "x=amqp://u:p@127.0.0.1:1"], cwd=ROOT, capture_output=True, text=True, timeout=900,
                       env={**os.environ, "MQCONFORM_OUT": str(tmp_path / "out"), "MQCONFORM_JOBS": "1"})
    assert r.returncode == 2, r.stdout[-2000:] + r.stderr[-2000:]
    assert "--spec 'no-such-spec' matches no spec" in r.stdout + r.stderr
