"""A second host for tests: a Spark master and worker in a network and mount namespace of their own.

The namespace gets one end of a veth pair (10.231.N.2/30; this host keeps 10.231.N.1), so the
driver and the executors talk over a real link, never over loopback. What the namespace sees (a
fresh /tmp but for the shared folder and Spark's files, every Python masked) is reports/bench/netns.py's;
reports/bench/standalone.py makes clusters of several such hosts. Needs root and iproute2; everything is
removed on exit, also on failure.
"""
from __future__ import annotations

import os
from pathlib import Path

from reports.bench.netns import Namespace, available, spark_home  # noqa: F401 - available: the tests' skip reason
from reports.bench.standalone import MASTER_PORT, master_cmd, spark_env, wait_for_workers, worker_cmd


class SecondHost:
    def __init__(self, shared: Path, logs: Path, cores: int = 1, memory: str = "1536m"):
        self.shared, self.logs = shared, logs
        pid = os.getpid()
        n = pid % 250 + 1
        self.ns = Namespace(f"mqc-sh-{pid}", f"10.231.{n}.2", 30, host_ip=f"10.231.{n}.1",
                            veth=(f"mqh{pid}", f"mqn{pid}"))
        self.host_ip, self.ip = self.ns.host_ip, self.ns.ip
        self.master = f"spark://{self.ip}:{MASTER_PORT}"
        self.cores, self.memory = cores, memory

    @property
    def proc(self):
        return self.ns.proc

    def __enter__(self) -> SecondHost:
        try:
            self.ns.create()
            body = f"""mkdir -p /tmp/work /tmp/local
{master_cmd(self.ip)} &
exec {worker_cmd(self.master, self.ip, self.cores, self.memory)}"""
            self.ns.start(body, [self.shared, spark_home()], self.logs / "second-host.log", spark_env(self.ip))
            wait_for_workers(self.ip, 1, [self.ns], 120, self.log)
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def log(self) -> str:
        try:
            return (self.logs / "second-host.log").read_text(errors="replace")
        except OSError:
            return ""

    def __exit__(self, *exc) -> None:
        self.ns.remove()
