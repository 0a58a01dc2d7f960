"""The embedded moto server, with :class:`JournaledBackend` in front of it.

Every request that reaches moto passes through :class:`JournaledBackend`, a WSGI
middleware that

- holds the locks of ``aws_requests.py``, so each request is applied atomically, as
  AWS would (moto alone is not thread-safe);
- appends each request that changed persisted state to the write-ahead journal
  (``journal.py``) after moto applied it, and answers only once the record is on disk:
  an acknowledged write survives a crash of the process.

It sits in front of moto rather than in the app's boto3 clients, so writes from other
processes (the operator CLI pointed at this endpoint, the aws CLI) are journaled too.

While no journal is attached (restoring a snapshot, replaying a journal) requests pass
through unrecorded; after :meth:`JournaledBackend.refuse_writes` (stopping) writes are
answered 503 without being applied, so nothing changes that the journal would not hold.
"""
from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import logging
import re
import socket
import sys
import threading
import urllib.request
from typing import Callable, Iterable, Iterator
from urllib.parse import parse_qs

import boto3
from botocore.config import Config
from moto.core.request import PRESERVED_HEADER_NAMES_ENVIRON_KEY
from moto.moto_server.threaded_moto_server import ThreadedMotoServer
from moto.moto_server.werkzeug_app import (DomainDispatcherApplication, MotoRequestHandler,
                                           create_backend_app)
from werkzeug.serving import make_server
from werkzeug.wsgi import get_input_stream

from chalicelib.local import moto_speed, moto_transactions
from chalicelib.local.aws_requests import (UNTOUCHED, Access, ReadWriteLock, ServiceLocks,
                                           action_of, classify, signing_service)
from chalicelib.local.journal import Journal, JournalClosed, Record

log = logging.getLogger("nimbus.local")
# Answers up to this size go out in one write with their headers (_KeepAliveHandler).
_ONE_WRITE = 1 << 16

# moto accepts any credentials; these only have to be present so botocore can sign.
FAKE_ACCESS_KEY = "testing"
FAKE_SECRET_KEY = "testing"

_UPLOAD_ID = re.compile(rb"<UploadId>([^<]+)</UploadId>")
# Environ entries that describe the connection, not the request; a replay has its own.
_CONNECTION_KEYS = frozenset({"CONTENT_LENGTH", "HTTP_TRANSFER_ENCODING", "REMOTE_ADDR",
                              "REMOTE_PORT", "SERVER_SOFTWARE"})
_UPLOAD_ID_KEYS = ("QUERY_STRING", "RAW_URI", "REQUEST_URI")
# One botocore session for all of them: a session loads the endpoint and service
# models once (~0.1 s per fresh session) and reuses them for every client it makes.
_session_lock = threading.Lock()
_session: boto3.session.Session | None = None

Answer = tuple[str, list[tuple[str, str]], bytes]


def run_app(app: Callable, environ: dict) -> Answer:
    """Run a WSGI app to completion: status line, headers, body."""
    started: list = []
    chunks = app(environ, lambda status, headers, exc_info=None: started.extend((status, headers)))
    try:
        body = b"".join(chunks)
    finally:
        if hasattr(chunks, "close"):
            chunks.close()
    return started[0], list(started[1]), body


def _succeeded(status: str) -> bool:
    return status[:1] == "2"


def _take_body(environ: dict) -> bytes:
    """Read the request body once and put it back as a plain, sized stream."""
    body = get_input_stream(environ).read()
    environ["wsgi.input"] = io.BytesIO(body)
    environ["CONTENT_LENGTH"] = str(len(body))
    environ.pop("wsgi.input_terminated", None)
    environ.pop("HTTP_TRANSFER_ENCODING", None)
    return body


def _record_of(service: str, environ: dict, body: bytes) -> Record:
    kept = {k: v for k, v in environ.items()
            if isinstance(v, str) and "." not in k and k not in _CONNECTION_KEYS}
    return Record(environ=kept, body=body, service=service,
                  header_names=dict(environ.get(PRESERVED_HEADER_NAMES_ENVIRON_KEY) or {}))


def _creates_upload(access: Access, environ: dict) -> bool:
    return (access.service == "s3" and environ.get("REQUEST_METHOD") == "POST"
            and "uploads" in parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True))


def bad_digest(environ: dict, body: bytes) -> Answer | None:
    """S3 checks a body against the ``x-amz-checksum-sha256`` it came with and refuses
    a mismatch (400 BadDigest); moto records the header unchecked.  Git LFS uploads
    through presigned URLs count on S3's check (chalicelib/lfs/s3_objects.py), so the
    local runtime makes it too.  (An aws-chunked body carries its checksum in a trailer,
    which moto reads itself.)"""
    claimed = environ.get("HTTP_X_AMZ_CHECKSUM_SHA256")
    if not claimed or environ.get("REQUEST_METHOD") != "PUT" \
            or "aws-chunked" in environ.get("HTTP_CONTENT_ENCODING", ""):
        return None
    if base64.b64encode(hashlib.sha256(body).digest()).decode("ascii") == claimed:
        return None
    return "400 Bad Request", [("Content-Type", "application/xml")], (
        b"<Error><Code>BadDigest</Code><Message>The SHA256 you specified did not match the "
        b"calculated checksum.</Message></Error>")


