"""The cut proxy (fixtures/faults/proxy.py) against a local echo server: it forwards, `cut()` closes
every live connection and the next one gets through, `hold()` keeps what a client sends from the
server, and closing it (or the fault undo list) leaves nothing listening."""
from __future__ import annotations

import socket
import threading

import pytest

from fixtures.faults import undo
from fixtures.faults.proxy import Proxy


@pytest.fixture
def echo():
    srv = socket.create_server(("127.0.0.1", 0))
    got: list[bytes] = []
    stop = threading.Event()

    def serve(conn):
        with conn:
            while True:
                try:
                    data = conn.recv(4096)
                except OSError:
                    return
                if not data:
                    return
                got.append(data)
                conn.sendall(data)

    def accept():
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            threading.Thread(target=serve, args=(conn,), daemon=True).start()
    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield srv.getsockname()[1], got
    stop.set()
    t.join(2)
    srv.close()


def _talk(port: int, data: bytes) -> tuple[socket.socket, bytes]:
    c = socket.create_connection(("127.0.0.1", port), timeout=5)
    c.sendall(data)
    return c, c.recv(4096)


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except OSError:
        return True
    return False


def test_forwards_and_a_cut_closes_every_live_connection_but_not_the_listener(echo):
    port, _ = echo
    p = Proxy("127.0.0.1", port)
    try:
        a, got_a = _talk(p.port, b"one")
        b, got_b = _talk(p.port, b"two")
        assert (got_a, got_b) == (b"one", b"two")
        assert p.cut() == 2 and p.live() == 0
        for c in (a, b):
            try:
                assert c.recv(4096) == b""      # the client sees its connection closed
            except ConnectionResetError:
                pass
            c.close()
        c, again = _talk(p.port, b"three")      # a reconnecting client gets through
        assert again == b"three"
        c.close()
    finally:
        p.close()


def test_held_bytes_never_reach_the_server(echo):
    port, got = echo
    p = Proxy("127.0.0.1", port)
    try:
        c, first = _talk(p.port, b"seen")
        p.hold(True)
        c.sendall(b"dropped")
        c.settimeout(0.5)
        with pytest.raises(TimeoutError):
            c.recv(4096)
        p.hold(False)
        c.sendall(b"after")
        c.settimeout(5)
        assert c.recv(4096) == b"after"
        assert b"dropped" not in b"".join(got)
        c.close()
    finally:
        p.close()


def test_closed_or_undone_it_leaves_nothing_listening(echo):
    port, _ = echo
    p = Proxy("127.0.0.1", port)
    listening = p.port
    p.close()
    assert _refused(listening)
    q = Proxy("127.0.0.1", port)
    assert undo.pending() >= 1
    undo.undo_all()                       # what a signal runs (reaper.before_stop)
    assert _refused(q.port) and undo.pending() == 0
