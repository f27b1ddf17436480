"""fixtures/process: a documented refusal and an error are the caller's to judge; a crash, a
hang, garbage and a wrong handshake are the implementation's failure, each saying what it got;
the process is always ended and reaped (tiny fake process: tests/process/fake_impl.py)."""
import sys
import threading
import time
from pathlib import Path

import pytest

from fixtures.process import protocol as p
from fixtures.process.session import ImplProcess

FAKE = str(Path(__file__).with_name("fake_impl.py"))


def make(mode, tmp_path, **kw):
    return ImplProcess([sys.executable, FAKE, mode], role="test", log_path=tmp_path / f"{mode}.log",
                       handshake_s=kw.pop("handshake_s", 10), **kw)


def test_good_exchange_and_handshake(tmp_path):
    with make("good", tmp_path) as proc:
        hs = proc.handshake
        assert (hs.name, hs.impl_version, hs.version) == ("fake", "0.1", 1)
        assert "echo" in hs.offers["operations"]
        assert proc.request("echo", {"a": 1}, timeout=5) == {"echo": {"a": 1}}
    assert proc._proc.poll() is not None          # reaped


def test_concurrent_requests_are_matched_by_id(tmp_path):
    with make("good", tmp_path) as proc:
        got = {}

        def slow():
            got["slow"] = proc.request("slow", timeout=5)
        t = threading.Thread(target=slow)
        t.start()
        time.sleep(0.1)
        got["echo"] = proc.request("echo", {"x": 2}, timeout=5)   # answered before the slow one
        t.join()
        assert got == {"slow": {"slow": True}, "echo": {"echo": {"x": 2}}}


def test_refusal_and_error_are_not_failures(tmp_path):
    with make("good", tmp_path) as proc:
        with pytest.raises(p.Refusal) as r:
            proc.request("refuse", timeout=5)
        assert (r.value.code, r.value.reason) == ("not-offered", "no such thing here")
        with pytest.raises(p.OperationError) as e:
            proc.request("fail", timeout=5)
        assert (e.value.type, e.value.message) == ("Boom", "it broke")
        assert proc.request("echo", timeout=5) == {"echo": {}}     # the process goes on
        assert proc.alive()


def test_crash_is_the_implementations_failure(tmp_path):
    with make("crash", tmp_path) as proc:
        with pytest.raises(p.Exited) as e:
            proc.request("echo", timeout=5)
        assert "exit status 3" in str(e.value)
        assert "fake: crash got echo" in str(e.value)      # the log's tail is quoted
        with pytest.raises(p.Exited):                        # and every later request fails the same way
            proc.request("echo", timeout=5)


def test_hang_past_the_bound_kills_the_process(tmp_path):
    proc = make("hang", tmp_path)
    proc.start()
    t0 = time.monotonic()
    with pytest.raises(p.Hung) as e:
        proc.request("echo", timeout=0.5)
    assert time.monotonic() - t0 < 10                   # the 0.5 s bound, and the kill after it; not a hang
    assert "no result for echo" in str(e.value) and "0.5 s" in str(e.value)
    proc.close()
    assert proc._proc.poll() is not None


def test_garbage_says_what_it_got(tmp_path):
    with make("garbage", tmp_path) as proc:
        with pytest.raises(p.Garbage) as e:
            proc.request("echo", timeout=5)
        assert "not JSON" in str(e.value) and "'this is not json'" in str(e.value)


def test_result_for_an_unknown_id_is_garbage(tmp_path):
    with make("wrongid", tmp_path) as proc:
        with pytest.raises(p.Garbage) as e:
            proc.request("echo", timeout=5)
        assert "id 999" in str(e.value)


def test_wrong_handshake_and_silent_handshake(tmp_path):
    with pytest.raises(p.Garbage) as e:
        make("badhello", tmp_path).start()
    assert "'other-protocol'" in str(e.value)
    proc = make("silent", tmp_path, handshake_s=0.5)
    with pytest.raises(p.Hung):
        proc.start()
    assert proc._proc.poll() is not None                  # killed and reaped after the failed start


def test_missing_command_is_an_exit(tmp_path):
    with pytest.raises(p.Exited) as e:
        ImplProcess([str(tmp_path / "nope")], role="test", log_path=tmp_path / "x.log").start()
    assert "could not be started" in str(e.value)


@pytest.mark.parametrize("line,why", [
    (b"[1]", "not an object"), (b'{"status": "ok"}', "integer id"), (b'{"id": 1, "status": "maybe"}', "status 'maybe'"),
    (b'{"id": 1, "status": "refused", "code": "nope", "reason": "x"}', "known code"),
    (b'{"id": 1, "status": "error"}', "error.message"), (b"\xff\xfe", "not UTF-8"),
])
def test_parse_result_rejects_malformed_lines(line, why):
    with pytest.raises(p.Garbage) as e:
        p.parse_result(line)
    assert why in str(e.value)
