"""An endpoint given by an IPv6 address (`amqp://user@[::1]:PORT`) is used over every protocol it
speaks: the AMQP 1.0 rows are judged like the AMQP 0-9-1 ones (an adapter that wrote the address
without brackets, `amqp://::1:5672`, made every one of them an error), and the management API is
reached at http://[::1]:PORT.

The broker is the catalog's RabbitMQ 4.0.5. The container engine publishes its ports on 127.0.0.1
only (podman's port forwarding here does not listen on ::1), so the test puts a small TCP
forwarder of its own on [::1] in front of each published port: the suite sees an IPv6 endpoint,
the broker a client from the forwarder.
"""
from __future__ import annotations

import socket
import threading
import uuid

import pytest

from ..sessions import run_pytest
from .test_vendor_endpoint import PASSWORD, state, vendor  # noqa: F401 - `vendor` is a fixture

pytestmark = [pytest.mark.containers]


class Forwarder:
    """Accepts on [::1]:<free port> and copies bytes both ways to 127.0.0.1:target_port."""

    def __init__(self, target_port: int):
        self.target = ("127.0.0.1", target_port)
        self.server = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("::1", 0))
        self.server.listen(64)
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=10)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._copy, args=(a, b), daemon=True).start()

    @staticmethod
    def _copy(src, dst):
        try:
            while chunk := src.recv(65536):
                dst.sendall(chunk)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        self.server.close()


def test_an_ipv6_endpoint_is_used_over_amqp_1_0_as_over_amqp_0_9_1(vendor, engine, tmp_path):  # noqa: F811
    try:
        socket.socket(socket.AF_INET6).bind(("::1", 0))
    except OSError as exc:
        pytest.skip(f"no IPv6 loopback here: {exc}")
    rt, _ = vendor
    before = state(rt)
    amqp, management = Forwarder(rt.port("amqp091")), Forwarder(rt.port("http-management"))
    try:
        url = (f"six=amqp://vendor@[::1]:{amqp.port}?amqp_address_v1=permitted"
               f"&management=http://[::1]:{management.port}")
        env = {**engine.env, "MQCONFORM_PASSWORD_six": PASSWORD, "MQCONFORM_RUN_ID": uuid.uuid4().hex}
        proc, rows, _ = run_pytest(["suites/rabbitmq_address", "--spec", "rabbitmq-address@4.0", "--endpoint", url],
                                   tmp_path, env=env, timeout=900)
    finally:
        amqp.close()
        management.close()
    out = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), out[-3000:]
    assert "cannot be used" not in out, out[-3000:]
    assert rows and all(r["implementation"]["provenance"]["endpoint"] == f"amqp://vendor:***@[::1]:{amqp.port}"
                        for r in rows), rows[0]["implementation"]
    over_10 = [r for r in rows if "proton" in (r.get("adapter") or "")]
    assert len(over_10) >= 20, out[-3000:]
    broken = [(r["vector_id"], r["message"][:200]) for r in over_10
              if r["outcome"] == "error" and r["error_kind"] in ("adapter", "target", "harness")]
    assert broken == [], broken[:5]
    assert sum(r["outcome"] == "pass" for r in over_10) >= 10, [(r["vector_id"], r["outcome"]) for r in over_10][:20]
    # the footprint reached the management API over IPv6 too: the broker is left as found
    assert "is not left as found" not in out, out[-3000:]
    assert state(rt) == before
