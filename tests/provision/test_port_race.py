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


def _start(monkeypatch, tmp_path, failures):
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
            return type("W", (), {"id": "cid"})()

    import testcontainers.core.container as tc
    monkeypatch.setattr(tc, "DockerContainer", FakeContainer)
    removed = []
    monkeypatch.setattr(reaper, "remove_by_name", lambda eng, name: removed.append(name))
    monkeypatch.setattr(reaper, "pending", lambda cid, eng: None)
    monkeypatch.setattr(reaper, "owned", lambda cid, c: None)
    monkeypatch.setattr(C, "published_ports", lambda eng, cid, ports, label: {p: 40000 + i for i, p in enumerate(ports)})
    monkeypatch.setattr(C, "wait_ready", lambda *a: 0.5)
    monkeypatch.setattr(C.engine_mod, "state_dir", lambda: tmp_path)
    entry = load_catalog().get("garagemq")
    image = type("I", (), {"id": "img", "ref": "mqconform/garagemq:x", "provenance": {}})()
    started = C._start_container(entry, None, entry.config(None), _Engine(), image, 5.0, "0123456789abcdef")
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
