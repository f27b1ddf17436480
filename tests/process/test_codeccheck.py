"""codec-check (fixtures/process/codeccheck.py): each rule of the codec role is judged from what the
shim sent, and each misbehaviour of tests/process/bad_codec.py fails the check it breaks, quoting
what it sent; a shim that keeps every rule passes every check."""
from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest

from cli.__main__ import main
from fixtures.process import codeccheck as cc
from fixtures.process import protocol as p

BAD = str(Path(__file__).with_name("bad_codec.py"))


def checks(mode: str, tmp_path, **kw) -> dict[str, cc.Check]:
    got = cc.run_checks([sys.executable, BAD, mode], tmp_path / f"{mode}.log", hello_s=kw.pop("hello_s", 5),
                        answer_s=kw.pop("answer_s", 5), exit_s=kw.pop("exit_s", 3))
    return {c.name: c for c in got}


# ---- pure rules ---------------------------------------------------------------------------------

def test_quoted_cuts_at_a_word_boundary():
    text = "word " * 60
    q = cc.quoted(text, limit=40)
    assert q.startswith("'word word") and q.endswith("... (300 characters)")
    assert "'word word word word word word word word'" in q   # cut before the limit, at a space
    assert cc.quoted("short") == "'short'"


def hello(**over) -> p.Result:
    r = {"protocol": "mqconform-process", "version": 1, "role": "cloudevents-codec",
         "implementation": {"name": "sdk", "version": "1.0"},
         "offers": {"operations": ["encode", "decode"], "bindings": {"ce-amqp": {"modes": ["binary", "structured"]}}}}
    r.update(over)
    return p.Result(1, "ok", result=r)


def test_a_handshake_is_judged_field_by_field():
    hs, detail = cc.judge_handshake(hello(), "LINE")
    assert hs is not None and detail == "sdk 1.0, protocol version 1, bindings ce-amqp (binary, structured)"
    for over, said in [({"role": "openmessaging-provider"}, "hello answered role 'openmessaging-provider'"),
                       ({"version": 2}, "hello answered version 2"),
                       ({"implementation": {"name": "sdk"}}, "did not name the implementation"),
                       ({"offers": {"operations": ["encode", "decode"], "bindings": {"ce-mqtt": {"modes": ["binary"]}}}},
                        "unknown binding 'ce-mqtt'"),
                       ({"offers": {"operations": ["encode", "decode"], "bindings": {"ce-amqp": {"modes": []}}}},
                        "offers.bindings.ce-amqp.modes must be a non-empty list"),
                       ({"offers": {"operations": ["encode", "decode"], "bindings": {"ce-amqp": {"modes": ["text"]}}}},
                        "modes must be a non-empty list of binary, structured, got ['text']"),
                       ({"offers": {"operations": ["encode"], "bindings": {"ce-amqp": {"modes": ["binary"]}}}},
                        "does not name both encode and decode"),
                       ({"offers": {"operations": ["encode", "decode"]}}, "offers.bindings must be a non-empty object")]:
        hs, detail = cc.judge_handshake(hello(**over), "THE LINE")
        assert hs is None and said in detail and detail.endswith("the shim sent 'THE LINE'"), (over, detail)
    hs, detail = cc.judge_handshake(p.Result(1, "refused", code="not-offered", reason="no"), "L")
    assert hs is None and "hello was answered refused" in detail


def test_refusal_unknown_op_and_crash_answers():
    assert cc.judge_refusal("w", p.Result(4, "refused", code="rejected", reason="no id"), "L") == ""
    said = cc.judge_refusal("w", p.Result(4, "error", error_type="KeyError", message="id"), "THE LINE")
    assert said == "w was answered error, not refused (rejected): 'THE LINE'"
    said = cc.judge_refusal("w", p.Result(4, "refused", code="not-expressible", reason="x"), "L")
    assert "answered refused (not-expressible), not refused (rejected)" in said
    ok = cc.judge_refusals([("A", p.Result(4, "refused", code="rejected", reason="no id"), "L1"),
                            ("B", p.Result(5, "ok"), "L2")])
    assert ok == (True, "A: refused (rejected); besides (the implementation's own answer, judged by the vectors in "
                        "certify): B was answered ok, not refused (rejected): 'L2'")
    assert cc.judge_refusals([("A", p.Result(4, "ok"), "L1"), ("B", p.Result(5, "error", error_type="E", message="m"), "L2")]) \
        == (False, "A was answered ok, not refused (rejected): 'L1'; B was answered error, not refused (rejected): 'L2'")
    assert cc.judge_refusals([("A", p.Result(4, "refused", code="rejected", reason="r"), "L1"),
                              ("B", None, "sent nothing within 2 s")]) == (False, "B: sent nothing within 2 s")
    assert cc.judge_unknown_op(p.Result(5, "refused", code="not-offered", reason="no such op"), "L")[0]
    assert not cc.judge_unknown_op(p.Result(5, "ok"), "L")[0]
    assert cc.judge_crash(p.Result(6, "error", error_type="TypeError", message="bad"), "L") == \
        (True, "error TypeError: 'bad'")
    assert not cc.judge_crash(p.Result(6, "ok"), "L")[0]


