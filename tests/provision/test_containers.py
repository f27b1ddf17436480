"""Integration: real brokers in containers (podman's Docker API here, Docker elsewhere).

Select with `-m containers`. The first run builds the images (about a minute with the
Debian base images); later runs reuse them (content-hash tags).
"""
from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pika
import pytest
from proton import ConnectionException, Message, Timeout
from proton.utils import BlockingConnection, LinkDetached

from fixtures.provision import TargetError, TargetStartError, catalog, cleanup_leftovers, start

pytestmark = [pytest.mark.containers, pytest.mark.usefixtures("stop_targets")]
ROOT = Path(__file__).resolve().parents[2]
RUN = uuid.uuid4().hex   # the run id this process starts its containers for


def containers_of_run(engine, run: str, *extra_filters: str) -> list[str]:
    """What `podman ps -a --filter label=mqconform.run=<id>` (or docker ps) lists.

    Checks of this process's own containers add mine() to look only at containers this
    worker owns."""
    cmd = [*engine.cli, "ps", "-a", "--filter", f"label=mqconform.run={run}", "--format", "{{.Names}}"]
    for f in extra_filters:
        cmd += ["--filter", f]
    p = subprocess.run(cmd, env=engine.cli_env(), capture_output=True, text=True, timeout=60, check=True)
    return [line for line in p.stdout.splitlines() if line.strip()]


def mine() -> str:
    return f"label=mqconform.owner.pid={os.getpid()}"


def amqp091_url(rt) -> str:
    c = rt.credentials
    return f"amqp://{c['username']}:{c['password']}@{rt.host}:{rt.port('amqp091')}/%2F"


def amqp10_connection(rt, timeout=10):
    return BlockingConnection(f"amqp://{rt.host}:{rt.port('amqp10')}", timeout=timeout,
                              user="guest", password="guest", allowed_mechs="PLAIN", allow_insecure_mechs=True)


def amqp091_roundtrip(rt, queue: str, body: bytes) -> None:
    conn = pika.BlockingConnection(pika.URLParameters(amqp091_url(rt) + "?connection_attempts=1&socket_timeout=10"))
    try:
        ch = conn.channel()
        ch.queue_declare(queue)
        ch.basic_publish("", queue, body)
        deadline = time.monotonic() + 10
        got = None
        while got is None and time.monotonic() < deadline:
            _, _, got = ch.basic_get(queue, auto_ack=True)
            if got is None:
                time.sleep(0.05)
        assert got == body
    finally:
        conn.close()


def amqp10_roundtrip(rt, address: str, body: str) -> None:
    conn = amqp10_connection(rt)
    try:
        conn.create_sender(address).send(Message(body=body), timeout=10)
        msg = conn.create_receiver(address).receive(timeout=10)
        assert msg.body == body
    finally:
        conn.close()


@pytest.mark.parametrize("name, address", [
    ("rabbitmq-4.0.5", "/queues/{q}"),  # address v2
    ("rabbitmq-3.10.8", "/amq/queue/{q}"),  # the 3.x plugin's address for an existing queue
])
def test_rabbitmq_answers_amqp091_and_amqp10_then_is_removed(engine, name, address):
    rt = start(name, run_id=RUN)
    assert start(name, run_id=RUN) is rt, "started once per run"
    assert rt.alive()
    assert rt.ready_s < catalog.load().get(name).start_timeout_s
    if rt.provenance["image.source"] == "local":
        assert rt.provenance["deb.rabbitmq-server"].startswith(rt.version + "-")
    else:
        assert rt.provenance["image.ref"] == f"rabbitmq:{rt.version}-management"
    assert rt.provenance["image.id"] and rt.provenance["engine"].startswith(engine.kind)
    q = f"mqconform-{uuid.uuid4().hex[:8]}"
    amqp091_roundtrip(rt, q, b"via 0-9-1")
    amqp10_roundtrip(rt, address.format(q=q), "via 1.0")
    assert containers_of_run(engine, RUN, mine(), f"label=mqconform.target={name}") == [rt.container_name]

    rt.stop()
    assert not rt.alive()
    assert containers_of_run(engine, RUN, mine()) == []


def _exec_conmons(container_id: str) -> dict[int, list[bytes]]:
    """{pid: argv} of podman's conmon processes of exec sessions in the container `container_id`."""
    out = {}
    for d in Path("/proc").iterdir():
        try:
            argv = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv and argv[0].endswith(b"conmon") and b"--exec-attach" in argv and container_id.encode() in argv:
            out[int(d.name)] = argv
    return out


