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


def _serve(answers):
    """A server answering one remoting request per connection with the next (code, remark, body) of
    `answers`; (port, the request headers asked, in order)."""
    srv = socket.create_server(("127.0.0.1", 0))
    asked: list = []

    def run():
        for code, remark, body in answers:
            conn, _ = srv.accept()
            with conn:
                length = struct.unpack(">I", conn.recv(4))[0]
                frame = b""
                while len(frame) < length:
                    frame += conn.recv(length - len(frame))
                header_len = struct.unpack(">I", frame[:4])[0] & 0xFFFFFF
                asked.append(json.loads(frame[4:4 + header_len]))
                header = json.dumps({"code": code, "opaque": asked[-1]["opaque"], "flag": 1, "remark": remark}).encode()
                conn.sendall(struct.pack(">II", 4 + len(header) + len(body), len(header)) + header + body)
        srv.close()
    threading.Thread(target=run, daemon=True).start()
    return srv.getsockname()[1], asked


ROUTE = b'{"brokerDatas":[{"brokerAddrs":{0:"127.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}]}'


@pytest.mark.parametrize("code, body, want", [(0, ROUTE, True), (17, b"", False), (0, b'{"brokerDatas":[]}', False)])
def test_a_topic_is_routed_only_when_the_name_server_names_a_broker_for_it(code, body, want):
    port, asked = _serve([(code, None, body)])
    assert routed("127.0.0.1", port, "mqc_t") is want
    assert asked[0]["code"] == GET_ROUTEINFO_BY_TOPIC and asked[0]["extFields"] == {"topic": "mqc_t"}


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


def test_topics_are_made_by_the_broker_in_one_request_each_where_it_is_published(monkeypatch):
    """With the broker's port published, each topic is one UPDATE_AND_CREATE_TOPIC (mqadmin updateTopic's
    header: queues, read-write, +message.type), no mqadmin run; then the route wait as before."""
    from fixtures.adapters import rocketmq_admin
    port, asked = _serve([(0, None, b""), (0, None, b"")])
    routes: list = []
    monkeypatch.setattr(rocketmq_admin.Admin, "has_route", lambda self, t: routes.append(t) or True)
    ran: list = []
    admin = rocketmq_admin.Admin(None, lambda argv: ran.append(argv) or (0, "success"),
                                 broker_outside=("127.0.0.1", port))
    admin.create_topics({"t1": "NORMAL", "t2": "FIFO"}, queues=4)
    assert ran == [] and routes == ["t1", "t2"]
    assert [a["code"] for a in asked] == [rocketmq_admin.UPDATE_AND_CREATE_TOPIC] * 2
    assert asked[1]["extFields"] == {"topic": "t2", "defaultTopic": "TBW102", "readQueueNums": "4",
                                     "writeQueueNums": "4", "perm": "6", "topicFilterType": "SINGLE_TAG",
                                     "topicSysFlag": "0", "order": "false", "attributes": "+message.type=FIFO"}


def test_a_topic_the_broker_refuses_is_refused_with_its_code_and_remark(monkeypatch):
    from fixtures.adapters import rocketmq_admin
    from fixtures.adapters.base import Refused
    port, _ = _serve([(1, "The topic[t1] is conflict with system topic.", b"")])
    admin = rocketmq_admin.Admin(None, lambda argv: (0, "success"), broker_outside=("127.0.0.1", port))
    with pytest.raises(Refused) as info:
        admin.create_topic("t1", "NORMAL")
    assert "conflict with system topic" in str(info.value) and "UPDATE_AND_CREATE_TOPIC" in str(info.value)


def test_a_published_broker_port_that_does_not_answer_falls_back_to_mqadmin(monkeypatch):
    from fixtures.adapters import rocketmq_admin
    srv = socket.create_server(("127.0.0.1", 0))
    port = srv.getsockname()[1]
    srv.close()                                          # nothing listens there now
    monkeypatch.setattr(rocketmq_admin.Admin, "has_route", lambda self, t: True)
    ran: list = []
    admin = rocketmq_admin.Admin(None, lambda argv: ran.append(argv) or (0, "success"),
                                 broker_outside=("127.0.0.1", port))
    admin.create_topics({"t1": "NORMAL"})
    assert len(ran) == 1 and "updateTopicList" in ran[0][-1] and admin.broker_outside is None


def test_a_published_name_server_that_does_not_answer_is_asked_with_mqadmin_from_then_on():
    from fixtures.adapters import rocketmq_admin
    srv = socket.create_server(("127.0.0.1", 0))
    port = srv.getsockname()[1]
    srv.close()
    ran: list = []
    admin = rocketmq_admin.Admin(None, lambda argv: ran.append(argv) or (0, '{"brokerDatas":[{"brokerName":"b"}]}'),
                                 namesrv_outside=("127.0.0.1", port))
    assert admin.has_route("t1") and admin.namesrv_outside is None and "topicRoute" in ran[0]


def test_an_answer_longer_than_any_remoting_frame_is_refused_not_read():
    srv = socket.create_server(("127.0.0.1", 0))

    def run():
        conn, _ = srv.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(struct.pack(">I", 1 << 31))
    threading.Thread(target=run, daemon=True).start()
    from fixtures.adapters.rocketmq_admin import remoting_call
    with pytest.raises(ValueError, match="not a RocketMQ answer"):
        remoting_call("127.0.0.1", srv.getsockname()[1], 17, {})
    srv.close()
