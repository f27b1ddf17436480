"""A second host for tests with a container engine of its own: podman's Docker-compatible service in a
network namespace, listening on TCP at the namespace's address.

The namespace gets one end of a veth pair (10.232.N.2/30; this host keeps 10.232.N.1): the engine's
API and the ports it publishes are reached over a real link, never over loopback, and a container's
ports are published in the namespace (its own iptables), not on this host. It is
reports/bench/netns.py's Namespace without its mount namespace: the service is entered into the
network namespace only (`nsenter --net`), so that it shares this host's podman storage (images built
here are there; podman serialises its users with file locks) and its mounts are this host's.

Rules kept: every command and wait is bounded; __exit__ removes the containers the service runs for
`run` (through the service, then through this host's podman for what is left), then the service and
every other process in the namespace, then the veth and the namespace; it never raises and also runs
when __enter__ failed half way.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

from reports.bench.netns import Namespace

ROOT = Path(__file__).resolve().parents[2]
ENGINE_SCRIPT = ROOT / "scripts" / "container-engine.sh"
API_PORT = 2375
START_WAIT_S = 60        # the service answering /_ping (a loaded machine: podman's start takes seconds)
CMD_TIMEOUT_S = 60


def available() -> str | None:
    """Why a second host with an engine cannot be made here, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, a rootful podman service)"
    for tool in ("ip", "nsenter", "podman"):
        if not shutil.which(tool):
            return f"needs {tool} (iproute2, util-linux, podman)"
    return None


def _label_filter(run: str) -> str:
    return json.dumps({"label": [f"mqconform.run={run}"]})


class RemoteEngineHost:
    """`with RemoteEngineHost(state, run) as h:` h.docker_host (tcp://10.232.N.2:2375), h.ip, h.ns.name."""

    def __init__(self, state: Path, run: str):
        pid = os.getpid()
        n = pid % 250 + 1
        self.state, self.run = state, run
        self.ns = Namespace(f"mqc-re-{pid}", f"10.232.{n}.2", 30, host_ip=f"10.232.{n}.1",
                            veth=(f"mqrh{pid}", f"mqrn{pid}"))
        self.ip = self.ns.ip
        self.docker_host = f"tcp://{self.ip}:{API_PORT}"
        self.log_path = state / "podman-remote.log"
        self.service_pid: int | None = None

    def __enter__(self) -> RemoteEngineHost:
        try:
            self.ns.create()
            # The project's containers.conf (runtime runc, no default ulimits, short exec cleanup).
            env = {**os.environ, "MQCONFORM_STATE": str(self.state)}
            subprocess.run(["bash", str(ENGINE_SCRIPT), "install"], env=env, check=True, capture_output=True,
                           timeout=CMD_TIMEOUT_S, stdin=subprocess.DEVNULL)
            env["CONTAINERS_CONF"] = str(self.state / "containers.conf")
            self.ns._log = open(self.log_path, "wb")  # noqa: SIM115 - closed by Namespace.remove()
            # nsenter execs podman: the pid is the service's; its own session, killed by Namespace.remove()
            self.ns.proc = subprocess.Popen(
                ["nsenter", f"--net=/run/netns/{self.ns.name}", "podman", "system", "service", "--time=0",
                 f"tcp:{self.ip}:{API_PORT}"],
                cwd="/", env=env, stdin=subprocess.DEVNULL, stdout=self.ns._log, stderr=subprocess.STDOUT,
                start_new_session=True)
            self.service_pid = self.ns.proc.pid
            deadline = time.monotonic() + START_WAIT_S
            while not self.answers():
                if self.ns.proc.poll() is not None:
                    raise RuntimeError(f"podman service in {self.ns.name} exited: {self.log()}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"podman service at {self.docker_host} did not answer within "
                                       f"{START_WAIT_S}s: {self.log()}")
                time.sleep(0.2)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def answers(self, timeout: float = 2.0) -> bool:
        try:
            with urllib.request.urlopen(f"http://{self.ip}:{API_PORT}/_ping", timeout=timeout) as r:
                return r.status == 200
        except OSError:
            return False

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-3000:]
        except OSError:
            return ""

    def containers(self) -> list[dict]:
        """The containers of `run` the namespace's engine has (an empty list when it does not answer)."""
        url = f"http://{self.ip}:{API_PORT}/containers/json?all=1&filters={urllib.parse.quote(_label_filter(self.run))}"
        try:
            with urllib.request.urlopen(url, timeout=30) as r:
                return json.loads(r.read())
        except (OSError, ValueError):
            return []

    def _remove_containers(self) -> None:
        # Through the service first: its network teardown (port forwarding) runs in the namespace.
        # Killed first: a forced removal would give a main process that ignores SIGTERM 10 s.
        for c in self.containers():
            api = f"http://{self.ip}:{API_PORT}/containers/{c['Id']}"
            for req in (urllib.request.Request(f"{api}/kill", method="POST"),
                        urllib.request.Request(f"{api}?force=1&v=1", method="DELETE")):
                try:
                    urllib.request.urlopen(req, timeout=30).close()
                except OSError:   # not running (the kill), or already gone
                    pass
        # What is left (the service did not answer): this host's podman, on the same storage.
        try:
            p = subprocess.run(["podman", "ps", "-aq", "--filter", f"label=mqconform.run={self.run}"],
                               capture_output=True, text=True, timeout=CMD_TIMEOUT_S)
            ids = p.stdout.split()
            if ids:
                subprocess.run(["podman", "rm", "-f", "-t", "0", *ids], capture_output=True, timeout=CMD_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired):
            pass

    def __exit__(self, *exc) -> None:
        if self.ns.proc is not None:
            self._remove_containers()
        self.ns.remove()
