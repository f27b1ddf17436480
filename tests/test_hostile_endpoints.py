"""Hostile --endpoint input through the real plugin, as a user types it: the password never appears
in stdout, stderr, the log file, result rows, junit or the gate's report, whatever the URL's shape,
and each failure is one clear line.

No broker: 38 malformed and hostile option texts go through `pytest.main` with the plugin (one
process, each a usage error); then well-formed URLs with hostile passwords, from the URL, the
environment and a netrc file, point at a closed port, a port that accepts and says nothing, and an
HTTP server, in one real session: error rows, one line each, a results file. (A refused login
against a real broker is in tests/provision/test_vendor_endpoint.py.)
"""
from __future__ import annotations

import json
import socket
import socketserver
import subprocess
import sys
import threading

import pytest

from .adapters.test_endpoint import ENC, HOSTILE, PIECES, RAW
from .paths import ROOT
from .sessions import run_pytest

DRIVER = r'''
import contextlib, io, json, sys
import pytest

texts = json.loads(sys.stdin.read())
for text in texts:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = pytest.main(["-p", "no:cacheprovider", "--no-results", "-q", "--endpoint", text, "--co",
                          "suites/openmessaging/test_openmessaging.py"])
    print(json.dumps({"text": text, "rc": int(rc), "out": out.getvalue(), "err": err.getvalue()}), flush=True)
'''


def leaks(text: str) -> list[str]:
    return [p for p in (*PIECES, RAW, ENC) if p in text]


def test_malformed_and_hostile_endpoints_are_usage_errors_that_never_show_the_password():
    proc = subprocess.run([sys.executable, "-c", DRIVER], input=json.dumps([t for t, _ in HOSTILE]), cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert len(results) == len(HOSTILE) >= 30, proc.stdout[-2000:] + proc.stderr[-2000:]
    for (text, needle), got in zip(HOSTILE, results, strict=True):
        shown = got["out"] + got["err"]
        assert got["rc"] == 4, (text, shown)                      # pytest's usage error
        assert needle in shown and shown.count("ERROR: ") == 1, (text, shown)
        assert leaks(shown) == [], (text, shown)
    assert leaks(proc.stderr) == []


class _RefusesAnythingButHTTP(socketserver.BaseRequestHandler):
    """An HTTP server that answers a request it cannot parse at once with 400, and hangs up."""
    def handle(self):
        self.request.settimeout(5)
        try:
            self.request.recv(64)
            self.request.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        except OSError:
            pass


@pytest.fixture
def ports():
    """A closed port, a port that accepts and never answers, and an HTTP server."""
    def free():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(32)
    held, stop = [], threading.Event()

    def hold():
        silent.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(silent.accept()[0])
            except OSError:
                pass
    web = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _RefusesAnythingButHTTP)
    threads = [threading.Thread(target=hold, daemon=True), threading.Thread(target=web.serve_forever, daemon=True)]
    for t in threads:
        t.start()
    yield {"closed": free(), "silent": silent.getsockname()[1], "http": web.server_address[1]}
    stop.set()
    web.shutdown()
    for t in threads:
        t.join(5)
    for c in held:
        c.close()
    silent.close()
    web.server_close()


def test_unusable_endpoints_with_hostile_passwords_give_one_line_each_and_error_rows(ports, tmp_path):
    netrc = tmp_path / "netrc"
    netrc.write_text(f'machine 127.0.0.1 login vendor password "{RAW}"\n', encoding="utf-8")
    netrc.chmod(0o600)
    endpoints = {
        "closed": f"amqp://vendor:{ENC}@127.0.0.1:{ports['closed']}",                 # password in the URL
        "silent": f"amqp://vendor@127.0.0.1:{ports['silent']}",                       # from the environment
        "web": f"amqp://127.0.0.1:{ports['http']}/vh%2F1",                              # user and password from netrc
        "tls": f"amqps://vendor:{ENC}@127.0.0.1:{ports['closed']}?verify=0",          # tried on first use
        "given": f"amqp://vendor:{ENC}@127.0.0.1:{ports['http']}?protocols=amqp10",    # not probed
    }
    args = ["suites/rabbitmq_address/test_address_4_0.py", "-k", "source-v1 or target-v2", "--netrc-file", str(netrc),
            "--junitxml", str(tmp_path / "junit.xml"), "--log-file", str(tmp_path / "run.log"), "--log-file-level", "DEBUG"]
    for name, url in endpoints.items():
        args += ["--endpoint", f"{name}={url}"]
    proc, rows, took = run_pytest(args, tmp_path, env={"MQCONFORM_PASSWORD_silent": RAW}, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-3000:]
    assert {r["implementation"]["name"] for r in rows} == set(endpoints), out[-3000:]
    assert all(r["outcome"] == "error" for r in rows), [(r["outcome"], r["message"]) for r in rows]
    by = {r["implementation"]["name"]: r["message"] for r in rows}
    assert "tried a TCP connection to 127.0.0.1" in by["closed"]
    assert "AMQP 0-9-1: no answer within 2s" in by["silent"] and "AMQP 1.0: no answer within 2s" in by["silent"]
    assert "AMQP 0-9-1: answered with b'HTTP/1.1 400 Bad'" in by["web"]
    assert "amqp://vendor:***@127.0.0.1" in by["web"] and "/vh%2F1" in by["web"]
    # probed once, each unusable endpoint said in one line on stderr, no traceback, no captured client log
    for name in ("closed", "silent", "web"):
        assert proc.stderr.count(f"mqconform: endpoint {name} (") == 1, proc.stderr
    assert "Traceback" not in out and "INTERNALERROR" not in out and "Captured log" not in out, out[-3000:]
    assert len(out.splitlines()) < 60, out

    gate = subprocess.run([sys.executable, "-m", "reports", "gate", "--results", str(tmp_path / "results.jsonl"),
                           "--expectations", "expectations"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert gate.returncode == 1 and "UNCOVERED error: closed" in gate.stdout, gate.stdout + gate.stderr
    written = "".join(p.read_text(errors="replace") for p in sorted(tmp_path.rglob("*")) if p.is_file() and p != netrc)
    assert (tmp_path / "run.log").exists() and (tmp_path / "junit.xml").exists()
    for text in (out, gate.stdout, gate.stderr, written):
        assert leaks(text) == [], text[:3000]
