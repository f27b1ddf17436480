"""A Spark standalone cluster on this machine: a master and N workers, each in a network namespace of its own.

The namespaces are ports of one bridge (10.232.K.0/24, K from this process's id): this host is .1 (the
driver runs here and reaches every namespace), the master .2, worker i .(2+i). Each worker runs in its
own namespace with its own veth and address, so executors talk to the driver and to each other over
real links, never over loopback; no Python runs there (reports/bench/netns.py). The shared folder is bound at
the same path in every namespace: the storage every executor mounts at the same place.

Rules kept: the cluster counts as up only when the master lists every worker alive, within a bound;
leaving the `with` block (normally, on an exception or on Ctrl-C) removes every namespace, veth,
the bridge and every process started, in reverse order of creation.
"""
from __future__ import annotations

import json
import os
import time
import urllib.request
from pathlib import Path

from reports.bench.netns import Bridge, Namespace, spark_home

MASTER_PORT, MASTER_UI = 7077, 8080
START_TIMEOUT_S = 120.0


def spark_env(addr: str) -> dict[str, str]:
    return {"SPARK_HOME": str(spark_home()), "SPARK_WORKER_DIR": "/tmp/work", "SPARK_LOCAL_DIRS": "/tmp/local",
            "SPARK_LOCAL_IP": addr}


def master_cmd(addr: str) -> str:
    return (f"{spark_home()}/bin/spark-class org.apache.spark.deploy.master.Master --host {addr} "
            f"--port {MASTER_PORT} --webui-port {MASTER_UI}")


def worker_cmd(master: str, addr: str, cores: int, memory: str) -> str:
    return (f"{spark_home()}/bin/spark-class org.apache.spark.deploy.worker.Worker {master} --host {addr} "
            f"--cores {cores} --memory {memory} --webui-port 8081")


def master_state(addr: str) -> dict | None:
    """The master's JSON status (workers, applications), or None when it does not answer."""
    try:
        with urllib.request.urlopen(f"http://{addr}:{MASTER_UI}/json/", timeout=5) as r:
            return json.load(r)
    except (OSError, ValueError):
        return None


def wait_for_workers(addr: str, n: int, namespaces: list[Namespace], timeout_s: float, log) -> dict:
    """Block until the master at `addr` lists `n` workers alive; RuntimeError when a namespace's script ends
    first or after timeout_s, with the end of `log()`."""
    deadline, last = time.monotonic() + timeout_s, None
    while time.monotonic() < deadline:
        for ns in namespaces:
            if ns.proc and ns.proc.poll() is not None:
                raise RuntimeError(f"{ns.name} exited {ns.proc.returncode}: {log()[-2000:]}")
        last = master_state(addr)
        if last and last.get("aliveworkers", 0) >= n:
            return last
        time.sleep(0.5)
    raise RuntimeError(f"{n} worker(s) not alive on spark://{addr}:{MASTER_PORT} within {timeout_s:.0f}s: "
                       f"{last}; {log()[-2000:]}")


class Cluster:
    """`with Cluster(shared, logs, workers=2) as c:` ... c.master is the URL to give `--master`."""

    def __init__(self, shared: Path, logs: Path, workers: int = 2, cores: int = 1, memory: str = "2g",
                 timeout_s: float = START_TIMEOUT_S):
        if workers < 1 or cores < 1:
            raise ValueError("a cluster has one worker or more, each with one core or more")
        pid = os.getpid()
        net = f"10.232.{pid % 250 + 1}"
        self.shared, self.logs, self.cores, self.memory, self.timeout_s = shared, logs, cores, memory, timeout_s
        self.bridge = Bridge(f"mqcb{pid}", f"{net}.1")
        self.host_ip = self.bridge.host_ip
        self.master_ns = Namespace(f"mqc-cl{pid}-m", f"{net}.2", 24, bridge=self.bridge,
                                   veth=(f"mqc{pid}mh", f"mqc{pid}mn"))
        self.workers = [Namespace(f"mqc-cl{pid}-w{i}", f"{net}.{2 + i}", 24, bridge=self.bridge,
                                  veth=(f"mqc{pid}w{i}h", f"mqc{pid}w{i}n")) for i in range(1, workers + 1)]
        self.master = f"spark://{self.master_ns.ip}:{MASTER_PORT}"

    @property
    def namespaces(self) -> list[Namespace]:
        return [self.master_ns, *self.workers]

    def __enter__(self) -> Cluster:
        try:
            self.bridge.create()
            keep = [self.shared, spark_home()]
            m = self.master_ns
            m.create()
            m.start(f"mkdir -p /tmp/work /tmp/local\nexec {master_cmd(m.ip)}", keep, self.logs / "master.log",
                    spark_env(m.ip))
            for w in self.workers:
                w.create()
                w.start(f"mkdir -p /tmp/work /tmp/local\nexec {worker_cmd(self.master, w.ip, self.cores, self.memory)}",
                        keep, self.logs / f"{w.name}.log", spark_env(w.ip))
            wait_for_workers(m.ip, len(self.workers), self.namespaces, self.timeout_s, self.log)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def log(self) -> str:
        """The logs of the master and the workers, one after the other."""
        parts = []
        for f in sorted(self.logs.glob("*.log")):
            try:
                parts.append(f"== {f.name}\n{f.read_text(errors='replace')}")
            except OSError:
                pass
        return "\n".join(parts)

    def __exit__(self, *exc) -> None:
        for ns in reversed(self.namespaces):
            ns.remove()
        self.bridge.remove()
