"""Integration: a remoting client on the host (RocketMQ's own clients, e.g. its OpenMessaging provider)
reaches the broker through the name server: the broker address the name server hands out
(GET_BROKER_CLUSTER_INFO) is reachable from the host and is this target's broker
(GET_BROKER_RUNTIME_INFO names its version). The catalog's host_port_env publishes the broker's
listen port on the same host port (fixtures/provision/containers.py)."""
from __future__ import annotations

import re

import pytest

from fixtures.adapters.rocketmq_admin import remoting_call

pytestmark = [pytest.mark.containers, pytest.mark.usefixtures("stop_targets")]

GET_BROKER_RUNTIME_INFO, GET_BROKER_CLUSTER_INFO = 28, 106


def _call(host: str, port: int, code: int) -> tuple[dict, str]:
    """One remoting request (fixtures/adapters/rocketmq_admin.py); (response header, body text)."""
    answer, body = remoting_call(host, port, code, timeout=15)
    return answer, body.decode("utf-8", "replace")


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
