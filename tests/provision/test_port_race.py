"""A container start that loses its host port to another process (the engine picked a free port,
something took it before the container bound it) is made again with new ports, a bounded number of
times; any other start failure, and the last port loss, is the target's start error. Pure code: the
engine is replaced."""
import pytest

from fixtures.provision import containers as C
from fixtures.provision import load_catalog, reaper
from fixtures.provision.readiness import TargetStartError


class _Engine:
    is_local, host, kind, version = True, "127.0.0.1", "podman", "test"
    docker_host = "unix:///nonexistent/engine.sock"   # no API answers: clients speak "auto"


def _start(monkeypatch, tmp_path, failures, ready=None):
    """_start_container with the engine replaced: `failures` are what the first starts raise;
    `ready(cid)` stands for the readiness wait (default: ready in 0.5 s)."""
    attempts = []

    class FakeContainer:
        def __init__(self, image, name, **client):   # client: docker_client_kw, unused here
            self.ports, self.name = {}, name

        def with_envs(self, **kw):
            return self

        with_command = with_volume_mapping = with_kwargs = lambda self, *a, **kw: self

        def start(self):
            attempts.append(self.name)
            if len(attempts) <= len(failures):
                raise RuntimeError(failures[len(attempts) - 1])

        def get_wrapped_container(self):
            return type("W", (), {"id": f"cid-{self.name}"})()

    import testcontainers.core.container as tc
    monkeypatch.setattr(tc, "DockerContainer", FakeContainer)
    removed, pending = [], set()
    monkeypatch.setattr(reaper, "remove_by_name", lambda eng, name: removed.append(name))
    monkeypatch.setattr(reaper, "remove_container", lambda eng, cid: removed.append(cid))
    monkeypatch.setattr(reaper, "pending", lambda cid, eng: pending.add(cid))
    monkeypatch.setattr(reaper, "owned", lambda cid, c: pending.discard(cid))
    monkeypatch.setattr(C, "published_ports", lambda eng, cid, ports, label: {p: 40000 + i for i, p in enumerate(ports)})
    monkeypatch.setattr(C, "wait_ready", (lambda checks, label, cid, *a: ready(cid)) if ready else (lambda *a: 0.5))
    monkeypatch.setattr(C.engine_mod, "state_dir", lambda: tmp_path)
    entry = load_catalog().get("garagemq")
    image = type("I", (), {"id": "img", "ref": "mqconform/garagemq:x", "provenance": {}})()
    try:
        started = C._start_container(entry, None, entry.config(None), _Engine(), image, 5.0, "0123456789abcdef")
    finally:
        _start.pending, _start.removed = pending, removed
    return started, attempts, removed


def test_a_lost_host_port_starts_a_new_container(monkeypatch, tmp_path):
    taken = "cannot listen on the TCP port: listen tcp4 127.0.0.1:40347: bind: address already in use"
    started, attempts, removed = _start(monkeypatch, tmp_path, [taken, taken])
    assert started.ready_s == 0.5 and len(attempts) == 3 and removed == attempts[:2]
    assert len(set(attempts)) == 3 and started.container_name == attempts[-1]   # a name per attempt


def test_other_failures_and_the_last_lost_port_are_the_start_error(monkeypatch, tmp_path):
    taken = "bind: address already in use"
    with pytest.raises(TargetStartError, match="address already in use"):
        _start(monkeypatch, tmp_path, [taken] * C.PORT_RACE_ATTEMPTS)
    with pytest.raises(TargetStartError, match="no such image"):
        _start(monkeypatch, tmp_path, ["no such image"])


def _exits(times: int):
    """A readiness wait whose first `times` containers exit before they are ready."""
    seen = []

    def ready(cid):
        seen.append(cid)
        if len(seen) <= times:
            raise TargetStartError("garagemq", "container exited during start (...)", exited=True,
                                   summary=f"status exited, exit code {len(seen)}")
        return 0.7
    return ready


def test_a_container_that_exits_before_ready_is_started_once_more_in_a_new_container(monkeypatch, tmp_path):
    started, attempts, removed = _start(monkeypatch, tmp_path, [], ready=_exits(1))
    assert len(attempts) == 2 and attempts[1] == attempts[0] + "-start2" and started.container_name == attempts[1]
    assert removed == [f"cid-{attempts[0]}"]                       # the exited one is removed
    assert started.ready_s == 0.7
    assert started.provenance["start.attempts"] == "2; start 1 exited (status exited, exit code 1)"
    assert started.provenance["container.name"] == attempts[1]
    assert _start.pending == set()                                # each pending one removed or owned


def test_a_second_exit_is_the_error_and_says_how_the_first_ended(monkeypatch, tmp_path):
    with pytest.raises(TargetStartError) as info:
        _start(monkeypatch, tmp_path, [], ready=_exits(2))
    assert str(info.value).startswith("target garagemq: started 2 times; before the last, start 1 exited (status "
                                      "exited, exit code 1); the last: container exited during start")
    assert info.value.exited and _start.pending == set() and len(_start.removed) == 2
    assert not list(tmp_path.rglob("*.conf")) and not [p for p in tmp_path.rglob("*") if p.is_file()]


def test_a_second_start_that_fails_otherwise_still_says_how_the_first_ended(monkeypatch, tmp_path):
    calls = []

    def ready(cid):
        calls.append(cid)
        if len(calls) == 1:
            return _exits(1)(cid)
        raise TargetStartError("garagemq", "not ready within 5s (last check: ...)")
    with pytest.raises(TargetStartError) as info:
        _start(monkeypatch, tmp_path, [], ready=ready)
    msg = str(info.value)
    assert "start 1 exited (status exited, exit code 1); the last: not ready within 5s" in msg, msg
    assert not info.value.exited and len(calls) == 2


def test_not_ready_in_time_is_not_started_again(monkeypatch, tmp_path):
    calls = []

    def ready(cid):
        calls.append(cid)
        raise TargetStartError("garagemq", "not ready within 5s (last check: ...)")
    with pytest.raises(TargetStartError, match="^target garagemq: not ready within 5s"):
        _start(monkeypatch, tmp_path, [], ready=ready)
    assert len(calls) == 1 and _start.pending == set()


def test_an_interrupt_during_the_wait_removes_the_container_and_its_files(monkeypatch, tmp_path):
    def ready(cid):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        _start(monkeypatch, tmp_path, [], ready=ready)
    assert len(_start.removed) == 1 and _start.pending == set()
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]
