"""One proxy event in, a status, headers and an iterator of body chunks out.

The same gateway as the buffered function answers (auth, routing, errors), so a
request behaves identically on both functions.  Only the operations in
``STREAMED_OPERATIONS`` keep the streamed allowance (``STREAMED_RESPONSE_LIMIT``, 200
MB in Lambda); every other answer is held to the buffered limit exactly as the
buffered function would be, so moving a method onto this function changes nothing
for it.
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any, Iterator

from chalicelib import git_transport
from chalicelib.http import gateway
from chalicelib.settings import get_settings

# Answers that may exceed the buffered limit: clone/fetch packs, and applying a large
# push (which may run for minutes: the streaming integration allows 15).
STREAMED_OPERATIONS = frozenset({"gitUploadPack", "gitWikiUploadPack", "applyLargePush"})
CHUNK_SIZE = 256 * 1024
# API Gateway's metadata/payload separator in a streamed Lambda proxy response.
DELIMITER = b"\x00" * 8


@dataclass
class StreamedResult:
    status: int
    headers: dict[str, str]
    multi_headers: dict[str, list[str]] = field(default_factory=dict)
    chunks: Iterator[bytes] = iter(())
    limit: int = 0            # bytes this body may carry on the path that serves it
    streamed: bool = False    # a streamed operation (else: buffered semantics)

    def prelude(self) -> bytes:
        """The JSON metadata API Gateway reads before the payload, then the delimiter."""
        meta: dict[str, Any] = {"statusCode": self.status, "headers": self.headers}
        if self.multi_headers:
            meta["multiValueHeaders"] = self.multi_headers
        return json.dumps(meta).encode() + DELIMITER


def chunked(body: bytes, size: int = CHUNK_SIZE) -> Iterator[bytes]:
    view = memoryview(body)
    for start in range(0, len(view), size):
        yield bytes(view[start:start + size])


def bounded(chunks: Iterator[bytes], size: int = CHUNK_SIZE) -> Iterator[bytes]:
    """``chunks``, any longer than ``size`` cut into pieces and empty ones dropped (in
    HTTP chunked framing an empty chunk ends the body).  A pack can come as one chunk
    per object (a whole blob of tens of MB), and the transports below copy every chunk
    once more to frame it (the local server, twice in the runtime loop): cut here, each
    copy is at most ``size``."""
    for chunk in chunks:
        if not chunk:
            continue
        if len(chunk) <= size:
            yield chunk
        else:
            yield from chunked(chunk, size)


def buffered_overflow(size: int, limit: int) -> dict:
    """The proxy result standing in for a buffered response Lambda refuses to return:
    API Gateway answers 502; the message says why instead of "Internal server error"."""
    message = (f"Internal server error: the response ({size} bytes as a Lambda proxy result) "
               f"exceeds the {limit}-byte limit of a buffered Lambda response")
    return {"statusCode": 502, "headers": {"Content-Type": "application/json"},
            "body": json.dumps({"message": message}), "isBase64Encoded": False}


def proxy_result_size(result: dict) -> int:
    return len(json.dumps(result))


def handle_stream_event(event: dict, context: Any = None, *,
                        enforce_limits: bool = True) -> StreamedResult:
    """``enforce_limits=False``: the local runtime serving a fetch without AWS's limits
    (``[server] ENFORCE_AWS_LIMITS`` off), as the buffered path there has none."""
    settings = get_settings().server
    streamed_limit = settings.STREAMED_RESPONSE_LIMIT if enforce_limits else sys.maxsize
    buffered_limit = settings.BUFFERED_RESPONSE_LIMIT if enforce_limits else sys.maxsize
    req = gateway.request_from_event(event)
    budget = git_transport.STREAM_BUDGET.set(streamed_limit)
    try:
        response = gateway.handle(req, event)
    finally:
        git_transport.STREAM_BUDGET.reset(budget)
    operation = getattr(req.route, "operation_id", None)
    if operation in STREAMED_OPERATIONS:
        body = bounded(response.stream) if response.stream is not None else chunked(response.body)
        return StreamedResult(response.status, dict(response.headers),
                              {k: list(v) for k, v in response.multi_headers.items()},
                              body, streamed_limit, True)
    result = gateway.to_proxy_result(response)
    size = proxy_result_size(result)
    if size > buffered_limit:
        result = buffered_overflow(size, buffered_limit)
        response.status, response.body = 502, result["body"].encode()
        response.headers = dict(result["headers"])
        response.multi_headers = {}
    return StreamedResult(response.status, dict(response.headers),
                          {k: list(v) for k, v in response.multi_headers.items()},
                          chunked(response.body), buffered_limit)
