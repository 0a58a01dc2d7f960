"""The local stand-in for API Gateway: a threaded HTTP/1.1 server that turns every
request into a proxy event, calls the Lambda handler and writes its result back.

The server only frames bytes: it de-chunks request bodies and passes every header
through unchanged (``Content-Encoding: gzip`` included: the app's gateway inflates
bodies itself, as it must behind the real API Gateway).

It knows its connections, so that stopping takes a bounded time
(:meth:`LocalHTTPServer.close_connections`): a thread per connection would otherwise
wait on an idle keep-alive client for up to ``ProxyRequestHandler.timeout`` and a
long transfer could hold the stop for as long as it runs.
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import socket
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import IO, Any, Callable

from chalicelib.local import moto_direct
from chalicelib.local.events import build_event, read_result

log = logging.getLogger("nimbus.local")

LambdaHandler = Callable[[dict, Any], dict]

# API Gateway gives up on an integration after 29 s; handlers that budget their work by
# the remaining time get the same budget here (it is not enforced).
API_GATEWAY_TIMEOUT_MS = 29_000
MAX_LINE = 64 * 1024
_CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,16}")
# Framing headers belong to one connection; this server sets its own.
_HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length",
                         "te", "trailer", "upgrade"})


# With NIMBUS_LOCAL_AWS_CALLS=1 every answer says how many AWS calls it made (to the
# embedded moto): what bench/search_sizes.py counts per page on the runtime users run.
AWS_CALLS_HEADER = "X-Nimbus-Aws-Calls"

# The streaming integration's timeout (API Gateway allows up to 15 minutes).
STREAM_TIMEOUT_MS = 900_000
LARGE_PUSH_HINT = ("a push this large does not fit in one request: push through S3 with "
                   "`python -m chalicelib.cli push-bundle` (docs/git-at-scale.md)")


def aws_limits():
    """The [server] payload limits when the local runtime enforces them, else None."""
    from chalicelib.settings import get_settings

    server = get_settings().server
    return server if server.ENFORCE_AWS_LIMITS else None


def _is_fetch(method: str, target: str) -> bool:
    return method == "POST" and target.split("?", 1)[0].endswith("/git-upload-pack")


def request_too_large(target: str, size: int, limits) -> str:
    message = (f"Request Entity Too Large: the request ({size} bytes as a Lambda event) "
               f"exceeds the {limits.REQUEST_LIMIT}-byte limit of a Lambda invocation")
    if target.split("?", 1)[0].endswith("/git-receive-pack"):
        message += "; " + LARGE_PUSH_HINT
    return message


class BadRequestBody(ValueError):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


class BodyTooLarge(Exception):
    """The body was read to its end (the connection stays usable) but not kept."""

    def __init__(self, size: int):
        super().__init__(f"request body of {size} bytes")
        self.size = size


def read_chunked(stream: IO[bytes], max_size: int | None = None) -> bytes:
    """The body of a ``Transfer-Encoding: chunked`` request (RFC 9112 §7.1); chunk
    extensions and trailer fields are read and dropped.  Past ``max_size`` bytes the
    rest is read and dropped, then BodyTooLarge is raised."""
    body = bytearray()
    total = 0
    while True:
        line = stream.readline(MAX_LINE + 1)
        if not line.endswith(b"\n"):
            raise BadRequestBody("truncated or overlong chunk-size line")
        size_field = line.split(b";", 1)[0].strip()
        if not _CHUNK_SIZE.fullmatch(size_field):
            raise BadRequestBody(f"invalid chunk size {size_field[:20]!r}")
        size = int(size_field, 16)
        if size == 0:
            break
        chunk = stream.read(size)
        if len(chunk) != size:
            raise BadRequestBody("chunked body ended inside a chunk")
        total += size
        if max_size is None or total <= max_size:
            body += chunk
        elif body:
            body = bytearray()  # over the limit: keep nothing, only drain
        if stream.readline(MAX_LINE + 1) not in (b"\r\n", b"\n"):
            raise BadRequestBody("chunk not followed by CRLF")
    while True:  # trailer section, ended by an empty line
        line = stream.readline(MAX_LINE + 1)
        if not line.endswith(b"\n"):
            raise BadRequestBody("chunked body ended inside its trailer")
        if line in (b"\r\n", b"\n"):
            if max_size is not None and total > max_size:
                raise BodyTooLarge(total)
            return bytes(body)


class LambdaContext:
    """The parts of the Lambda context object that handlers read."""
    function_name = "nimbus-local"
    function_version = "$LATEST"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:nimbus-local"
    memory_limit_in_mb = "1024"
    log_group_name = "/aws/lambda/nimbus-local"
    log_stream_name = "local"

    def __init__(self, timeout_ms: int = API_GATEWAY_TIMEOUT_MS):
        self.aws_request_id = str(uuid.uuid4())
        self._deadline = time.monotonic() + timeout_ms / 1000

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


class LocalHTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # The listen backlog: a burst of connections (64 parallel clients, and more) waits
    # here until accepted; socketserver's default of 5 drops the rest of a burst.
    request_queue_size = 256

    def __init__(self, address: tuple[str, int], access_log: bool = True):
        """Binds at once; set ``lambda_handler`` before ``serve_forever()``."""
        super().__init__(address, ProxyRequestHandler)
        self.lambda_handler: LambdaHandler | None = None
        # The streaming function (chalicelib/streaming/handler.py): POSTs go to it when
        # AWS limits are enforced, as API Gateway's POST method does in AWS; fetches
        # (git-upload-pack) always.
        self.stream_handler: Callable[[dict, Any], Any] | None = None
        self.access_log = access_log
        self.count_aws_calls = os.environ.get("NIMBUS_LOCAL_AWS_CALLS") == "1"
        self.stopping = False
        self._connections_changed = threading.Condition()
        # Every open connection, and whether a request on it is being answered.
        self._connections: dict[socket.socket, bool] = {}
        self._last_answered = 0.0

    def process_request(self, request, client_address) -> None:
        with self._connections_changed:
            self._connections[request] = False
        # Headers and body (or chunks) go out as separate writes: with Nagle's algorithm
        # the second waits for the client's delayed ACK, about 40 ms per answer.
        with contextlib.suppress(OSError):
            request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().process_request(request, client_address)

    def shutdown_request(self, request) -> None:
        with self._connections_changed:
            self._connections.pop(request, None)
            self._connections_changed.notify_all()
        super().shutdown_request(request)

    def begin_request(self, connection: socket.socket) -> bool:
        """Mark a request on ``connection`` as running; False when stopping."""
        with self._connections_changed:
            if self.stopping:
                return False
            self._connections[connection] = True
            return True

    def end_request(self, connection: socket.socket) -> None:
        with self._connections_changed:
            if connection in self._connections:
                self._connections[connection] = False
            self._last_answered = time.monotonic()
            self._connections_changed.notify_all()

    def _running(self) -> int:
        return sum(self._connections.values())

    def wait_until_idle(self, idle_for: float, timeout: float) -> bool:
        """Wait until no request has been answered for ``idle_for`` seconds (the gaps
        between the requests of one git command are shorter), at most ``timeout``
        seconds; False if requests kept coming."""
        deadline = time.monotonic() + timeout
        with self._connections_changed:
            while True:
                now = time.monotonic()
                quiet_since = None if self._running() else self._last_answered
                if quiet_since is not None and now - quiet_since >= idle_for:
                    return True
                if now >= deadline:
                    return False
                wait = deadline - now if quiet_since is None else \
                    min(deadline - now, idle_for - (now - quiet_since))
                self._connections_changed.wait(wait)

    def close_connections(self, timeout: float) -> bool:
        """Take no more requests: close idle connections now, wait up to ``timeout`` for
        running requests to be answered, then cut what is left.  False if any request
        had to be cut."""
        with self._connections_changed:
            self.stopping = True
            idle = [conn for conn, busy in self._connections.items() if not busy]
        for conn in idle:
            _cut(conn)
        with self._connections_changed:
            finished = self._connections_changed.wait_for(lambda: not self._running(), timeout)
            left = list(self._connections)
        for conn in left:
            _cut(conn)
        return finished

    def handle_error(self, request, client_address) -> None:
        # A client hanging up or idling out is routine, not worth a traceback.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def _cut(conn: socket.socket) -> None:
    """End a connection whatever its thread is doing: a blocked read sees EOF, a write
    fails; the thread then closes it."""
    try:
        conn.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed by its thread


class ProxyRequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive; every response carries its length
    server_version = "nimbus-local"
    timeout = 120  # seconds a connection may stay silent (idle keep-alive, stalled upload)
    server: LocalHTTPServer

    def _proxy(self) -> None:
        started = time.monotonic()
        if self.server.begin_request(self.connection):
            try:
                status = self._exchange()
            finally:
                if self.server.stopping:
                    self.close_connection = True
                self.server.end_request(self.connection)
        else:
            status = self._send_message(503, "server is shutting down")
        if self.server.access_log:
            # The query string stays out of the log: it may carry an access_token.
            path = self.path.split("?", 1)[0]
            elapsed = (time.monotonic() - started) * 1000
            sys.stderr.write(f"{self.command} {path} {status} {elapsed:.0f}ms\n")

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _proxy

    def _exchange(self) -> int:
        limits = aws_limits()
        # A body whose base64 alone is over the limit is drained, not kept.
        max_size = limits.REQUEST_LIMIT * 3 // 4 + 3 if limits is not None else None
        try:
            body = self._read_body(max_size)
        except BadRequestBody as exc:
            # The connection's framing is lost: answer and close.
            return self._send_message(exc.status, str(exc))
        except BodyTooLarge as exc:
            size = (exc.size + 2) // 3 * 4
            return self._send_message(413, request_too_large(self.path, size, limits),
                                      close=False)
        event = build_event(self.command, self.path, self.headers.items(), body,
                            self.client_address[0])
        if limits is not None:
            # The event as Lambda counts it (JSON), without copying the base64 body.
            size = len(json.dumps({**event, "body": None})) + len(event["body"] or "")
            if size > limits.REQUEST_LIMIT:
                return self._send_message(413, request_too_large(self.path, size, limits),
                                          close=False)
            if self.command == "POST" and self.server.stream_handler is not None:
                return self._stream(event)
        elif self.server.stream_handler is not None and _is_fetch(self.command, self.path):
            # Fetches go to the streaming function in AWS: served the same way here,
            # without its limits.
            return self._stream(event, enforce_limits=False)
        moto_direct.count_from_zero()
        try:
            result = self.server.lambda_handler(event, LambdaContext())
        except Exception:  # noqa: BLE001 - a crashed Lambda, which API Gateway answers with 502
            log.exception("handler failed on %s %s", self.command, self.path.split("?", 1)[0])
            return self._send_message(502, "Internal server error", close=False)
        if limits is not None:
            from chalicelib.streaming.handler import buffered_overflow, proxy_result_size

            size = proxy_result_size(result)
            if size > limits.BUFFERED_RESPONSE_LIMIT:
                result = buffered_overflow(size, limits.BUFFERED_RESPONSE_LIMIT)
        status, headers, data = read_result(result)
        if self.server.count_aws_calls:
            headers.append((AWS_CALLS_HEADER, str(moto_direct.calls_counted())))
        self._send(status, headers, data)
        return status

    def _stream(self, event: dict, *, enforce_limits: bool = True) -> int:
        """Serve the streaming function's answer as API Gateway's STREAM mode does: the
        status and headers first, then the body in chunks as produced; past its limit the
        connection is cut without the final chunk, so the client sees a broken transfer."""
        try:
            result = self.server.stream_handler(event, LambdaContext(STREAM_TIMEOUT_MS),
                                                enforce_limits=enforce_limits)
        except Exception:  # noqa: BLE001 - an invocation error before the first byte: 502
            log.exception("stream handler failed on %s", self.path.split("?", 1)[0])
            return self._send_message(502, "Internal server error", close=False)
        self.send_response(result.status)
        headers = list(result.headers.items()) + [
            (name, value) for name, values in result.multi_headers.items() for value in values]
        for name, value in headers:
            if name.lower() not in _HOP_BY_HOP:
                self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        sent = 0
        try:
            for chunk in result.chunks:
                if not chunk:
                    continue  # "0\r\n\r\n" would end the body here
                if sent + len(chunk) > result.limit:
                    log.warning("streamed response over %d bytes on %s: cut", result.limit,
                                self.path.split("?", 1)[0])
                    self.close_connection = True
                    return result.status
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sent += len(chunk)
        except Exception:  # noqa: BLE001 - failed mid-stream: the status is gone already
            log.exception("stream failed after %d bytes on %s", sent, self.path.split("?", 1)[0])
            self.close_connection = True
            return result.status
        self.wfile.write(b"0\r\n\r\n")
        return result.status

    def _read_body(self, max_size: int | None = None) -> bytes:
        coding = self.headers.get("Transfer-Encoding")
        if coding:  # wins over Content-Length (RFC 9112 §6.3)
            if coding.strip().lower() != "chunked":
                raise BadRequestBody(f"unsupported Transfer-Encoding: {coding}", status=501)
            return read_chunked(self.rfile, max_size)
        length = (self.headers.get("Content-Length") or "0").strip()
        if not length.isdigit():
            raise BadRequestBody(f"invalid Content-Length: {length[:20]!r}")
        if max_size is not None and int(length) > max_size:
            left = int(length)
            while left:
                got = len(self.rfile.read(min(left, 1 << 20)))
                if not got:
                    raise BadRequestBody("request body shorter than its Content-Length")
                left -= got
            raise BodyTooLarge(int(length))
        body = self.rfile.read(int(length))
        if len(body) != int(length):
            raise BadRequestBody("request body shorter than its Content-Length")
        return body

    def _send(self, status: int, headers: list[tuple[str, str]], body: bytes,
              close: bool = False) -> None:
        is_head = self.command == "HEAD"
        bodiless = is_head or status < 200 or status in (204, 304)
        self.send_response(status)
        for name, value in headers:
            lowered = name.lower()
            # A HEAD answer's Content-Length describes the GET body, so it passes.
            if lowered in _HOP_BY_HOP and not (is_head and lowered == "content-length"):
                continue
            self.send_header(name, value)
        if not bodiless:
            self.send_header("Content-Length", str(len(body)))
        if close or self.server.stopping:
            self.send_header("Connection", "close")  # also sets self.close_connection
        self.end_headers()
        if not bodiless:
            self.wfile.write(body)

    def _send_message(self, status: int, message: str, close: bool = True) -> int:
        body = json.dumps({"message": message}).encode()
        self._send(status, [("Content-Type", "application/json")], body, close=close)
        return status

    def version_string(self) -> str:
        return self.server_version  # without the Python version BaseHTTPRequestHandler adds

    def log_request(self, code="-", size="-") -> None:
        pass  # _proxy writes one line per request, with its duration

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - base-class signature
        if not format.startswith("Request timed out"):  # an idle keep-alive connection
            log.warning("%s: %s", self.address_string(), format % args)
