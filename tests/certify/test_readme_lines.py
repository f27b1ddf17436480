"""The README's `./mqconform certify` and `./mqconform verify` lines work as written there: each is
taken from README.md's sh blocks, split as a shell would (its `<UTC time>` placeholder filled in, its
`...` password left as it is), and run through the entry with the work itself replaced by a recorder:
what is checked is how the entry reads the line (cli/bundles.py), not a certification."""
from __future__ import annotations

import re
import shlex

import pytest

from cli.__main__ import main

from ..paths import ROOT

STAMP = "20261121T224000Z"


def readme_lines(command: str) -> list[str]:
    """The lines of README.md's ```sh blocks that run `./mqconform COMMAND`, comments cut off."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            if "./mqconform" not in line:
                continue
            words = shlex.split(line.replace("<UTC time>", STAMP), comments=True)
            at = next((i for i, w in enumerate(words) if w == "./mqconform"), None)
            if at is not None and words[at + 1:at + 2] == [command]:
                out.append(line)
    return out


def argv_of(line: str) -> list[str]:
    words = shlex.split(line.replace("<UTC time>", STAMP), comments=True)
    return words[words.index("./mqconform") + 1:]


VERIFY = readme_lines("verify")
CERTIFY = readme_lines("certify")


def test_the_readme_has_the_lines_this_test_follows():
    assert len(VERIFY) >= 3 and any("--rerun" in v for v in VERIFY), VERIFY
    assert len(CERTIFY) >= 2, CERTIFY


@pytest.mark.parametrize("line", VERIFY)
def test_each_readme_verify_line_verifies_the_bundle_it_names(line, monkeypatch, capsys):
    import certify.verify

    calls = []
    monkeypatch.setattr(certify.verify, "verify", lambda path, **kw: calls.append((path, kw)) or 0)
    argv = argv_of(line)
    assert main(argv) == 0, capsys.readouterr().err
    (path, kw), = calls
    assert path == argv[-1] and path.startswith("certificates/") and STAMP in path
    if "--rerun" not in argv:
        assert kw["rerun"] is None
    else:   # the word after --rerun is the mode only when it is one; else it is the bundle, mode auto
        after = argv[argv.index("--rerun") + 1]
        assert kw["rerun"] == (after if after in ("auto", "catalog", "endpoint") else "auto"), (line, kw)


@pytest.mark.parametrize("line", CERTIFY)
def test_each_readme_certify_line_is_read_as_written(line, monkeypatch, capsys):
    import certify.run

    calls = []
    monkeypatch.setattr(certify.run, "certify", lambda *a, **kw: calls.append(("endpoint", a)) or 0)
    monkeypatch.setattr(certify.run, "certify_codec", lambda *a, **kw: calls.append(("codec", a)) or 0)
    argv = argv_of(line)
    assert main(argv) == 0, capsys.readouterr().err
    (kind, args), = calls
    assert f"--{kind}" in argv and args[0] == argv[argv.index(f"--{kind}") + 1]


@pytest.mark.parametrize("argv, mode, bundle", [
    (["--rerun", "b"], "auto", "b"),
    (["--rerun", "catalog", "b"], "catalog", "b"),
    (["--rerun=endpoint", "b"], "endpoint", "b"),
    (["b", "--rerun"], "auto", "b"),
    (["b", "--rerun", "endpoint"], "endpoint", "b"),
    (["--rerun", "./endpoint"], "auto", "./endpoint"),
    (["b"], None, "b"),
])
def test_every_rerun_mode_stays_reachable(argv, mode, bundle, monkeypatch):
    import certify.verify

    calls = []
    monkeypatch.setattr(certify.verify, "verify", lambda path, **kw: calls.append((path, kw["rerun"])) or 0)
    assert main(["verify", *argv]) == 0
    assert calls == [(bundle, mode)]


@pytest.mark.parametrize("argv, says", [
    (["--rerun", "endpoint"], "give the BUNDLE"),
    (["--rerun", "nosuch", "b"], "'nosuch': not a rerun mode"),
    ([], "give the BUNDLE"),
])
def test_a_verify_line_that_cannot_be_read_is_a_usage_error(argv, says, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["verify", *argv])
    assert exc.value.code == 2 and says in capsys.readouterr().err
