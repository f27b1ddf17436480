"""The name server's route query (fixtures/adapters/rocketmq_admin.py `routed`): a topic mqadmin made is
used only once the name server routes it, asked in one remoting frame. A local server speaking the
frame format stands in for the name server: what is tested is the framing and the reading of the answer."""
from __future__ import annotations

import json
import socket
import struct
import threading

import pytest

from fixtures.adapters.rocketmq_admin import GET_ROUTEINFO_BY_TOPIC, routed


def _serve(answer_code: int, body: bytes):
    """A one-connection server answering a route request with `answer_code` and `body`; (port, asked)."""
    srv = socket.create_server(("127.0.0.1", 0))
    asked: dict = {}

    def run():
        conn, _ = srv.accept()
        with conn:
            length = struct.unpack(">I", conn.recv(4))[0]
            frame = b""
            while len(frame) < length:
                frame += conn.recv(length - len(frame))
            header_len = struct.unpack(">I", frame[:4])[0] & 0xFFFFFF
            asked.update(json.loads(frame[4:4 + header_len]))
            header = json.dumps({"code": answer_code, "opaque": asked["opaque"], "flag": 1}).encode()
            conn.sendall(struct.pack(">II", 4 + len(header) + len(body), len(header)) + header + body)
        srv.close()
    threading.Thread(target=run, daemon=True).start()
    return srv.getsockname()[1], asked


ROUTE = b'{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}]}'


@pytest.mark.parametrize("code, body, want", [(0, ROUTE, True), (17, b"", False), (0, b'{"brokerDatas":[]}', False)])
def test_a_topic_is_routed_only_when_the_name_server_names_a_broker_for_it(code, body, want):
    port, asked = _serve(code, body)
    assert routed("127.0.0.1", port, "mqc_t") is want
    assert asked["code"] == GET_ROUTEINFO_BY_TOPIC and asked["extFields"] == {"topic": "mqc_t"}


def test_a_name_server_that_hangs_up_is_an_error_not_no_route():
    srv = socket.create_server(("127.0.0.1", 0))
    threading.Thread(target=lambda: srv.accept()[0].close(), daemon=True).start()
    with pytest.raises(ConnectionError):
        routed("127.0.0.1", srv.getsockname()[1], "mqc_t", timeout=2.0)
    srv.close()


def test_topics_are_made_only_once_the_name_server_routes_them(monkeypatch):
    """create_topics returns once the last topic made is routed (polled, bounded), not when mqadmin said
    "success": a send before that is refused TOPIC_NOT_FOUND, which would read as the implementation's."""
    from fixtures.adapters import rocketmq_admin
    from fixtures.adapters.base import Refused
    monkeypatch.setattr(rocketmq_admin, "ROUTE_POLL_S", 0.01)
    asked: list = []

    def runner(argv):
        asked.append(list(argv))
        if argv[0] == "sh":                                    # updateTopicList
            return 0, "update topic list success"
        routes = sum(1 for a in asked if "topicRoute" in a)
        routed = routes >= 5 and "t9" not in argv             # t9: never routed
        return (0, '{"brokerDatas":[{"brokerName":"broker-a"}]}') if routed else (1, "No topic route info")
    admin = rocketmq_admin.Admin(None, runner)
    admin.create_topics({"t1": "NORMAL", "t2": "FIFO"})
    assert [a[a.index("-t") + 1] for a in asked if "topicRoute" in a] == ["t1", "t2", "t1", "t2", "t1", "t2"]
    asked.clear()
    with pytest.raises(Refused, match="no route for 't9'"):
        admin.await_route("t9", bound=0.05)
