"""C git's own smart HTTP server (`git http-backend`) behind a tiny CGI bridge, serving
bare repositories under a folder: the reference server for benchmarks, and a remote
for migration tests."""
from __future__ import annotations

import os
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from chalicelib.local.server import read_chunked


class _Backend(BaseHTTPRequestHandler):
    """CGI bridge to `git http-backend` (what Apache or nginx would do)."""
    root = ""

    def log_message(self, *args):
        pass

    def _run(self):
        path, _, query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else (
            read_chunked(self.rfile) if self.headers.get("Transfer-Encoding") == "chunked" else b"")
        env = {"GIT_PROJECT_ROOT": self.root, "GIT_HTTP_EXPORT_ALL": "1",
               "PATH_INFO": path, "QUERY_STRING": query, "REQUEST_METHOD": self.command,
               "CONTENT_TYPE": self.headers.get("Content-Type", ""),
               "CONTENT_LENGTH": str(len(body)), "REMOTE_USER": "git",
               "REMOTE_ADDR": "127.0.0.1", "PATH": os.environ["PATH"]}
        if self.headers.get("Content-Encoding"):
            env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
        if self.headers.get("Git-Protocol"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        out = subprocess.run(["git", "http-backend"], input=body, env=env,
                             capture_output=True).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.decode().split("\r\n"):
            name, _, value = line.partition(": ")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = _run


class _GuardedBackend(_Backend):
    """The same, behind Basic authentication (a wrong or missing password: 401)."""
    expected = ""

    def _guarded(self):
        if self.headers.get("Authorization", "") != self.expected:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self._run()

    do_GET = do_POST = _guarded


def serve_http_backend(root: Path, credentials: tuple[str, str] | None = None
                       ) -> tuple[ThreadingHTTPServer, str]:
    """Serve the bare repositories under ``root``; with ``credentials``, only to a
    client that sends them."""
    if credentials:
        import base64

        expected = "Basic " + base64.b64encode(":".join(credentials).encode()).decode()
        handler = type("Backend", (_GuardedBackend,), {"root": str(root),
                                                       "expected": expected})
    else:
        handler = type("Backend", (_Backend,), {"root": str(root)})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
