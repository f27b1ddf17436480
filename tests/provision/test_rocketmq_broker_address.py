"""Integration: a remoting client on the host (RocketMQ's own clients, e.g. its OpenMessaging provider)
reaches the broker through the name server: the broker address the name server hands out
(GET_BROKER_CLUSTER_INFO) is reachable from the host and is this target's broker
(GET_BROKER_RUNTIME_INFO names its version). The catalog's host_port_env publishes the broker's
listen port on the same host port (fixtures/provision/containers.py)."""
from __future__ import annotations

import json
import re
import socket
import struct

import pytest

pytestmark = [pytest.mark.containers, pytest.mark.usefixtures("stop_targets")]

GET_BROKER_RUNTIME_INFO, GET_BROKER_CLUSTER_INFO = 28, 106


def _call(host: str, port: int, code: int) -> tuple[dict, str]:
    """One remoting request with a JSON header; (response header, body text)."""
    header = json.dumps({"code": code, "extFields": {}, "flag": 0, "language": "PYTHON", "opaque": 1,
                         "serializeTypeCurrentRPC": "JSON", "version": 500}).encode()
    with socket.create_connection((host, port), timeout=15) as s:
        s.sendall(struct.pack(">ii", 4 + len(header), len(header)) + header)
        size = struct.unpack(">i", _read(s, 4))[0]
        frame = _read(s, size)
    hlen = struct.unpack(">i", frame[:4])[0] & 0xFFFFFF   # the high byte is the serialization type
    return json.loads(frame[4:4 + hlen]), frame[4 + hlen:].decode("utf-8", "replace")


def _read(s: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise EOFError("connection closed")
        data += chunk
    return data


@pytest.mark.parametrize("name, desc", [("rocketmq-5.5.0", "V5_5_0")])
def test_the_broker_address_the_name_server_hands_out_is_reachable_from_the_host(engine, name, desc):
    from fixtures.provision import start
    from fixtures.verdict.records import new_run_id

    rt = start(name, run_id=new_run_id())
    head, body = _call(rt.host, rt.port("rocketmq-namesrv"), GET_BROKER_CLUSTER_INFO)
    assert head["code"] == 0, head
    # The body is fastjson (keys need not be quoted strings): the addresses are its ip:port texts.
    addresses = sorted(set(re.findall(r'"(\d+\.\d+\.\d+\.\d+:\d+)"', body)))
    assert addresses == [f"127.0.0.1:{rt.port('rocketmq-broker')}"], body
    host, port = addresses[0].rsplit(":", 1)
    head, info = _call(host, int(port), GET_BROKER_RUNTIME_INFO)
    assert head["code"] == 0 and f'"brokerVersionDesc":"{desc}"' in info, (head, info[:500])
