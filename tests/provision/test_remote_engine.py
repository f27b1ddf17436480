"""Integration: a target started through a remote container engine (DOCKER_HOST=tcp://...), the engine
of a second host on this machine (tests/provision/remotehost.py: a network namespace with podman's
service on TCP).

Checked: the engine found is that one and is not taken as local; the container runs under it (its
conmon is in the namespace); its ports are published there, not on loopback, and reached at the
namespace's address, where an AMQP 0-9-1 message goes round; the container is removed by the
process that started it; and afterwards the container, the service and the namespace are gone, also
when the test fails (the host's __exit__). garagemq: the cheapest catalog target (about 2 s), its
configuration file copied into the container (the remote engine does not see this host's files).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from .remotehost import RemoteEngineHost, available

pytestmark = pytest.mark.containers
ROOT = Path(__file__).resolve().parents[2]
TARGET = "garagemq"
RUN_TIMEOUT_S = 240   # the starting process: engine probe, image lookup, start, round trip, removal

# Runs in its own process: the engine it finds (DOCKER_HOST) goes into its os.environ, not the session's.
STARTER = textwrap.dedent("""
    import json, subprocess, sys, urllib.request, uuid
    import pika
    from fixtures.provision import ensure_engine, start

    run, target = sys.argv[1], sys.argv[2]
    eng = ensure_engine()
    rt = start(target, run_id=run)
    out = {"docker_host": eng.docker_host, "is_local": eng.is_local, "host": rt.host, "port": rt.port("amqp091")}
    info = rt._inspect()
    out["bindings"] = info["HostConfig"]["PortBindings"]
    api = eng.docker_host.replace("tcp://", "http://")
    with urllib.request.urlopen(f"{api}/v4.0.0/libpod/containers/{rt.container_id}/json", timeout=30) as r:
        conmon = str(json.loads(r.read())["State"].get("ConmonPid") or "")   # podman's own API says it
    out["conmon_pid"] = conmon
    out["conmon_netns"] = subprocess.run(["ip", "netns", "identify", conmon], capture_output=True, text=True,
                                         timeout=30).stdout.strip() if conmon else ""
    c = rt.credentials
    params = pika.ConnectionParameters(rt.host, rt.port("amqp091"), "/", pika.PlainCredentials(c["username"], c["password"]),
                                       connection_attempts=1, socket_timeout=10, blocked_connection_timeout=10)
    conn = pika.BlockingConnection(params)
    try:
        ch = conn.channel()
        q = "remote-engine-" + uuid.uuid4().hex[:8]
        ch.queue_declare(q, auto_delete=True)
        ch.basic_publish("", q, b"over the veth")
        body = None
        for _ in range(50):
            method, _props, body = ch.basic_get(q, auto_ack=True)
            if method is not None:
                break
            conn.sleep(0.1)
        out["received"] = (body or b"").decode()
        ch.queue_delete(q)
    finally:
        conn.close()
    out["container_id"] = rt.container_id
    rt.stop()
    print("RESULT " + json.dumps(out), flush=True)
""")


def _of_run(run: str) -> list[str]:
    """This host's podman (the same storage as the namespace's service): the run's containers."""
    p = subprocess.run(["podman", "ps", "-aq", "--filter", f"label=mqconform.run={run}"], capture_output=True,
                       text=True, timeout=60)
    return p.stdout.split()


def _netns_exists(name: str) -> bool:
    p = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30)
    return any(line.split()[0] == name for line in p.stdout.splitlines() if line.strip())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"


def test_target_through_a_remote_engine_in_a_second_host(tmp_path):
    why = available()
    if why:
        pytest.skip(f"a second host with its own engine {why}")
    run = uuid.uuid4().hex
    host = RemoteEngineHost(tmp_path / "remote-state", run)
    (tmp_path / "remote-state").mkdir()
    t0 = time.monotonic()
    try:
        with host:
            env = {**os.environ, "DOCKER_HOST": host.docker_host, "MQCONFORM_ENGINE": "auto",
                   "PYTHONPATH": str(ROOT)}
            for k in ("MQCONFORM_TARGET_HOST", "CONTAINERS_CONF", "DOCKER_API_VERSION"):
                env.pop(k, None)
            p = subprocess.run([sys.executable, "-c", STARTER, run, TARGET], cwd=ROOT, env=env, capture_output=True,
                               text=True, timeout=RUN_TIMEOUT_S)
            line = next((ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")), None)
            assert p.returncode == 0 and line, f"exit {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
            out = json.loads(line[len("RESULT "):])
            assert out["docker_host"] == host.docker_host and out["is_local"] is False
            assert out["host"] == host.ip, out
            assert out["conmon_netns"] == host.ns.name, f"container not run by the namespace's engine: {out}"
            # published on the second host's addresses, not only on its loopback
            assert all(b.get("HostIp") in ("", "0.0.0.0") for bs in out["bindings"].values() for b in bs), out
            assert out["received"] == "over the veth", out
            assert not _of_run(run), "the starting process did not remove its container"
            assert host.answers()
    finally:
        wall = time.monotonic() - t0
        print(f"remote engine test: {wall:.1f}s wall (namespace, service, start, round trip, removal)")
        assert not _of_run(run), f"containers of run {run} left"
        assert host.service_pid is None or not _alive(host.service_pid), "the namespace's podman service is left"
        assert not _netns_exists(host.ns.name), f"namespace {host.ns.name} left"
