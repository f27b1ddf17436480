"""`python -m fixtures.strategies save`: a failing example becomes schema-valid, loadable vectors."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, Phase, Verbosity, given, settings

from fixtures.strategies import events
from fixtures.strategies.__main__ import event_from_blob, main
from fixtures.vectordata.vectors import load_vectors
from tests.paths import ROOT, VECTORS

EVENT = {"attributes": {"specversion": "1.0", "id": "1", "source": "/s", "type": "t",
                        "n": {"integer": 2147483647}, "blob": {"binary": {"hex": "00ff"}},
                        "when": {"timestamp": "2020-02-29T23:59:59.123456+05:30"}},
         "data": {"text": "{\"a\": [1, 2.5, null]}"}}


@pytest.fixture
def vectors_dir(tmp_path):
    target = tmp_path / "vectors"
    shutil.copytree(VECTORS, target)
    return target


def test_one_command_saves_loadable_vectors(vectors_dir):
    result = subprocess.run([sys.executable, "-m", "fixtures.strategies", "save", "--spec", "ce-amqp", "--mode", "binary",
                             "--name", "cli-test", "--vectors-dir", str(vectors_dir), "--from", json.dumps(EVENT)],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    path = vectors_dir / "ce-amqp" / "found-by-hypothesis.yaml"
    assert result.stdout.splitlines()[0] == str(path)
    ids = {v.id for v in load_vectors(vectors_dir).vectors}
    assert {"ce-amqp.hypothesis.cli-test-binary.encode", "ce-amqp.hypothesis.cli-test-binary.decode"} <= ids
    # The new vectors were run against the binding's codecs; the reference codec passes its own spec reading.
    assert "ce-amqp.hypothesis.cli-test-binary.decode :: mqconform-reference: pass" in result.stdout
    assert "ce-amqp.hypothesis.cli-test-binary.encode :: mqconform-reference: pass" in result.stdout


@pytest.mark.parametrize("spec,mode", [("ce-amqp", "structured"), ("ce-rabbitmq", "binary"), ("ce-rocketmq", "binary"),
                                       ("ce-rocketmq", "structured")])
def test_saved_vectors_pass_for_the_reference_codec(vectors_dir, spec, mode, capsys):
    assert main(["save", "--spec", spec, "--mode", mode, "--name", "every-type", "--vectors-dir", str(vectors_dir),
                 "--from", json.dumps(EVENT)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "mqconform-reference" in line]
    assert len(lines) == 2 and all(line.endswith(": pass") for line in lines), lines


def test_a_bad_clause_is_refused_and_the_file_left_as_it_was(vectors_dir, capsys):
    assert main(["save", "--spec", "ce-amqp", "--mode", "binary", "--name", "first", "--vectors-dir", str(vectors_dir),
                 "--from", json.dumps(EVENT)]) == 0
    path = vectors_dir / "ce-amqp" / "found-by-hypothesis.yaml"
    before = path.read_text()
    assert main(["save", "--spec", "ce-amqp", "--mode", "binary", "--name", "second", "--clause", "ce-amqp/9.9/none",
                 "--vectors-dir", str(vectors_dir), "--from", json.dumps(EVENT)]) == 2
    assert "unknown clause id" in capsys.readouterr().err
    assert path.read_text() == before
    assert main(["save", "--spec", "ce-amqp", "--mode", "binary", "--name", "first", "--vectors-dir", str(vectors_dir),
                 "--from", json.dumps(EVENT)]) == 2   # the same id twice


def test_an_invalid_event_is_refused(vectors_dir, capsys):
    path = vectors_dir / "ce-amqp" / "found-by-hypothesis.yaml"
    before = path.read_text()
    bad = {"attributes": {"specversion": "1.0", "id": "", "source": "/s", "type": "t"}}   # id must not be empty
    assert main(["save", "--spec", "ce-amqp", "--mode", "binary", "--vectors-dir", str(vectors_dir),
                 "--from", json.dumps(bad)]) == 2
    assert "must not be empty" in capsys.readouterr().err
    assert path.read_text() == before


def test_a_hypothesis_blob_replays_to_the_failing_event():
    # A failing test drawing event=events(), as the round-trip tests do; its blob must give back its event.
    failing = []

    @settings(database=None, derandomize=True, print_blob=True, verbosity=Verbosity.quiet, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(event=events())
    def needs_an_integer_extension(event):
        if any(a.type == "integer" for a in event.attributes.values()):
            failing.append(event)
            raise AssertionError("found")

    with pytest.raises(AssertionError) as info:
        needs_an_integer_extension()
    notes = "\n".join(getattr(info.value, "__notes__", []))
    blob = re.search(r"reproduce_failure\('[^']+', (b'[^']+')\)", notes).group(1)
    assert event_from_blob(blob) == failing[-1]
