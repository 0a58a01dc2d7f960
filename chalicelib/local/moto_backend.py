"""The embedded moto server, and a record of which services were written to.

moto keeps its state in memory only; ``persistence.py`` copies it to disk.  So that
the runtime snapshots only after something changed, every request that reaches moto
passes through :class:`ChangeTracker`, which notes the service of each request that
may have changed state.  The tracker sits in front of moto rather than in the app's
boto3 clients, so writes from other processes (the CLI pointed at this endpoint, the
aws CLI) are noticed too.
"""
from __future__ import annotations

import logging
import re
import threading
import urllib.request
from urllib.parse import parse_qs

import boto3
from botocore.config import Config
from moto.moto_server.threaded_moto_server import ThreadedMotoServer
from moto.moto_server.werkzeug_app import (DomainDispatcherApplication, MotoRequestHandler,
                                           create_backend_app)
from werkzeug.serving import make_server

# moto accepts any credentials; these only have to be present so botocore can sign.
FAKE_ACCESS_KEY = "testing"
FAKE_SECRET_KEY = "testing"
PERSISTED_SERVICES = frozenset({"dynamodb", "s3", "sqs", "ssm"})

# JSON-protocol actions (DynamoDB, SQS, SSM name theirs in X-Amz-Target) that only read.
_READ_ACTION_PREFIXES = ("Get", "Describe", "List", "Query", "Scan", "BatchGet",
                         "TransactGet", "Receive")
_CREDENTIAL = re.compile(r"Credential=([^,\s]+)")
# One botocore session for all of them: a session loads the endpoint and service
# models once (~0.1 s per fresh session) and reuses them for every client it makes.
_session_lock = threading.Lock()
_session: boto3.session.Session | None = None


def _signing_service(environ: dict) -> str | None:
    """The service named in the SigV4 credential scope (header or presigned query)."""
    match = _CREDENTIAL.search(environ.get("HTTP_AUTHORIZATION", ""))
    if match:
        credential = match.group(1)
    else:
        credential = parse_qs(environ.get("QUERY_STRING", "")).get("X-Amz-Credential", [""])[0]
    scope = credential.split("/")
    return scope[3].lower() if len(scope) == 5 else None


def _may_write(environ: dict) -> bool:
    if environ.get("REQUEST_METHOD") in ("GET", "HEAD", "OPTIONS"):
        return False
    action = environ.get("HTTP_X_AMZ_TARGET", "").rpartition(".")[2]
    return not (action and action.startswith(_READ_ACTION_PREFIXES))


class ChangeTracker:
    """Services written to since the last :meth:`take`."""

    def __init__(self):
        self._lock = threading.Lock()
        self._changed: set[str] = set()

    def note(self, environ: dict) -> None:
        if not _may_write(environ):
            return
        service = _signing_service(environ)
        # An unsigned or unrecognised write could have touched anything.
        changed = {service} if service in PERSISTED_SERVICES else set(PERSISTED_SERVICES)
        with self._lock:
            self._changed |= changed

    def take(self) -> set[str]:
        with self._lock:
            changed, self._changed = self._changed, set()
        return changed

    def put_back(self, services: set[str]) -> None:
        """Mark ``services`` changed again (their snapshot failed)."""
        with self._lock:
            self._changed |= services


def _tracking(app, tracker: ChangeTracker):
    def tracked_app(environ, start_response):
        try:
            return app(environ, start_response)
        finally:
            # Noted after moto has applied the request, so a snapshot that takes this
            # mark is guaranteed to see the write.
            tracker.note(environ)
    return tracked_app


class MotoServer(ThreadedMotoServer):
    """moto on a free loopback port, with a :class:`ChangeTracker` in front."""

    def __init__(self, region: str, host: str = "127.0.0.1"):
        super().__init__(ip_address=host, port=0, verbose=False)
        self.region = region
        self.changes = ChangeTracker()
        self._clients: dict[str, object] = {}

    def _server_entry(self) -> None:
        # moto's own _server_entry (moto 5.2.5), with the tracker wrapped around the app.
        app = _tracking(DomainDispatcherApplication(create_backend_app), self.changes)
        self._server = make_server(self._ip_address, self._port, app, True,
                                   request_handler=MotoRequestHandler)
        self._server_ready_event.set()
        self._server.serve_forever(poll_interval=0.1)  # stop() waits up to one interval

    def start(self) -> None:
        # werkzeug logs every request at INFO unless told otherwise.
        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        super().start()

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