@pytest.mark.parametrize("binding", cc.BINDINGS)
@pytest.mark.parametrize("mode", cc.MODES)
def test_the_invalid_messages_carry_what_they_say(binding, mode):
    msg = cc.invalid_message(binding, mode, cc.NO_ID)
    if mode == "structured":
        body = msg["body"]["data"][0] if binding == "ce-amqp" else msg["body"]
        assert set(json.loads(base64.b64decode(body))) == {"specversion", "source", "type", "data"}
        assert "cloudevents+json" in str(msg["properties"])
    else:
        text = str(msg)
        assert "specversion" in text and "'id'" not in text and "_id" not in text and "-id" not in text
    assert msg["protocol"] == {"ce-amqp": "amqp10", "ce-rabbitmq": "amqp091", "ce-rocketmq": "rocketmq"}[binding]


# ---- against shims --------------------------------------------------------------------------------

def test_a_shim_that_keeps_every_rule_passes(tmp_path):
    got = checks("good", tmp_path)
    assert all(c.ok for c in got.values()), cc.render(list(got.values()))
    assert list(got) == ["handshake", "framing", "refusal", "unknown op", "crash", "stdout", "exit"]


@pytest.mark.parametrize("mode,failed,said", [
    ("silent", {"handshake", "framing", "refusal", "unknown op", "crash"}, "sent nothing within 2 s in answer to hello"),
    ("wrong-role", {"handshake", "framing", "refusal", "unknown op", "crash"},
     "hello answered role 'openmessaging-provider'; the harness runs a 'cloudevents-codec': the shim sent '{\"id\": 1"),
    ("wrong-version", {"handshake", "framing", "refusal", "unknown op", "crash"}, "hello answered version 99"),
    ("garbage", {"handshake", "framing", "refusal", "unknown op", "crash", "stdout"},
     "a line that is not JSON: 'INFO starting codec shim, please wait'"),
    ("hang", {"framing", "refusal", "unknown op", "crash"}, "sent nothing within 2 s in answer to encode"),
    ("crash-on-encode", {"framing", "refusal", "unknown op", "crash", "exit"}, "RuntimeError: the codec crashed"),
    ("exit-mid-run", {"refusal", "unknown op", "crash", "exit"}, "its stdout ended (exit status 0)"),
    ("garbage-mid-run", {"refusal", "stdout"}, "a line that is not JSON: 'DEBUG encoding event ...'"),
    ("chatty", {"stdout"}, "a line that is not JSON: 'codec shim ready'"),
    ("no-exit", {"exit"}, "still running 1 s after its stdin was closed"),
    ("accept-all", {"refusal"}, "decode of a message with no id (ce-amqp, binary) was answered ok, not refused (rejected)"),
    ("unknown-ok", {"unknown op"}, "answered ok, not refused (not-offered)"),
    ("error-dies", {"crash", "exit"}, "no result for encode: its stdout ended (exit status 2)"),
])
def test_each_misbehaviour_fails_its_check_saying_what_was_sent(mode, failed, said, tmp_path):
    got = checks(mode, tmp_path, hello_s=2, answer_s=2, exit_s=1)
    text = cc.render(list(got.values()))
    assert {n for n, c in got.items() if not c.ok} == failed, text
    assert said in text, text


def test_the_command_line_exit_codes(tmp_path, capsys):
    assert main(["codec-check", "--timeout", "5", sys.executable, BAD, "good"]) == 0
    out = capsys.readouterr().out
    assert "pass  handshake: bad-codec 0.1" in out and "7 of 7 checks passed" in out
    assert main(["codec-check", "--timeout", "2", sys.executable, BAD, "unknown-ok"]) == 1
    assert "FAIL  unknown op" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["codec-check"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["codec-check", "/nonexistent/shim"])
    assert exc.value.code == 2 and "no such executable" in capsys.readouterr().err
