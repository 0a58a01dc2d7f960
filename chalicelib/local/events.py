"""API Gateway REST proxy events from plain HTTP requests, and back.

The local server and the test client both use this, so every local request reaches
the Lambda handler in the shape API Gateway would give it (binary media type */*:
bodies arrive base64-encoded).
"""
from __future__ import annotations

import base64
import time
import uuid
from typing import Iterable
from urllib.parse import parse_qsl, unquote, urlsplit

STAGE = "api"


def build_event(method: str, target: str, headers: Iterable[tuple[str, str]] = (),
                body: bytes | None = None, source_ip: str = "127.0.0.1") -> dict:
    """``target`` is the request target as sent on the wire: path plus query string."""
    parts = urlsplit(target)
    path = unquote(parts.path) or "/"
    multi_headers: dict[str, list[str]] = {}
    for name, value in headers:
        multi_headers.setdefault(name, []).append(value)
    multi_query: dict[str, list[str]] = {}
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        multi_query.setdefault(name, []).append(value)
    body = body or b""
    return {
        "resource": "/{proxy+}" if path != "/" else "/",
        "path": path,
        "httpMethod": method.upper(),
        "headers": {k: v[-1] for k, v in multi_headers.items()} or None,
        "multiValueHeaders": multi_headers or None,
        "queryStringParameters": {k: v[-1] for k, v in multi_query.items()} or None,
        "multiValueQueryStringParameters": multi_query or None,
        "pathParameters": {"proxy": path.lstrip("/")} if path != "/" else None,
        "stageVariables": None,
        "requestContext": {
            "resourcePath": "/{proxy+}" if path != "/" else "/",
            "httpMethod": method.upper(),
            "path": f"/{STAGE}{path}",
            "stage": STAGE,
            "requestId": str(uuid.uuid4()),
            "requestTimeEpoch": int(time.time() * 1000),
            "identity": {"sourceIp": source_ip},
        },
        "body": base64.b64encode(body).decode("ascii") if body else None,
        "isBase64Encoded": bool(body),
    }


def read_result(result: dict) -> tuple[int, list[tuple[str, str]], bytes]:
    """Status, header list and body bytes of a Lambda proxy result."""
    headers = [(k, str(v)) for k, v in (result.get("headers") or {}).items()]
    for name, values in (result.get("multiValueHeaders") or {}).items():
        headers.extend((name, str(v)) for v in values)
    body = result.get("body") or ""
    if result.get("isBase64Encoded"):
        data = base64.b64decode(body)
    else:
        data = body.encode("utf-8") if isinstance(body, str) else body
    return int(result["statusCode"]), headers, data
