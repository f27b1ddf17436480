"""A remote engine's rules, as pure code (tests/provision/test_remote_engine.py starts a broker through
one): which engine is local, where its ports are reached, which CLI drives it, and that a DOCKER_HOST
on another machine that does not answer is an error, not a reason to start an engine here."""
import pytest

from fixtures.provision import engine


def _eng(docker_host, kind="podman"):
    return engine.Engine(kind=kind, env={"DOCKER_HOST": docker_host})


def test_another_machines_engine_is_not_local_and_its_ports_are_reached_there(monkeypatch):
    monkeypatch.delenv("MQCONFORM_TARGET_HOST", raising=False)
    e = _eng("tcp://10.232.7.2:2375")
    assert not e.is_local and e.host == "10.232.7.2"
    assert _eng("unix:///run/podman/podman.sock").is_local
    assert _eng("tcp://127.0.0.1:2375").host == "127.0.0.1"


def test_a_forwarded_socket_publishes_on_the_target_host(monkeypatch):
    # ssh -L 127.0.0.1:23750:/run/podman/podman.sock HOST: the API is on loopback, the ports on HOST
    monkeypatch.setenv("MQCONFORM_TARGET_HOST", "192.0.2.9")
    e = _eng("tcp://127.0.0.1:23750")
    assert not e.is_local and e.host == "192.0.2.9"
    monkeypatch.setenv("MQCONFORM_TARGET_HOST", "127.0.0.1")
    assert e.is_local


def test_a_podman_engine_is_driven_by_podmans_cli(monkeypatch, tmp_path):
    # a Docker CLI on PATH too: it would name ids sha256:... and every content hash would change
    monkeypatch.setenv("MQCONFORM_STATE", str(tmp_path))
    monkeypatch.setattr(engine.shutil, "which", lambda name: f"/usr/bin/{name}")
    assert _eng("tcp://10.232.7.2:2375").cli == ["podman", "--remote", "--url", "tcp://10.232.7.2:2375"]
    assert _eng(f"unix://{tmp_path / 'podman.sock'}").cli == ["podman"]
    assert _eng("tcp://10.232.7.2:2375", kind="docker").cli == ["docker"]


@pytest.mark.parametrize("host", ["tcp://192.0.2.9:2375", "ssh://root@192.0.2.9"])
def test_a_remote_docker_host_that_does_not_answer_is_an_error(monkeypatch, host):
    monkeypatch.setenv("DOCKER_HOST", host)
    monkeypatch.setenv("MQCONFORM_ENGINE", "auto")
    monkeypatch.setattr(engine, "probe", lambda *a, **k: None)
    started = []
    monkeypatch.setattr(engine.subprocess, "run", lambda *a, **k: started.append(a))
    with pytest.raises(engine.EngineUnavailable, match="does not answer") as e:
        engine._find_or_start(5)
    assert not started, "an engine was started here for a run meant for another machine"
    assert ("ssh -N -L" in str(e.value)) == host.startswith("ssh://")


@pytest.mark.parametrize("mode", ["auto", "podman"])
def test_a_dead_tunnel_or_a_remote_podman_is_never_replaced_by_an_engine_here(monkeypatch, mode):
    """Review: a forwarded socket (DOCKER_HOST on loopback, MQCONFORM_TARGET_HOST off it) that does not
    answer, and MQCONFORM_ENGINE=podman with a remote DOCKER_HOST, fell back to an engine of this machine."""
    monkeypatch.setenv("MQCONFORM_ENGINE", mode)
    monkeypatch.setenv("DOCKER_HOST", "tcp://127.0.0.1:23750" if mode == "auto" else "tcp://192.0.2.9:2375")
    monkeypatch.setenv("MQCONFORM_TARGET_HOST", "192.0.2.9")
    monkeypatch.setattr(engine, "probe", lambda *a, **k: None)
    started = []
    monkeypatch.setattr(engine.subprocess, "run", lambda *a, **k: started.append(a))
    with pytest.raises(engine.EngineUnavailable, match="does not answer"):
        engine._find_or_start(5)
    assert not started
    monkeypatch.setattr(engine, "probe", lambda *a, **k: ("podman", "4.3.1"))
    if mode == "podman":
        e = engine._find_or_start(5)
        assert e.kind == "podman" and e.docker_host == "tcp://192.0.2.9:2375" and not e.is_local