def test_an_exec_session_leaves_no_engine_process_behind(engine):
    """podman keeps a conmon process per exec session for exit_command_delay after the exec ends, also
    once the container is gone; the engine's containers.conf makes that 15 s (podman's default 300)."""
    if engine.kind != "podman" or "CONTAINERS_CONF" not in engine.env:
        pytest.skip("not the podman service scripts/container-engine.sh configures")
    rt = start("rabbitmq-4.0.5", run_id=uuid.uuid4().hex)
    try:
        assert rt.exec_run(["true"]) == (0, "")
        cid = rt.container_id
        kept = _exec_conmons(cid)                  # the exec's conmon, waiting out its delay
    finally:
        rt.stop()
    assert kept, f"no conmon process of the exec session in {cid[:12]} found in /proc: nothing to check"
    delays = {argv[argv.index(b"--exit-delay") + 1] for argv in kept.values() if b"--exit-delay" in argv}
    assert delays == {b"15"}, f"exec sessions' conmon --exit-delay {delays}: a podman service started before " \
                              "exit_command_delay was set keeps 300 s (scripts/container-engine.sh stop, then run again)"
    deadline = time.monotonic() + 15 + 15
    while _exec_conmons(cid) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _exec_conmons(cid), (f"conmon of an exec session in {cid[:12]} still running 30 s after it ended: a "
                                    "podman service started before exit_command_delay was set keeps 300 s "
                                    "(scripts/container-engine.sh stop, then run again)")


def test_address_v1_denied_variant_refuses_v1_addresses(engine):
    rt = start("rabbitmq-4.0.5", "address-v1-denied", run_id=RUN)
    assert rt.provenance["variant"] == "address-v1-denied"
    q = f"mqconform-{uuid.uuid4().hex[:8]}"
    amqp091_roundtrip(rt, q, b"declare")
    amqp10_roundtrip(rt, f"/queues/{q}", "v2 works")
    conn = amqp10_connection(rt, timeout=5)
    try:
        # RabbitMQ refuses the link; proton's blocking API reports that as a detach, or as a
        # timeout when the refusal closes the session before the attach completes
        with pytest.raises((LinkDetached, ConnectionException, Timeout)):
            conn.create_sender(f"/queue/{q}").send(Message(body="v1"), timeout=5)
    finally:
        try:
            conn.close()
        except Exception:
            pass
    assert rt.alive()


def test_garagemq_answers_amqp091(engine):
    rt = start("garagemq", run_id=RUN)
    if rt.provenance["image.source"] == "local":
        assert rt.provenance["go.module"] == "github.com/valinurovam/garagemq"
        assert rt.provenance["go.module.version"] == "v" + rt.version
    amqp091_roundtrip(rt, f"mqconform-{uuid.uuid4().hex[:8]}", b"hello garagemq")
    with pytest.raises(TargetError, match="target garagemq: does not offer amqp10"):
        rt.port("amqp10")


def test_broker_killed_mid_use_is_reported_clearly(engine):
    rt = start("garagemq", run_id=RUN)
    conn = pika.BlockingConnection(pika.URLParameters(amqp091_url(rt) + "?connection_attempts=1&socket_timeout=5"))
    ch = conn.channel()
    ch.queue_declare("before-kill")
    subprocess.run([*engine.cli, "kill", rt.container_id], env=engine.cli_env(), check=True,
                   capture_output=True, timeout=60)

    with pytest.raises(pika.exceptions.AMQPError):
        for _ in range(50):  # the first publish may still be buffered
            ch.basic_publish("", "before-kill", b"x")
            conn.process_data_events(time_limit=0.1)
    # what the plugin says of a vector whose broker died (fixtures/plugin/targets.py, pytest_runtest_call)
    assert not rt.alive()
    msg = rt.died_message()
    assert msg.startswith("broker is not alive: container " + rt.container_name)
    assert "exit" in msg and "last log lines" in msg
    rt.stop()
    assert containers_of_run(engine, RUN, mine()) == []


def test_not_ready_in_time_names_target_and_shows_logs(engine, tmp_path):
    data = catalog.yaml.safe_load(catalog.DEFAULT_CATALOG.read_text())
    g = next(t for t in data["targets"] if t["name"] == "garagemq")
    g["readiness"] = {"start_timeout_s": 3, "checks": [{"command": ["false"]}]}
    cat = catalog.parse(data, "test-catalog")
    t0 = time.monotonic()
    with pytest.raises(TargetStartError) as info:
        start("garagemq", run_id=RUN, catalog=cat)
    assert time.monotonic() - t0 < 30
    msg = str(info.value)
    assert msg.startswith("target garagemq: not ready within 3s")
    assert "command false exited 1" in msg and "last log lines:" in msg
    assert containers_of_run(engine, RUN, mine()) == []


