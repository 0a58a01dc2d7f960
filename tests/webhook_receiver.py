"""A webhook receiver for tests: an HTTP server on loopback, in a thread, that records
every request and answers what the test tells it (a status, or a pause)."""
from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]       # lower-case names
    body: bytes
    status: int                   # what the receiver answered
    at: float

    @property
    def payload(self) -> dict:
        text = self.body.decode()
        if self.headers.get("content-type") == "application/x-www-form-urlencoded":
            text = parse_qs(text)["payload"][0]
        return json.loads(text)

    @property
    def event(self) -> str:
        return self.headers.get("x-forgejo-event", "")

    def signature_ok(self, secret: str) -> bool:
        text = self.body
        if self.headers.get("content-type") == "application/x-www-form-urlencoded":
            text = parse_qs(self.body.decode())["payload"][0].encode()
        want = hmac.new(secret.encode(), text, hashlib.sha256).hexdigest()
        return (self.headers.get("x-forgejo-signature") == want
                and self.headers.get("x-gitea-signature") == want
                and self.headers.get("x-hub-signature-256") == "sha256=" + want)


class Receiver:
    def __init__(self):
        self.received: list[Received] = []
        self.status = 200
        self.headers: dict[str, str] = {}
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                with owner.lock:
                    status, extra = owner.status, dict(owner.headers)
                    owner.received.append(Received(
                        self.command, self.path, {k.lower(): v for k, v in self.headers.items()},
                        body, status, time.time()))
                self.send_response(status)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            do_POST = do_PUT = do_GET = _any

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> "Receiver":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def accepted(self, path: str | None = None) -> list[Received]:
        with self.lock:
            return [r for r in self.received if 200 <= r.status < 300
                    and (path is None or r.path.startswith(path))]

    def wait_for(self, predicate, timeout: float = 30.0, what: str = "deliveries"):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                found = list(self.received)
            result = predicate(found)
            if result:
                return result
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; got "
                             f"{[(r.path, r.event, r.status) for r in self.received]}")
