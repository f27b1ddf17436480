"""./mqconform: every command states its exit codes in --help, and certify / verify refuse bad input
with exit code 2 and a message naming what was wrong, before anything runs (no broker needed)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from certify import bundle, certificate
from cli.__main__ import COMMANDS, main

from ..paths import ROOT


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_states_its_exit_codes(name, capsys):
    try:
        code = main([name, "--help"])
    except SystemExit as exc:   # argparse's own --help
        code = exc.code
    text = capsys.readouterr().out
    assert code == 0
    assert "exit codes" in text, text
    assert re.search(r"\b0 {1,2}\w", text) and re.search(r"\b2 {1,2}usage", text), text


def test_the_entry_script_and_its_top_help():
    proc = subprocess.run([str(ROOT / "mqconform"), "--help"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert all(f"  {name}" in proc.stdout for name in COMMANDS) and "exit codes" in proc.stdout
    bad = subprocess.run([str(ROOT / "mqconform"), "nosuch"], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "unknown command 'nosuch'" in bad.stderr


def test_certify_admits_no_expectations_file(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["certify", "--endpoint", "v=amqp://u@localhost:5672", "--expectations", "expectations"])
    assert exc.value.code == 2
    assert "a certification admits no expectations file" in capsys.readouterr().err


def test_certify_refuses_a_bad_endpoint_with_the_password_masked(tmp_path, capsys):
    code = main(["certify", "--endpoint", "v=http://user:S3cretPw@localhost:5672", "--out", str(tmp_path / "b")])
    err = capsys.readouterr().err
    assert code == 2 and "S3cretPw" not in err and "v" in err, err
    assert not (tmp_path / "b").exists() and not list(tmp_path.iterdir())


def test_certify_writes_into_a_new_folder_only(tmp_path, capsys):
    (tmp_path / "b").mkdir()
    assert main(["certify", "--endpoint", "v=amqp://u@localhost:5672", "--out", str(tmp_path / "b")]) == 2
    assert "exists; a bundle is written into a new folder" in capsys.readouterr().err


def test_certify_refuses_deviations_of_another_implementation(tmp_path, capsys):
    dev = tmp_path / "dev.yaml"
    dev.write_text("expectations:\n  - implementation: other\n    vector: x.y\n    reason: known\n")
    assert main(["certify", "--endpoint", "v=amqp://u@localhost:5672", "--deviations", str(dev),
                 "--out", str(tmp_path / "b")]) == 2
    err = capsys.readouterr().err
    assert "dev.yaml" in err and "names implementation 'other', not 'v'" in err, err


def test_verify_of_a_folder_that_is_no_bundle(tmp_path, capsys):
    assert main(["verify", str(tmp_path)]) == 2
    assert "not a certification bundle (no MANIFEST.sha256" in capsys.readouterr().err


def test_the_manifest_names_every_changed_missing_and_unlisted_file(tmp_path):
    (tmp_path / "report").mkdir()
    for rel, text in {"results.jsonl": "{}\n", "report/index.html": "<p>", "CERTIFICATE.md": "# c\n"}.items():
        (tmp_path / rel).write_text(text)
    bundle.write_manifest(tmp_path)
    assert bundle.check_manifest(tmp_path) == []
    (tmp_path / "results.jsonl").write_text("{}\n{}\n")
    (tmp_path / "CERTIFICATE.md").unlink()
    (tmp_path / "extra.txt").write_text("x")
    problems = "\n".join(bundle.check_manifest(tmp_path))
    assert "results.jsonl: its SHA-256 is" in problems
    assert "CERTIFICATE.md: listed in MANIFEST.sha256:1 but missing" in problems
    assert "extra.txt: in the bundle but not in MANIFEST.sha256" in problems


def test_rows_judged_against_an_expectations_file_make_no_certificate():
    row = {"run_id": "r", "run_started": "t", "suite_version": "0.1.0", "vectors_digest": "d",
           "implementation": {"name": "v"}, "vector_id": "x.y", "outcome": "xfail", "expected_outcome": "fail"}
    problems = certificate.check_rows([row])
    assert len(problems) == 1 and "a certification admits none" in problems[0], problems


# ---- one certification at a time per --out (certify/outlock.py) ------------------------------------

def test_a_second_claim_on_an_out_is_refused_and_names_the_first(tmp_path):
    from certify import outlock

    out = tmp_path / "bundle"
    with outlock.claim(out) as first:
        assert first is None and (tmp_path / "bundle.lock").is_file()
        with outlock.claim(out) as second:
            assert second == f"pid {os.getpid()}"
    assert not (tmp_path / "bundle.lock").exists()
    with outlock.claim(out) as again:   # free once the first ended
        assert again is None


def test_two_certifies_into_one_out_at_once_one_refused_without_a_traceback(tmp_path):
    """The first runs (against a closed port: it ends with no certificate, exit 3); the second, started
    while it runs, is refused at once (2) naming the first; neither leaves anything behind."""
    out = tmp_path / "certificates" / "x"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("MQCONFORM_RUN_ID", None)
    cmd = [sys.executable, "-m", "cli", "certify", "--endpoint", "x=amqp://u:p@127.0.0.1:1", "--spec",
           "rabbitmq-address@4.0", "--out", str(out)]
    first = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list(out.parent.glob("x.partial-*")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(out.parent.glob("x.partial-*")) and first.poll() is None, "the first certify was not writing"
    second = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    said = first.communicate(timeout=600)
    assert second.returncode == 2, second.stderr
    assert f"another certify (pid {first.pid}) is writing it now" in second.stderr, second.stderr
    assert "Traceback" not in second.stderr + said[1], said[1][-2000:]
    assert first.returncode == 3, said[1][-2000:]
    assert list(out.parent.iterdir()) == [], list(out.parent.iterdir())
