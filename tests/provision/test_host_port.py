"""A port the server hands out to clients (the catalog's `host_port_env`: RocketMQ's broker address,
registered with the name server) is the same inside and outside: each start attempt picks a free
host port, tells the container in the named variable and publishes that container port on that host
port; the other ports stay engine-picked, and the picked port is not part of config.digest. Pure
code: the engine is replaced."""
from fixtures.provision import containers as C
from fixtures.provision import load_catalog, reaper


class _Engine:
    is_local, host, kind, version = True, "127.0.0.1", "podman", "test"
    docker_host = "unix:///nonexistent/engine.sock"   # no API answers: clients speak "auto"


def _start(monkeypatch, tmp_path, failures=()):
    made = []

    class FakeContainer:
        def __init__(self, image, name, **client):   # client: docker_client_kw, unused here
            self.ports, self.name, self.env = {}, name, {}
            made.append(self)

        def with_envs(self, **kw):
            self.env.update(kw)
            return self

        def with_env(self, k, v):
            self.env[k] = v
            return self

        with_command = with_volume_mapping = with_kwargs = lambda self, *a, **kw: self

        def start(self):
            if len(made) <= len(failures):
                raise RuntimeError(failures[len(made) - 1])

        def get_wrapped_container(self):
            return type("W", (), {"id": "cid"})()

    import testcontainers.core.container as tc
    monkeypatch.setattr(tc, "DockerContainer", FakeContainer)
    monkeypatch.setattr(reaper, "remove_by_name", lambda eng, name: None)
    monkeypatch.setattr(reaper, "pending", lambda cid, eng: None)
    monkeypatch.setattr(reaper, "owned", lambda cid, c: None)
    monkeypatch.setattr(C, "published_ports", lambda eng, cid, ports, label: {
        p: made[-1].ports[f"{p}/tcp"][1] or 40000 + i for i, p in enumerate(ports)})
    monkeypatch.setattr(C, "wait_ready", lambda *a: 0.5)
    monkeypatch.setattr(C.engine_mod, "state_dir", lambda: tmp_path)
    entry = load_catalog().get("rocketmq-5.5.0")
    image = type("I", (), {"id": "img", "ref": "mqconform/rocketmq-5.5.0:x", "provenance": {}})()
    started = C._start_container(entry, None, entry.config(None), _Engine(), image, 5.0, "0123456789abcdef")
    return started, made


def test_the_broker_port_is_the_same_inside_and_outside(monkeypatch, tmp_path):
    started, made = _start(monkeypatch, tmp_path)
    c = made[-1]
    broker = int(c.env["ROCKETMQ_BROKER_PORT"])
    assert c.ports[f"{broker}/tcp"] == ("127.0.0.1", broker)          # container port H on host port H
    assert "10911/tcp" not in c.ports
    assert started.port("rocketmq-broker") == broker
    assert c.ports["9876/tcp"] == ("127.0.0.1", None)                 # the name server: engine-picked
    assert started.port("rocketmq-namesrv") != 9876


def test_a_lost_port_picks_a_new_one_and_the_digest_does_not_change(monkeypatch, tmp_path):
    taken = "bind: address already in use"
    first, made = _start(monkeypatch, tmp_path, [taken])
    assert len(made) == 2
    assert all(f"{m.env['ROCKETMQ_BROKER_PORT']}/tcp" in m.ports for m in made)
    again, _ = _start(monkeypatch, tmp_path)
    assert first.provenance["config.digest"] == again.provenance["config.digest"]
    assert "listenPort" in first.provenance["config.deviations"]