def _kill_before_ready(monkeypatch, engine, starts: int) -> list[str]:
    """The first `starts` containers are killed (SIGKILL, by the engine) before the readiness
    wait sees them: a container that exits during start. Returns the killed ones' ids."""
    from fixtures.provision import containers
    real, killed = containers.wait_ready, []

    def wait_ready(checks, label, cid, *rest):
        if len(killed) < starts:
            subprocess.run([*engine.cli, "kill", cid], env=engine.cli_env(), check=True, capture_output=True,
                           timeout=60)
            killed.append(cid)
        return real(checks, label, cid, *rest)

    monkeypatch.setattr(containers, "wait_ready", wait_ready)
    return killed


def test_a_container_that_exits_during_start_is_started_once_more_and_provenance_says_so(engine, monkeypatch):
    run = uuid.uuid4().hex
    killed = _kill_before_ready(monkeypatch, engine, 1)
    rt = start("garagemq", run_id=run)
    assert len(killed) == 1 and rt.container_id != killed[0]
    attempts = rt.provenance["start.attempts"]
    assert re.match(r"2; start 1 exited \(status (exited|stopped), exit code 137", attempts), attempts
    assert rt.provenance["container.name"] == rt.container_name
    assert rt.container_name.endswith("-start2")
    amqp091_roundtrip(rt, f"mqconform-{uuid.uuid4().hex[:8]}", b"second start")
    assert containers_of_run(engine, run, mine()) == [rt.container_name]     # the exited one is gone
    rt.stop()
    assert containers_of_run(engine, run, mine()) == []


def test_a_container_that_exits_at_each_start_is_an_error_naming_both(engine, monkeypatch):
    run = uuid.uuid4().hex
    killed = _kill_before_ready(monkeypatch, engine, 2)
    with pytest.raises(TargetStartError) as info:
        start("garagemq", run_id=run)
    msg = str(info.value)
    assert len(killed) == 2
    # the engine's status of a killed container: exited, or stopped while it is still cleaning up
    assert re.match(r"target garagemq: started 2 times; before the last, start 1 exited \(status (exited|stopped), "
                    r"exit code 137", msg), msg
    assert re.search(r"the last: container exited during start \(status (exited|stopped), exit code 137\)", msg), msg
    assert "last log lines:" in msg
    assert containers_of_run(engine, run, mine()) == []


def test_a_started_target_says_it_started_once(engine):
    assert start("garagemq", run_id=RUN).provenance["start.attempts"] == "1"


def _child(script: str, run: str) -> subprocess.Popen:
    """A Python process running `script`, with the run id as its sys.argv[1]."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(script), run], cwd=str(ROOT), env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_line(p: subprocess.Popen, want: str, timeout: float = 300) -> str:
    """The child's first stdout line containing `want`; bounded (the child is killed after timeout)."""
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in p.stdout:
            lines.put(line)
        lines.put("")

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
        except queue.Empty:
            break
        if want in line:
            return line
        if not line:
            break
    p.kill()
    raise AssertionError(f"child never printed {want!r}; stderr: {p.stderr.read()[-2000:]}")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_removes_containers(engine, sig):
    run = uuid.uuid4().hex
    p = _child("""
        import sys, time
        from fixtures.provision import start
        start("garagemq", run_id=sys.argv[1])
        print("READY", flush=True)
        time.sleep(120)
    """, run)
    try:
        _wait_line(p, "READY")
        assert len(containers_of_run(engine, run)) == 1
        p.send_signal(sig)
        p.wait(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert containers_of_run(engine, run) == []


def test_leftovers_of_dead_runs_are_removed(engine):
    run = uuid.uuid4().hex
    p = _child("""
        import os, sys
        from fixtures.provision import start
        rt = start("garagemq", run_id=sys.argv[1])
        print("READY", rt.container_name, flush=True)
        os._exit(0)  # no atexit, no cleanup: a crashed run
    """, run)
    name = _wait_line(p, "READY").split()[1]
    p.wait(timeout=60)
    left = containers_of_run(engine, run)
    removed = cleanup_leftovers()
    assert containers_of_run(engine, run) == []
    # another xdist worker's first start() sweeps leftovers too and may have been first
    assert name in removed or name not in left
