"""`./mqconform certify --codec NAME='COMMAND'`: a CloudEvents SDK certified through its shim.

- a shim that does not answer the handshake (silent), answers it wrongly (another role, another
  version, a log line) or names another implementation is refused before any vector runs, exit 3,
  quoting what it sent, and nothing is written;
- a shim that fails during the run (dies on an encode, exits, writes garbage, hangs) fails the row
  of that request, naming it, and the next vector runs on a new process, whose row says so;
- the Python SDK's shim (shims/cloudevents-python/) certifies into a bundle that verifies, its
  certificate naming the codec, its version from the handshake and the shim; `verify --rerun`
  reruns it through the command given again, and says it cannot without one.
The misbehaving shim is tests/process/bad_codec.py, in front of the SDK's shim where it must
answer as the SDK. The bundles' reports are built with Spark, as certify builds them.
"""
from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import uuid

import pytest

from certify import bundle

from ..paths import ROOT

BAD = str(ROOT / "tests" / "process" / "bad_codec.py")
SDK = [sys.executable, str(ROOT / "shims" / "cloudevents-python" / "shim.py")]
NAME = "cloudevents-sdk-python"


def mqconform(*args: str, timeout: int = 1500) -> subprocess.CompletedProcess:
    env = {**os.environ, "MQCONFORM_RUN_ID": uuid.uuid4().hex}
    proc = subprocess.run([str(ROOT / "mqconform"), *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)
    print(f"$ ./mqconform {shlex.join(args)}  -> exit {proc.returncode}\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    return proc


def bad(mode: str, *more: str, name: str = "bad-codec") -> str:
    return f"{name}={shlex.join([sys.executable, BAD, mode, *more])}"


def rows_of(path) -> list[dict]:
    return [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]


# ---- refused before any vector ---------------------------------------------------------------------

@pytest.mark.parametrize("mode,said", [
    ("silent", "sent nothing within 10 s in answer to hello"),
    ("wrong-role", "hello answered role 'openmessaging-provider'; the harness runs a 'cloudevents-codec': the shim sent "
                   "'{\"id\": 1, \"status\": \"ok\""),
    ("wrong-version", "hello answered version 99; the harness offered [1]"),
    ("garbage", "no result for hello; instead a line that is not JSON: 'INFO starting codec shim, please wait'"),
])
def test_a_shim_that_fails_its_handshake_is_refused_naming_what_it_sent(mode, said, tmp_path):
    proc = mqconform("certify", "--codec", bad(mode), "--out", str(tmp_path / "b"), timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert said in proc.stderr and "No vector was run: no certificate" in proc.stderr, proc.stderr
    assert "running" not in proc.stderr   # no vector ran
    assert not list(tmp_path.iterdir())


def test_a_shim_naming_another_implementation_is_refused(tmp_path):
    proc = mqconform("certify", "--codec", bad("good", name="mine"), "--out", str(tmp_path / "b"), timeout=120)
    assert proc.returncode == 3
    assert "its shim names the implementation 'bad-codec' in its handshake" in proc.stderr, proc.stderr
    assert "--codec bad-codec=" in proc.stderr and not list(tmp_path.iterdir())


@pytest.mark.parametrize("args,said", [
    (["--codec", "no command"], "NAME=COMMAND is expected"),
    (["--codec", "x=/nonexistent/shim --flag"], "the command '/nonexistent/shim' is no executable"),
    (["--codec", bad("good"), "--spec", "rabbitmq-address@4.0"], "matches no CloudEvents binding"),
    (["--codec", bad("good"), "--allow-users"], "a codec has no broker"),
    (["--codec", bad("good"), "--endpoint", "x=amqp://u@h:5672"], "not allowed with argument"),
])
def test_usage_errors_of_certify_codec(args, said, tmp_path):
    proc = mqconform("certify", *args, "--out", str(tmp_path / "b"), timeout=120)
    assert proc.returncode == 2 and said in proc.stderr, proc.stderr
    assert not list(tmp_path.iterdir())


# ---- failing during the run ------------------------------------------------------------------------

@pytest.mark.parametrize("mode,failure", [
    ("crash-on-encode", "crashed: Exited: the codec's process failed during encode of"),
    ("exit-mid-run", "crashed: Exited: the codec's process failed during"),
    ("garbage-mid-run", "crashed: Garbage: the codec's process failed during"),
    ("hang", "crashed: Hung: the codec's process failed during"),
])
def test_a_shim_failing_mid_run_fails_that_row_and_is_started_again(mode, failure, tmp_path):
    """certify's run step (the codec suites, --codec, --impl) over ce-rabbitmq, the shim misbehaving once."""
    from certify.run import CODEC_SUITES

    none = tmp_path / "none.yaml"
    none.write_text("expectations: []\n")
    results = tmp_path / "results.jsonl"
    codec = bad(mode, "--once", str(tmp_path / "once"), *SDK, name=NAME)
    env = {k: v for k, v in os.environ.items() if k != "MQCONFORM_RUN_ID" and not k.startswith("PYTEST_XDIST_")}
    proc = subprocess.run([sys.executable, "-m", "pytest", *CODEC_SUITES, "-p", "no:cacheprovider", "-q", "--tb=no",
                           "--codec", codec, "--impl", NAME, "--spec", "ce-rabbitmq", "--expectations", str(none),
                           "--results", str(results)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr[-2000:]
    rows = rows_of(results)
    for r in rows:
        print(r["vector_id"], r["outcome"], (r.get("message") or "").replace("\n", " | ")[:300], r.get("notes") or "")
    assert rows and all(r["implementation"]["name"] == NAME and r["implementation"]["kind"] == "codec" for r in rows)
    failed = [r for r in rows if failure in (r.get("message") or "")]
    assert len(failed) == 1, [r["message"] for r in rows if r["outcome"] != "pass"]
    assert failed[0]["outcome"] == "fail" and f"bad_codec {mode}" in failed[0]["message"]   # the log's tail is quoted
    restarted = [r for r in rows if any("a new one was started for this vector" in n for n in r.get("notes") or [])]
    assert len(restarted) == 1 and rows.index(restarted[0]) == rows.index(failed[0]) + 1
    # No other row suffers from the failure (the SDK's API holds no event without `time`: those vectors
    # are adapter errors of the shim, whatever happens to the process).
    api_limits = ("'time'",)
    assert not [r for r in rows if r["outcome"] == "error"
                and not (r["error_kind"] == "adapter" and any(t in r["message"] for t in api_limits))], \
        "no other row suffers from the failure"


# ---- whole certifications (Spark builds each report) ---------------------------------------------------

@pytest.fixture(scope="module")
def good(tmp_path_factory):
    out = tmp_path_factory.mktemp("codec") / "sdk"
    proc = mqconform("certify", "--codec", f"{NAME}={shlex.join(SDK)}", "--spec", "ce-rabbitmq", "--out", str(out))
    assert proc.returncode in (0, 1) and (out / bundle.MANIFEST).is_file(), proc.stderr[-3000:]
    return out, proc


def test_the_sdk_shim_certifies_and_its_bundle_verifies(good):
    out, proc = good
    cert = json.loads((out / bundle.CERTIFICATE_JSON).read_text())
    impl = cert["implementation"]
    assert impl["name"] == NAME and impl["kind"] == "codec" and impl["role"] == "product"
    assert impl["version"] not in (None, "", "unknown")   # the SDK's version, from the handshake
    assert impl["shim"] == shlex.join(SDK) and impl["protocol_version"] == "1"
    assert cert["scope"] == ["ce-rabbitmq"] and [s["spec"] for s in cert["specs"]] == ["ce-rabbitmq"]
    md = (out / bundle.CERTIFICATE_MD).read_text()
    assert f"| version, as its shim's handshake said | {impl['version']} |" in md and "shim.py" in md
    assert f"{NAME}: {NAME} {impl['version']}, protocol version 1" in proc.stderr   # the handshake, said first
    v = mqconform("verify", str(out), "--accept-local-changes")
    assert v.returncode == 0 and "verified" in v.stdout, v.stdout


def test_a_codec_rerun_needs_the_command_given_again(good):
    out, _ = good
    proc = mqconform("verify", str(out), "--accept-local-changes", "--rerun")
    assert proc.returncode == 2
    assert "a bundle's command is never run by itself" in proc.stderr and f"--codec {NAME}='" in proc.stderr
    proc = mqconform("verify", str(out), "--accept-local-changes", "--rerun", "--codec", bad("good", name="other"))
    assert proc.returncode == 2 and f"the certificate is of {NAME!r}, not 'other'" in proc.stderr
    cert = json.loads((out / bundle.CERTIFICATE_JSON).read_text())
    proc = mqconform("verify", str(out), "--accept-local-changes", "--rerun", "--codec", f"{NAME}={shlex.join(SDK)}")
    if bundle.LOCAL_CHANGES in cert["suite"]["commit"]:   # certified from a checkout with changes: no commit to rerun
        assert proc.returncode == 2 and "no published commit can run its vectors again" in proc.stderr
    else:
        assert proc.returncode == 0 and "reproduced against codec cloudevents-sdk-python" in proc.stdout, proc.stdout


def test_a_certification_through_a_shim_that_dies_on_an_encode(tmp_path):
    out = tmp_path / "b"
    codec = bad("crash-on-encode", "--once", str(tmp_path / "once"), *SDK, name=NAME)
    proc = mqconform("certify", "--codec", codec, "--spec", "ce-rabbitmq", "--out", str(out))
    assert proc.returncode in (0, 1) and (out / bundle.MANIFEST).is_file(), proc.stderr[-3000:]
    rows = rows_of(out / bundle.RESULTS)
    crashed = [r for r in rows if "RuntimeError: the codec crashed" in (r.get("message") or "")]
    assert len(crashed) == 1 and crashed[0]["outcome"] == "fail", [r.get("message") for r in rows]
    print(crashed[0]["message"])
    assert any("a new one was started" in n for r in rows for n in r.get("notes") or [])
    assert mqconform("verify", str(out), "--accept-local-changes").returncode == 0