def _refusal(environ: dict) -> Answer:
    message = "the local runtime is stopping"
    if environ.get("HTTP_X_AMZ_TARGET"):
        body = ('{"__type":"ServiceUnavailable","message":"%s"}' % message).encode()
        content_type = "application/x-amz-json-1.0"
    else:
        body = (f"<Error><Code>ServiceUnavailable</Code><Message>{message}</Message>"
                "</Error>").encode()
        content_type = "application/xml"
    return "503 Service Unavailable", [("Content-Type", content_type)], body


class JournaledBackend:
    """WSGI middleware in front of moto's dispatcher: locks, journal (module docstring)."""

    def __init__(self, dispatcher: DomainDispatcherApplication):
        self.dispatcher = dispatcher
        self.locks = ServiceLocks()
        # Writes hold it shared; writes_paused() exclusively (a snapshot in progress).
        self._write_gate = ReadWriteLock()
        self._journal: Journal | None = None
        self._refusing = False

    # -- serving ------------------------------------------------------------------------

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        # Every body is read whole, even a GET's: the connection is kept for the next
        # request (``_KeepAliveHandler``).
        body = _take_body(environ)
        if environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
            body = b""
        access = self._access(environ, body)
        if not access.locks:
            return self.dispatcher(environ, start_response)
        refused = bad_digest(environ, body) if access.service == "s3" else None
        if refused is not None:
            status, headers, data = refused
        elif access.writes:
            status, headers, data = self._write(access, environ, body)
        else:
            with self.locks.holding(access):
                status, headers, data = run_app(self.dispatcher, environ)
        start_response(status, headers)
        return [data]

    def _access(self, environ: dict, body: bytes) -> Access:
        path = environ.get("PATH_INFO", "")
        if path.startswith("/moto-api"):
            return UNTOUCHED
        service = signing_service(environ.get("HTTP_AUTHORIZATION", ""),
                                  environ.get("QUERY_STRING", ""))
        if service is None:  # unsigned: route it the way moto will
            try:
                host = self.dispatcher.infer_service_region_host(environ, path)
                service = self.dispatcher.get_backend_for_host(host) if host else "s3"
            except Exception:  # noqa: BLE001 - moto fails on it too; lock and record it
                service = "s3"
        action = action_of(environ.get("HTTP_X_AMZ_TARGET"), environ.get("CONTENT_TYPE"), body)
        return classify(service, environ.get("REQUEST_METHOD", "GET"), action)

    def _write(self, access: Access, environ: dict, body: bytes) -> Answer:
        with self._write_gate.shared():
            journal = self._journal
            if self._refusing:
                return _refusal(environ)
            with self.locks.holding(access):
                status, headers, data = run_app(self.dispatcher, environ)
                if journal is None or not _succeeded(status):
                    return status, headers, data
                record = _record_of(access.service, environ, body)
                if _creates_upload(access, environ):
                    found = _UPLOAD_ID.search(data)
                    record.upload_id = found.group(1).decode() if found else None
                try:
                    position = journal.append(record)
                except (OSError, JournalClosed):
                    # moto applied it, the journal does not hold it: the client must not
                    # count on it (the next snapshot may still keep it).
                    log.exception("could not journal %s", record.describe())
                    return ("500 Internal Server Error", [("Content-Type", "text/plain")],
                            b"write-ahead journal failed")
        # Outside the locks: writers waiting here share one fdatasync (journal.py).
        journal.sync(position)
        return status, headers, data

    # -- the journal's lifecycle (state.py) ---------------------------------------------

    @contextlib.contextmanager
    def writes_paused(self) -> Iterator[None]:
        """No write is in progress or starts until the block ends; reads go on."""
        with self._write_gate.exclusive():
            yield

    def attach(self, journal: Journal | None) -> Journal | None:
        """Record writes in ``journal`` from now on (None: record nothing); returns the
        previous one.  Call inside :meth:`writes_paused`."""
        previous, self._journal = self._journal, journal
        return previous

    def refuse_writes(self) -> Journal | None:
        """Answer every later write 503 without applying it; returns the journal."""
        with self.writes_paused():
            self._refusing = True
            return self.attach(None)

    def replay(self, records: Iterable[Record]) -> int:
        """Apply journaled requests again, in order; the number replayed."""
        upload_ids: dict[str, str] = {}
        count = 0
        for record in records:
            environ = self._replay_environ(record, upload_ids)
            try:
                status, _, data = run_app(self.dispatcher, environ)
            except Exception:  # noqa: BLE001 - one bad record must not keep the rest out
                log.exception("journal replay: %s failed", record.describe())
                status, data = "500 Internal Server Error", b""
            if not _succeeded(status):
                # It succeeded when it was journaled: the state now differs from what
                # its client saw.  Say so loudly, and go on with the rest.
                log.error("journal replay: %s answered %s: %s", record.describe(), status,
                          data[:200].decode("utf-8", "replace"))
            elif record.upload_id and (found := _UPLOAD_ID.search(data)):
                upload_ids[record.upload_id] = found.group(1).decode()
            count += 1
        return count

    @staticmethod
    def _replay_environ(record: Record, upload_ids: dict[str, str]) -> dict:
        environ = dict(record.environ)
        for key in _UPLOAD_ID_KEYS:
            for old, new in upload_ids.items():
                if key in environ and old in environ[key]:
                    environ[key] = environ[key].replace(old, new)
        environ.update({
            "wsgi.version": (1, 0), "wsgi.url_scheme": "http", "wsgi.errors": sys.stderr,
            "wsgi.input": io.BytesIO(record.body), "wsgi.multithread": True,
            "wsgi.multiprocess": False, "wsgi.run_once": False,
            "CONTENT_LENGTH": str(len(record.body)),
            PRESERVED_HEADER_NAMES_ENVIRON_KEY: dict(record.header_names)})
        return environ


