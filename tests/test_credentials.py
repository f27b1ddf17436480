"""Endpoint passwords from the environment or a netrc-style file, never from the command line (pure)."""
from __future__ import annotations

import os

import pytest

from fixtures.adapters.endpoint import Endpoint
from fixtures.run import credentials

PW = 'Zq7/Kx9#Wm3?Rt5@Pv8%Hy4é "q"'


def test_environment_names_and_precedence():
    assert credentials.env_name("mine") == "MQCONFORM_PASSWORD_mine"
    assert credentials.env_name("rabbit-prod.eu@1") == "MQCONFORM_PASSWORD_rabbit_prod_eu_1"
    ep = Endpoint.parse("amqp://vendor@h:5672")
    got = credentials.resolve("mine", ep, {"MQCONFORM_PASSWORD_mine": PW})
    assert (got.username, got.password, got.password_source) == ("vendor", PW, "MQCONFORM_PASSWORD_mine")
    assert PW not in repr(got) + got.redacted() and got.redacted() == "amqp://vendor:***@h:5672"
    # a password in the URL is used as it is (explicit beats ambient)
    given = Endpoint.parse("amqp://vendor:inurl@h:5672")
    assert credentials.resolve("mine", given, {"MQCONFORM_PASSWORD_mine": PW}).password == "inurl"
    # nothing anywhere: unchanged, and a refused login will say so
    assert credentials.resolve("mine", ep, {}).account() == "user 'vendor', no password given"


def test_netrc_file(tmp_path):
    f = tmp_path / "creds"
    f.write_text(f'machine h\n  login vendor\n  password "{PW.replace(chr(34), chr(92) + chr(34))}"\n'
                 "default login other password fallback\n", encoding="utf-8")
    f.chmod(0o600)
    parsed, warning = credentials.load_netrc(f)
    assert warning is None
    got = credentials.resolve("mine", Endpoint.parse("amqp://vendor@h"), {}, parsed, str(f))
    assert got.password == PW and got.password_source == f"{f} (netrc)"
    got = credentials.resolve("mine", Endpoint.parse("amqp://h"), {}, parsed, str(f))   # the user from the file
    assert (got.username, got.password) == ("vendor", PW)
    # a login that differs from the URL's user is not used for it; the environment comes first
    assert credentials.resolve("mine", Endpoint.parse("amqp://someone@h"), {}, parsed, str(f)).password is None
    assert credentials.resolve("mine", Endpoint.parse("amqp://vendor@h"), {"MQCONFORM_PASSWORD_mine": "env"},
                               parsed, str(f)).password == "env"
    f.chmod(0o644)
    assert "may be read by other users" in credentials.load_netrc(f)[1]


def test_a_bad_file_is_named_by_place_never_by_content(tmp_path):
    f = tmp_path / "creds"
    f.write_text("machine h login vendor password ok\nZq7Kx9secret\n", encoding="utf-8")
    with pytest.raises(credentials.CredentialsError) as info:
        credentials.load_netrc(f)
    assert f"{f}: not a netrc file, near line" in str(info.value) and "Zq7Kx9" not in str(info.value)
    with pytest.raises(credentials.CredentialsError, match="no such file"):
        credentials.load_netrc(tmp_path / "missing")


def test_the_option_needs_no_password_on_the_command_line(pytester, monkeypatch, tmp_path):
    """--endpoint NAME=amqp://user@host plus MQCONFORM_PASSWORD_NAME: the endpoint is used with that password
    (here an unreachable one: the row says which login would have been tried, and nothing shows the password)."""
    from .paths import ROOT

    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setenv("MQCONFORM_PASSWORD_mine", PW)
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    f = tmp_path / "bad-netrc"
    f.write_text("nonsense " + PW.split("/")[0] + "\n", encoding="utf-8")
    result = pytester.runpytest_subprocess("-p", "fixtures.plugin", "--endpoint", "mine=amqp://vendor@127.0.0.1:1",
                                           "--netrc-file", str(f), "--no-results")
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == 4 and f"{f}: not a netrc file" in out, out
    assert "Zq7" not in out
    assert os.environ.get("MQCONFORM_PASSWORD_mine") == PW
