"""The local runtime's own AWS calls, answered in-process by its embedded moto.

The handler and moto share the process.  Over loopback HTTP each call paid a socket
round trip, an HTTP client and an HTTP server parsing headers, and two thread switches
(a GetItem: 1.9 ms, of it 0.9 ms for the trip, on an idle runtime; under load every
switch also waits for the interpreter lock).  Here a botocore ``before-send`` handler
(``aws.add_send_handler``) gives each request meant for the embedded moto to the WSGI
stack its HTTP server serves (``JournaledBackend``: the locks, the journal, moto), with
the environ that werkzeug's server and moto's request handler would have built, and
returns moto's answer to botocore as the HTTP client would have.  The journal records
the same environ and body, so what is journaled and replayed is unchanged.

Everything else still comes over HTTP: presigned URLs (Git LFS clients, browsers), the
operator CLI and other processes, the runtime's own state clients.
"""
from __future__ import annotations

import io
import sys
import threading
from typing import Any
from urllib.parse import unquote, urlsplit

from botocore.awsrequest import AWSResponse
from moto.core.botocore_stubber import MockRawResponse
from moto.core.request import (PRESERVED_HEADER_NAMES_ENVIRON_KEY, environ_key_for_header,
                               should_preserve_original_header_name)

from chalicelib.local.moto_backend import run_app

_lock = threading.Lock()
_target: dict[str, Any] = {"endpoint": None, "app": None}
_installed = {"done": False}
# Calls answered here per thread: the local server reports a request's own
# (``X-Nimbus-Aws-Calls`` when asked for), so a benchmark counts the AWS calls of a page
# on the runtime users run, as ``bench/aws_calls.py`` does in-process.
_counted = threading.local()


def count_from_zero() -> None:
    _counted.calls = 0


def calls_counted() -> int:
    return int(getattr(_counted, "calls", 0))


def attach(endpoint: str, app) -> None:
    """Answer the process's calls to ``endpoint`` with the WSGI ``app`` from now on."""
    from chalicelib import aws

    with _lock:
        _target.update(endpoint=endpoint.rstrip("/") + "/", app=app)
        if not _installed["done"]:
            aws.add_send_handler(answer)
            _installed["done"] = True


def detach() -> None:
    """Calls go over HTTP again (the runtime stopped: its moto is gone)."""
    with _lock:
        _target.update(endpoint=None, app=None)


def answer(request, **kwargs) -> AWSResponse | None:
    """botocore's ``before-send``: moto's answer to ``request``, or None for a request
    meant elsewhere (it is then sent as usual)."""
    endpoint, app = _target["endpoint"], _target["app"]
    if endpoint is None or not (request.url + "/").startswith(endpoint):
        return None
    _counted.calls = calls_counted() + 1
    environ = environ_for(request)
    status, headers, body = run_app(app, environ)
    head = environ["REQUEST_METHOD"] == "HEAD"
    sent = {}
    for name, value in headers:
        # As the HTTP server answers (moto_backend._KeepAliveHandler): its own length,
        # except for HEAD, whose length is the object's.
        if name.lower() in ("connection", "transfer-encoding") or (
                name.lower() == "content-length" and not head):
            continue
        sent[name] = value
    if not head:
        sent["Content-Length"] = str(len(body))
    return AWSResponse(request.url, int(status.split(" ", 1)[0]), sent, MockRawResponse(body))


def environ_for(request) -> dict:
    """The WSGI environ werkzeug's server (``make_environ``) and moto's request handler
    build for ``request`` sent over HTTP, with its body read whole (as
    ``JournaledBackend`` reads it)."""
    parts = urlsplit(request.url)
    target = parts.path + (f"?{parts.query}" if parts.query else "")
    body = _body_of(request.body)
    environ: dict[str, Any] = {
        "wsgi.version": (1, 0), "wsgi.url_scheme": parts.scheme or "http",
        "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr,
        "wsgi.multithread": True, "wsgi.multiprocess": False, "wsgi.run_once": False,
        "REQUEST_METHOD": request.method.upper(), "SCRIPT_NAME": "",
        "PATH_INFO": _latin1(unquote(parts.path)), "QUERY_STRING": _latin1(parts.query),
        "REQUEST_URI": _latin1(target), "RAW_URI": _latin1(target),
        "REMOTE_ADDR": "127.0.0.1", "REMOTE_PORT": 0,
        "SERVER_NAME": parts.hostname or "127.0.0.1", "SERVER_PORT": str(parts.port or 80),
        "SERVER_PROTOCOL": "HTTP/1.1", "HTTP_HOST": parts.netloc,
        "CONTENT_LENGTH": str(len(body)),
    }
    preserved: dict[str, str] = {}
    for name, value in request.headers.items():
        name = name.decode("latin1") if isinstance(name, bytes) else name
        value = (value.decode("latin1") if isinstance(value, bytes) else str(value)).replace(
            "\r\n", "")
        if "_" in name:
            # werkzeug drops these; moto keeps S3 metadata names with their spelling.
            if should_preserve_original_header_name(name):
                key = environ_key_for_header(name)
                preserved.setdefault(key, name)
                environ[key] = value
            continue
        key = name.upper().replace("-", "_")
        if key in ("CONTENT_LENGTH", "TRANSFER_ENCODING"):
            continue            # the body is whole and sized (above)
        if key != "CONTENT_TYPE":
            key = f"HTTP_{key}"
        environ[key] = f"{environ[key]},{value}" if key in environ else value
    environ[PRESERVED_HEADER_NAMES_ENVIRON_KEY] = preserved
    return environ


def _body_of(body) -> bytes:
    if body is None:
        return b""
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    if isinstance(body, str):
        return body.encode("utf-8")
    chunks = []                    # a file or a botocore chunked-encoding wrapper
    while True:
        chunk = body.read(1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk if isinstance(chunk, bytes) else chunk.encode("utf-8"))


def _latin1(text: str) -> str:
    # WSGI's "bytes as latin-1" strings (werkzeug's _wsgi_encoding_dance).
    return text.encode("utf-8").decode("latin1")
