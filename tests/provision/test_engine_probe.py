"""The engine probe names the engine from the headers of /_ping, without asking /version (podman's
/version runs `dpkg-query --search` on its helper binaries each time: slow at high load, and one per
caller). Pure code: a fake API on a unix socket."""
import http.server
import socketserver
import threading

from fixtures.provision import engine


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def _serve(tmp_path, headers):
    asked = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            asked.append(self.path)
            body = b"OK" if self.path == "/_ping" else b'{"Version": "1.0", "Components": []}'
            self.send_response(200)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def address_string(self):
            return "unix"

        def log_message(self, *a):
            pass

    path = str(tmp_path / "api.sock")
    server = _Server(path, Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"unix://{path}", asked


def test_podman_and_docker_are_named_by_the_ping(tmp_path):
    server, host, asked = _serve(tmp_path, {"Libpod-Api-Version": "4.3.1", "Server": "Libpod/4.3.1 (linux)"})
    try:
        assert engine.probe(host, 2) == ("podman", "4.3.1") and asked == ["/_ping"]
    finally:
        server.shutdown()
    (tmp_path / "d").mkdir()
    server, host, asked = _serve(tmp_path / "d", {"Server": "Docker/24.0.7 (linux)"})
    try:
        assert engine.probe(host, 2) == ("docker", "24.0.7") and asked == ["/_ping"]
    finally:
        server.shutdown()


def test_without_those_headers_version_is_asked(tmp_path):
    server, host, asked = _serve(tmp_path, {})
    try:
        assert engine.probe(host, 2) == ("docker", "1.0") and asked == ["/_ping", "/version"]
    finally:
        server.shutdown()