class _KeepAliveHandler(MotoRequestHandler):
    """moto's handler with connections kept open between requests, as AWS's endpoints
    keep them.  werkzeug's own ``run_wsgi`` answers every request with ``Connection:
    close`` and then drains the socket (http.server cannot skip a body the application
    left unread), which would swallow the next request of a kept connection.  Ours
    reads every body whole (``JournaledBackend``) and answers with a length, so the
    connection is ready for the next request.  Closing cost each AWS call a connect
    and the server a new thread: about a tenth of a one-commit fetch's serving time."""

    timeout = 60   # seconds an idle connection is kept (boto3 reconnects after)

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_error(self, format: str, *args) -> None:  # noqa: A002 - base-class signature
        # An idle kept connection reaching ``timeout`` is closed, not an error.
        if not format.startswith("Request timed out"):
            super().log_error(format, *args)

    def run_wsgi(self) -> None:
        if self.headers.get("Expect", "").lower().strip() == "100-continue":
            self.wfile.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        self.environ = environ = self.make_environ()
        try:
            status, headers, body = run_app(self.server.app, environ)
        except Exception:  # noqa: BLE001 - what werkzeug answers too, and the server goes on
            log.exception("moto failed on %s %s", self.command, self.path)
            status, headers, body = "500 Internal Server Error", [], b""
        code, _, reason = status.partition(" ")
        self.send_response(int(code), reason)
        head = environ["REQUEST_METHOD"] == "HEAD"
        for name, value in headers:
            # A HEAD answer keeps moto's Content-Length: it is the object's size.
            if name.lower() in ("connection", "transfer-encoding") or (
                    name.lower() == "content-length" and not head):
                continue
            self.send_header(name, value)
        if not head:
            self.send_header("Content-Length", str(len(body)))
            if len(body) <= _ONE_WRITE:
                # One write with the headers: a second small one would wait for the
                # client's delayed ACK (Nagle), 40 ms per call on a kept connection.
                self._headers_buffer.append(b"\r\n" + body)
                self.flush_headers()
                return
        self.end_headers()
        if not head and body:
            self.wfile.write(body)   # big: not copied once more to join the headers


class MotoServer(ThreadedMotoServer):
    """moto on a free loopback port, behind a :class:`JournaledBackend` (``backend``)."""

    def __init__(self, region: str, host: str = "127.0.0.1"):
        super().__init__(ip_address=host, port=0, verbose=False)
        self.region = region
        self.backend = JournaledBackend(DomainDispatcherApplication(create_backend_app))
        self._clients: dict[str, object] = {}

    def _server_entry(self) -> None:
        # moto's own _server_entry (moto 5.2.5), serving our middleware.
        self._server = make_server(self._ip_address, self._port, self.backend, True,
                                   request_handler=_KeepAliveHandler)
        self._server_ready_event.set()
        self._server.serve_forever(poll_interval=0.1)  # stop() waits up to one interval

    def start(self) -> None:
        # werkzeug logs every request at INFO unless told otherwise.
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        moto_transactions.install()
        moto_speed.install()
        super().start()

    def stop(self) -> None:
        super().stop()
        self._server.server_close()  # free the port; open connections end with the process

    @property
    def endpoint(self) -> str:
        host, port = self.get_host_and_port()
        return f"http://{host}:{port}"

    def reset(self) -> None:
        """Empty every moto backend.  moto's state is module-global, so a runtime started
        again in the same process (tests) would otherwise see the previous one's data."""
        request = urllib.request.Request(self.endpoint + "/moto-api/reset", method="POST")
        with urllib.request.urlopen(request, timeout=30):
            pass

    def client(self, service: str):
        """A boto3 client of this moto, made once per service, and separate from the
        app's clients (and from any call hooks benchmarks put on those)."""
        global _session
        with _session_lock:
            _session = _session or boto3.session.Session()
            if service not in self._clients:
                self._clients[service] = _session.client(
                    service, region_name=self.region, endpoint_url=self.endpoint,
                    aws_access_key_id=FAKE_ACCESS_KEY, aws_secret_access_key=FAKE_SECRET_KEY,
                    config=Config(retries={"mode": "standard", "max_attempts": 3}))
            return self._clients[service]
