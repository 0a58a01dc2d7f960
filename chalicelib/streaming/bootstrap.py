"""A Lambda custom-runtime loop for the streaming function (Python managed runtime;
``exec-wrapper`` starts this module in place of the runtime's own loop).

Per invocation: take the next event from the Runtime API, answer it with
``Lambda-Runtime-Function-Response-Mode: streaming`` as one chunked POST: API Gateway's
metadata prelude (JSON, then eight NUL bytes), then the body chunks as they come.  A
failure before the first byte is an invocation error; one after it cannot change the
status any more, so it goes into the error trailers, which end the stream as failed.

    python -m chalicelib.streaming.bootstrap      # with AWS_LAMBDA_RUNTIME_API set
"""
from __future__ import annotations

import base64
import http.client
import json
import logging
import os
import sys
import time
import traceback
from typing import Any, Callable

log = logging.getLogger("nimbus.streaming")

API_VERSION = "2018-06-01"
CONTENT_TYPE = "application/vnd.awslambda.http-integration-response"
ERROR_TRAILERS = "Lambda-Runtime-Function-Error-Type, Lambda-Runtime-Function-Error-Body"


class Context:
    """The parts of the Lambda context object that handlers read."""

    def __init__(self, request_id: str, deadline_ms: int, arn: str = ""):
        self.aws_request_id = request_id
        self.invoked_function_arn = arn
        self.function_name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME", "")
        self.memory_limit_in_mb = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "")
        self._deadline_ms = deadline_ms

    def get_remaining_time_in_millis(self) -> int:
        return max(0, self._deadline_ms - int(time.time() * 1000))


def _error_document(exc: BaseException) -> dict:
    return {"errorMessage": str(exc), "errorType": type(exc).__name__,
            "stackTrace": traceback.format_exception(exc)}


def _post_json(conn: http.client.HTTPConnection, path: str, doc: dict) -> None:
    data = json.dumps(doc).encode()
    conn.request("POST", path, body=data, headers={
        "Content-Type": "application/json",
        "Lambda-Runtime-Function-Error-Type": doc.get("errorType", "Runtime.Error")})
    conn.getresponse().read()


def _send_chunk(conn: http.client.HTTPConnection, data: bytes) -> None:
    if data:
        conn.send(b"%x\r\n" % len(data) + data + b"\r\n")


def stream_response(conn: http.client.HTTPConnection, request_id: str, result) -> int:
    """POST the streamed answer; returns the payload bytes sent.  Past ``result.limit``
    the stream ends as failed, as Lambda ends a stream over its quota."""
    conn.putrequest("POST", f"/{API_VERSION}/runtime/invocation/{request_id}/response",
                    skip_accept_encoding=True)
    conn.putheader("Lambda-Runtime-Function-Response-Mode", "streaming")
    conn.putheader("Content-Type", CONTENT_TYPE)
    conn.putheader("Transfer-Encoding", "chunked")
    conn.putheader("Trailer", ERROR_TRAILERS)
    conn.endheaders()
    _send_chunk(conn, result.prelude())
    sent, failure = 0, None
    try:
        for chunk in result.chunks:
            if sent + len(chunk) > result.limit:
                raise OverflowError(f"response exceeds {result.limit} bytes")
            _send_chunk(conn, chunk)
            sent += len(chunk)
    except Exception as exc:  # noqa: BLE001 - reported in the trailers, logged here
        log.exception("stream %s failed after %d bytes", request_id, sent)
        failure = exc
    ending = b"0\r\n"
    if failure is not None:
        body = base64.b64encode(json.dumps(_error_document(failure)).encode())
        ending += (b"Lambda-Runtime-Function-Error-Type: " + type(failure).__name__.encode()
                   + b"\r\nLambda-Runtime-Function-Error-Body: " + body + b"\r\n")
    conn.send(ending + b"\r\n")
    conn.getresponse().read()
    return sent


def run_once(conn: http.client.HTTPConnection, handler: Callable[[dict, Any], Any]) -> str:
    """Take one invocation and answer it; returns its request id."""
    conn.request("GET", f"/{API_VERSION}/runtime/invocation/next")
    response = conn.getresponse()
    event = json.loads(response.read() or b"{}")
    request_id = response.headers["Lambda-Runtime-Aws-Request-Id"]
    context = Context(request_id, int(response.headers.get("Lambda-Runtime-Deadline-Ms") or 0),
                      response.headers.get("Lambda-Runtime-Invoked-Function-Arn") or "")
    try:
        result = handler(event, context)
    except Exception as exc:  # noqa: BLE001 - nothing was sent yet: an invocation error
        log.exception("invocation %s failed", request_id)
        _post_json(conn, f"/{API_VERSION}/runtime/invocation/{request_id}/error",
                   _error_document(exc))
        return request_id
    stream_response(conn, request_id, result)
    return request_id


def find_runtime_sdk() -> None:
    """Put the runtime's own directory (its AWS SDK) on ``sys.path`` after the code, as
    the runtime's loop does: the zip leaves boto3 to the runtime (infra/README.md,
    "AWS SDK"), and ``python3 -m`` started by exec-wrapper does not look there."""
    runtime = os.environ.get("LAMBDA_RUNTIME_DIR")
    if runtime and runtime not in sys.path:
        sys.path.append(runtime)


def main() -> None:  # pragma: no cover - runs inside Lambda only
    logging.basicConfig(level=logging.INFO, stream=sys.stdout)
    find_runtime_sdk()
    conn = http.client.HTTPConnection(os.environ["AWS_LAMBDA_RUNTIME_API"], timeout=None)
    try:
        from chalicelib.streaming.handler import handle_stream_event
    except Exception as exc:  # noqa: BLE001 - tell Lambda why the function cannot start
        _post_json(conn, f"/{API_VERSION}/runtime/init/error", _error_document(exc))
        raise
    while True:
        run_once(conn, handle_stream_event)


if __name__ == "__main__":  # pragma: no cover
    main()
