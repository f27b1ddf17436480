"""A second host for tests: a Spark master and worker in a network and mount namespace of their own.

The namespace gets one end of a veth pair (10.231.N.2/30; this host keeps 10.231.N.1), so the
driver and the executors talk over a real link, never over loopback. Its mount namespace has a
fresh /tmp, so the driver's temporary files are not there, except what the second host needs,
bound at the same path on both sides: the shared folder (the storage both hosts see) and Spark's
own files (SPARK_HOME, in the checkout's virtualenv, which is under /tmp when the project was
cloned there). Every Python interpreter is masked
there (bound over by /bin/false) and PATH holds only Java: an executor that needed Python
would fail. Needs root and iproute2; everything is removed on exit, also on failure.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pyspark

SPARK_HOME = Path(os.path.realpath(pyspark.__file__)).parent
# A folder outside /tmp that exists on Debian and that the namespace may cover (only inside it).
STAGE = "/srv"


def available() -> str | None:
    """Why a second host cannot be made here, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces)"
    for tool in ("ip", "unshare", "java"):
        if not shutil.which(tool):
            return f"needs {tool}"
    if not Path(STAGE).is_dir():
        return f"needs the folder {STAGE}"
    return None


def _pythons() -> list[str]:
    found = {os.path.realpath(sys.executable)}
    for d in ("/usr/bin", "/usr/local/bin", os.path.dirname(os.path.realpath(sys.executable))):
        if os.path.isdir(d):
            found |= {os.path.realpath(os.path.join(d, n)) for n in os.listdir(d) if n.startswith("python")}
    return sorted(p for p in found if os.path.isfile(p))


class SecondHost:
    def __init__(self, shared: Path, logs: Path, cores: int = 1, memory: str = "1536m"):
        self.shared, self.logs = shared, logs
        n = os.getpid() % 250 + 1
        self.ns, self.veth = f"mqc-sh-{os.getpid()}", (f"mqh{os.getpid()}", f"mqn{os.getpid()}")
        self.host_ip, self.ip = f"10.231.{n}.1", f"10.231.{n}.2"
        self.master = f"spark://{self.ip}:7077"
        self.cores, self.memory = cores, memory
        self.proc: subprocess.Popen | None = None

    def _ip(self, *args: str, ns: bool = False) -> None:
        cmd = ["ip", "netns", "exec", self.ns, "ip", *args] if ns else ["ip", *args]
        subprocess.run(cmd, check=True, capture_output=True, timeout=30)

    def __enter__(self) -> SecondHost:
        try:
            self._ip("netns", "add", self.ns)
            self._ip("link", "add", self.veth[0], "type", "veth", "peer", "name", self.veth[1])
            self._ip("link", "set", self.veth[1], "netns", self.ns)
            self._ip("addr", "add", f"{self.host_ip}/30", "dev", self.veth[0])
            self._ip("link", "set", self.veth[0], "up")
            self._ip("addr", "add", f"{self.ip}/30", "dev", self.veth[1], ns=True)
            self._ip("link", "set", self.veth[1], "up", ns=True)
            self._ip("link", "set", "lo", "up", ns=True)
            self._start()
            self._wait_for_worker(120)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _start(self) -> None:
        java_home = Path(os.path.realpath(shutil.which("java"))).parent.parent
        masks = " ".join(f"mount --bind /bin/false {p};" for p in _pythons())
        # What the fresh /tmp would hide and the second host needs: staged aside, bound back after.
        keep = [str(self.shared)] + [str(p) for p in (SPARK_HOME,) if str(p).startswith("/tmp/")]
        stage = " ".join(f"mkdir -p {STAGE}/{i}; mount --bind {p} {STAGE}/{i};" for i, p in enumerate(keep))
        restore = " ".join(f"mkdir -p {p}; mount --bind {STAGE}/{i} {p};" for i, p in enumerate(keep))
        spark_class = f"{SPARK_HOME}/bin/spark-class"
        script = f"""
set -e
mount --make-rprivate /
mount -t tmpfs tmpfs {STAGE}
{stage}
mount -t tmpfs tmpfs /tmp
mkdir -p /tmp/work /tmp/local
{restore}
{masks}
export SPARK_HOME={SPARK_HOME} JAVA_HOME={java_home} PATH={java_home}/bin:/usr/sbin:/usr/bin:/sbin:/bin
export SPARK_WORKER_DIR=/tmp/work SPARK_LOCAL_DIRS=/tmp/local SPARK_LOCAL_IP={self.ip}
! command -v python3 >/dev/null 2>&1 || ! python3 -c pass 2>/dev/null || {{ echo "python still runs" >&2; exit 3; }}
{spark_class} org.apache.spark.deploy.master.Master --host {self.ip} --port 7077 --webui-port 8080 &
exec {spark_class} org.apache.spark.deploy.worker.Worker {self.master} --host {self.ip} \\
    --cores {self.cores} --memory {self.memory} --webui-port 8081
"""
        self.logs.mkdir(parents=True, exist_ok=True)
        log = open(self.logs / "second-host.log", "wb")  # noqa: SIM115 - closed in __exit__
        self._log = log
        self.proc = subprocess.Popen(["ip", "netns", "exec", self.ns, "unshare", "--mount", "--propagation",
                                      "private", "bash", "-c", script],
                                     stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def _wait_for_worker(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the second host exited {self.proc.returncode}: {self.log()[-2000:]}")
            try:
                with urllib.request.urlopen(f"http://{self.ip}:8080/json/", timeout=5) as r:
                    last = json.load(r)
                if last.get("aliveworkers", 0) >= 1:
                    return
            except OSError:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"no worker alive on {self.master} within {timeout_s:.0f}s: {last}; {self.log()[-2000:]}")

    def log(self) -> str:
        try:
            return (self.logs / "second-host.log").read_text(errors="replace")
        except OSError:
            return ""

    def __exit__(self, *exc) -> None:
        if self.proc and self.proc.poll() is None:
            for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 15)):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(timeout=wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        # Executors the worker started are in the same namespace: none may outlive it.
        pids = subprocess.run(["ip", "netns", "pids", self.ns], capture_output=True, text=True, timeout=30).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        subprocess.run(["ip", "link", "del", self.veth[0]], capture_output=True, timeout=30)
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True, timeout=30)
        if getattr(self, "_log", None):
            self._log.close()
