"""An endpoint that accepts connections and never answers: bounded, clear errors, no hang.

No container: the "broker" is a socket that accepts and stays silent. The inner pytest
session runs real suites against it through --endpoint.
"""
from __future__ import annotations

import socket
import threading

import pytest

from .sessions import run_pytest


@pytest.fixture
def silent_port():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    held, stop = [], threading.Event()

    def accept():
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(srv.accept()[0])   # keep it open, say nothing
            except OSError:
                pass
    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield srv.getsockname()[1]
    stop.set()
    t.join(2)
    for c in held:
        c.close()
    srv.close()


def run(args, tmp_path):
    return run_pytest(args, tmp_path, timeout=180)


def test_silent_endpoint_gives_error_rows_quickly(silent_port, tmp_path):
    proc, rows, took = run(["suites/openmessaging/test_openmessaging.py", "-k", "amqp091 and message-format",
                            "--endpoint", f"silent=amqp://u:topsecret@127.0.0.1:{silent_port}?protocols=amqp091"], tmp_path)
    assert rows, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert all(r["outcome"] == "error" for r in rows), [r["outcome"] for r in rows]
    assert "silent is unavailable" in rows[0]["message"] and "AMQP 0-9-1" in rows[0]["message"], rows[0]["message"]
    assert took < 90, f"{took:.0f}s: the first vector waits one bound, the rest fail at once"
    text = (tmp_path / "results.jsonl").read_text() + proc.stdout + proc.stderr
    assert "topsecret" not in text


def test_silent_endpoint_without_protocols_is_probed_once_and_gives_error_rows(silent_port, tmp_path):
    """Without ?protocols= the endpoint is probed (both protocol headers, 2 s each) once per run: one
    line naming it and what was tried, error rows for its vectors, a results file, no traceback."""
    proc, rows, took = run(["suites/openmessaging/test_openmessaging.py", "-k", "message-format", "-n", "2",
                            "--endpoint", f"silent=amqp://u:topsecret@127.0.0.1:{silent_port}"], tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-3000:]
    assert rows and all(r["outcome"] == "error" for r in rows), out[-3000:]
    assert all("tried the AMQP 0-9-1 and AMQP 1.0 protocol headers" in r["message"] for r in rows)
    # a broker row names the endpoint; a reference provider's row names it as its broker's (broker_*)
    assert all((r["implementation"]["provenance"].get("endpoint") or r["implementation"]["provenance"]["broker_endpoint"])
               .startswith("amqp://u:***@") for r in rows)
    assert proc.stderr.count("endpoint silent (amqp://u:***@127.0.0.1:") == 1, proc.stderr   # probed once, said once
    assert "Traceback" not in out and "INTERNALERROR" not in out
    assert len(out.splitlines()) < 40, out
    assert "topsecret" not in out + (tmp_path / "results.jsonl").read_text()
    assert took < 60
