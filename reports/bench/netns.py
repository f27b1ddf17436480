"""Hosts of their own on this machine: a network namespace each, reached over a veth pair.

A Namespace holds one end of a veth pair; the other end stays on this host, either with an address
of its own (a point-to-point link: this host and the namespace) or as a port of a bridge (several
namespaces on one segment, which this host also joins). Processes started in it run in a mount
namespace of their own with a fresh /tmp, so that this host's temporary files are not there,
except what they need, bound at the same path on both sides (the shared folder, and Spark's own
files when they are under /tmp). Every Python interpreter is masked (bound over by /bin/false) and
PATH holds only Java: a Spark executor that needed Python would fail.

Rules kept: every command has a bound; remove() kills every process in the namespace, then deletes
the veth and the namespace, never raises, and may be called twice (cleanup on failure and Ctrl-C).
Needs root, iproute2 and unshare.
"""
from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

# A folder outside /tmp that exists on Debian and that a namespace may cover (only inside it).
STAGE = "/srv"
CMD_TIMEOUT_S = 30


def spark_home() -> Path:
    import pyspark

    return Path(os.path.realpath(pyspark.__file__)).parent


def available() -> str | None:
    """Why namespaces cannot be made here, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces)"
    for tool in ("ip", "unshare", "java"):
        if not shutil.which(tool):
            return f"needs {tool}"
    if not Path(STAGE).is_dir():
        return f"needs the folder {STAGE}"
    return None


def pythons() -> list[str]:
    """Every Python interpreter a namespace must not be able to run."""
    found = {os.path.realpath(sys.executable)}
    for d in ("/usr/bin", "/usr/local/bin", os.path.dirname(os.path.realpath(sys.executable))):
        if os.path.isdir(d):
            found |= {os.path.realpath(os.path.join(d, n)) for n in os.listdir(d) if n.startswith("python")}
    return sorted(p for p in found if os.path.isfile(p))


def ip(*args: str, ns: str | None = None, check: bool = True) -> subprocess.CompletedProcess:
    cmd = ["ip", "netns", "exec", ns, "ip", *args] if ns else ["ip", *args]
    return subprocess.run(cmd, check=check, capture_output=True, text=True, timeout=CMD_TIMEOUT_S)


def quiet(*cmd: str) -> None:
    """A removal step: its failure (already gone) is not an error, and it may not hang."""
    try:
        subprocess.run(list(cmd), capture_output=True, timeout=CMD_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        pass


class Bridge:
    """A bridge on this host with an address of this host on it: the segment namespaces join."""

    def __init__(self, name: str, host_ip: str, prefix: int = 24):
        self.name, self.host_ip, self.prefix = name, host_ip, prefix

    def create(self) -> None:
        ip("link", "add", self.name, "type", "bridge")
        ip("addr", "add", f"{self.host_ip}/{self.prefix}", "dev", self.name)
        ip("link", "set", self.name, "up")

    def remove(self) -> None:
        quiet("ip", "link", "del", self.name)


class Namespace:
    """A network namespace with one end of a veth pair, the other end on this host (see the module)."""

    def __init__(self, name: str, ip_addr: str, prefix: int, host_ip: str | None = None,
                 bridge: Bridge | None = None, veth: tuple[str, str] | None = None):
        if (host_ip is None) == (bridge is None):
            raise ValueError("a namespace is reached over a point-to-point link (host_ip) or a bridge, one of them")
        self.name, self.ip, self.prefix = name, ip_addr, prefix
        self.host_ip, self.bridge = host_ip or bridge.host_ip, bridge
        self.veth = veth or (f"{name[:12]}h", f"{name[:12]}n")
        self.proc: subprocess.Popen | None = None
        self._log = None

    def create(self) -> None:
        host_end, ns_end = self.veth
        ip("netns", "add", self.name)
        ip("link", "add", host_end, "type", "veth", "peer", "name", ns_end)
        ip("link", "set", ns_end, "netns", self.name)
        if self.bridge:
            ip("link", "set", host_end, "master", self.bridge.name)
        else:
            ip("addr", "add", f"{self.host_ip}/{self.prefix}", "dev", host_end)
        ip("link", "set", host_end, "up")
        ip("addr", "add", f"{self.ip}/{self.prefix}", "dev", ns_end, ns=self.name)
        ip("link", "set", ns_end, "up", ns=self.name)
        ip("link", "set", "lo", "up", ns=self.name)

    def start(self, body: str, keep: list[Path], log: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
        """Run the shell script `body` in the namespace, with a fresh /tmp that holds only `keep` (bound at the
        same paths), every Python masked and PATH holding Java only; its output goes to `log`."""
        java_home = Path(os.path.realpath(shutil.which("java"))).parent.parent
        masks = "\n".join(f"mount --bind /bin/false {shlex.quote(p)}" for p in pythons())
        kept = [str(p) for p in keep if str(p).startswith("/tmp/")]
        stage = "\n".join(f"mkdir -p {STAGE}/{i}; mount --bind {shlex.quote(p)} {STAGE}/{i}" for i, p in enumerate(kept))
        restore = "\n".join(f"mkdir -p {shlex.quote(p)}; mount --bind {STAGE}/{i} {shlex.quote(p)}"
                            for i, p in enumerate(kept))
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        script = f"""
set -e
mount --make-rprivate /
mount -t tmpfs tmpfs {STAGE}
{stage}
mount -t tmpfs tmpfs /tmp
{restore}
{masks}
export JAVA_HOME={java_home} PATH={java_home}/bin:/usr/sbin:/usr/bin:/sbin:/bin {exports}
! command -v python3 >/dev/null 2>&1 || ! python3 -c pass 2>/dev/null || {{ echo "python still runs" >&2; exit 3; }}
{body}
"""
        log.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(log, "wb")  # noqa: SIM115 - closed in remove()
        self.proc = subprocess.Popen(["ip", "netns", "exec", self.name, "unshare", "--mount", "--propagation",
                                      "private", "bash", "-c", script],
                                     stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True)
        return self.proc

    def pids(self) -> list[int]:
        """The processes in the namespace now (its script and all it started)."""
        try:
            out = subprocess.run(["ip", "netns", "pids", self.name], capture_output=True, text=True,
                                 timeout=CMD_TIMEOUT_S).stdout
        except (OSError, subprocess.TimeoutExpired):
            return []
        return [int(p) for p in out.split() if p.isdigit()]

    def remove(self) -> None:
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
        # What the script started (a worker's executors) is in the namespace too: none may outlive it.
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.proc:
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass
        quiet("ip", "link", "del", self.veth[0])
        quiet("ip", "netns", "del", self.name)
        if self._log:
            self._log.close()
            self._log = None
