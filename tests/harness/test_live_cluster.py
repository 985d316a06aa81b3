"""The live target's HTTP client against a scripted loopback server: what is retried, what is not."""

from __future__ import annotations

import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from patchconf.harness.controlplane import live_cluster
from patchconf.harness.controlplane.live_cluster import Cluster, ClusterUnreachable

DROP = "drop"  # close the connection without an answer


class ScriptedServer:
    """Answers the n-th request with the n-th scripted status (the last one repeats)."""

    def __init__(self, script: list) -> None:
        self.script = script
        self.seen: list[tuple[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                server.seen.append((self.command, self.path))
                step = server.script[min(len(server.seen), len(server.script)) - 1]
                if step == DROP:
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                step, message = step if isinstance(step, tuple) else (step, "")
                body = b'{"kind": "Status", "code": %d, "message": "%s"}' % (step, message.encode())
                self.send_response(step)
                if step == 429:
                    self.send_header("Retry-After", "0")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_PATCH = do_POST = _answer

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(autouse=True)
def quick_backoff(monkeypatch):
    monkeypatch.setattr(live_cluster, "FIRST_BACKOFF", 0.01)
    monkeypatch.setattr(live_cluster, "MAX_BACKOFF", 0.02)


def cluster_for(url: str, tmp_path) -> Cluster:
    config = tmp_path / "kubeconfig"
    config.write_text(f"""
apiVersion: v1
kind: Config
clusters: [{{name: c, cluster: {{server: "{url}"}}}}]
users: [{{name: u, user: {{token: t}}}}]
contexts: [{{name: x, context: {{cluster: c, user: u}}}}]
current-context: x
""")
    return Cluster(str(config))


@pytest.fixture
def scripted(tmp_path):
    servers = []

    def start(*script):
        server = ScriptedServer(list(script))
        servers.append(server)
        return server, cluster_for(server.url, tmp_path)

    yield start
    for server in servers:
        server.close()


def test_throttling_is_retried_for_reads_and_writes(scripted):
    server, cluster = scripted(429, 429, 200)
    assert cluster.request("GET", "/api/v1/namespaces").status == 200
    assert len(server.seen) == 3
    server.script, server.seen = [429, 201], []
    assert cluster.request("POST", "/api/v1/namespaces", body={"x": 1}).status == 201
    assert [method for method, _ in server.seen] == ["POST", "POST"]


def test_gateway_trouble_is_retried_only_for_reads(scripted):
    server, cluster = scripted(503, 200)
    assert cluster.request("GET", "/version").status == 200
    assert len(server.seen) == 2
    server.script, server.seen = [503, 200], []
    assert cluster.request("PATCH", "/api/v1/x", body={}).status == 503  # a write may have happened
    assert len(server.seen) == 1


def test_a_server_error_is_an_answer_never_retried(scripted):
    server, cluster = scripted(500, 200)
    assert cluster.request("GET", "/api/v1/x").status == 500
    assert len(server.seen) == 1


def test_a_create_the_service_ip_allocator_failed_is_sent_again(scripted):
    # kube-apiserver answers 500 and creates nothing when its allocator picks an address still held
    collision = (500, "Internal error occurred: failed to allocate a serviceIP: provided IP is already allocated")
    server, cluster = scripted(collision, 201)
    assert cluster.request("POST", "/api/v1/namespaces/n/services", body={}).status == 201
    assert [method for method, _ in server.seen] == ["POST", "POST"]
    server.script, server.seen = [collision, 200], []
    assert cluster.request("PATCH", "/api/v1/namespaces/n/services/s", body={}).status == 500  # creates only
    assert len(server.seen) == 1


def test_a_dropped_connection_is_retried_only_for_reads(scripted):
    server, cluster = scripted(DROP, 200)
    assert cluster.request("GET", "/api/v1/x").status == 200
    assert len(server.seen) == 2
    server.script, server.seen = [DROP, 200], []
    with pytest.raises(ClusterUnreachable, match=r"PATCH http://127\.0\.0\.1:"):
        cluster.request("PATCH", "/api/v1/x", body={})
    assert len(server.seen) == 1


class Clock:
    """The client's clock, moved only by its sleeps: how many tries a budget buys is not up to the load."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_retries_stop_when_the_budget_is_spent(scripted, monkeypatch):
    server, cluster = scripted(503)
    monkeypatch.setattr(live_cluster, "time", Clock())
    assert cluster.request("GET", "/api/v1/x", retry_budget=0.2).status == 503
    # tries at 0, 0.01, then every 0.02 (the backoff's cap) up to 0.19: the next would end past 0.2
    assert len(server.seen) == 11


def test_a_server_that_is_gone_raises_after_the_budget(tmp_path):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cluster = cluster_for(f"http://127.0.0.1:{port}", tmp_path)
    with pytest.raises(ClusterUnreachable, match=r"POST http://127\.0\.0\.1"):
        cluster.request("POST", "/api/v1/namespaces", body={}, retry_budget=0.2)
