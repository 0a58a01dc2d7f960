"""API Gateway proxy event -> route -> handler -> proxy result.

The one entry point for every HTTP request, in AWS and locally (the local server
builds the same events), so both take exactly the same code path.
"""
from __future__ import annotations

import base64
import gzip
import hmac
import json
import logging
import traceback
import uuid
import zlib
from typing import Any

from chalicelib import errors as service_errors
from chalicelib import telemetry
from chalicelib.http import auth, input_rules, page_policy, ratelimit, renames, route_index
from chalicelib.http import errors as api_errors
from chalicelib.http.message import ApiRequest, ApiResponse, Headers
from chalicelib.http.request_scope import prefetch, request_scope
from chalicelib.http.router import GIT, normalize_path
from chalicelib.settings import get_settings

log = logging.getLogger("nimbus.gateway")

API_PREFIX = "/api/v1"
# Lambda takes at most 6 MB per request; locally there is no such limit, but an
# inflated gzip body is capped so a small bomb cannot exhaust memory.
MAX_INFLATED_BODY = 1 << 30

def _header_items(event: dict) -> list[tuple[str, str]]:
    multi = event.get("multiValueHeaders") or {}
    if multi:
        return [(k, ", ".join(v)) for k, v in multi.items() if v is not None]
    return list((event.get("headers") or {}).items())


def _query(event: dict) -> dict[str, list[str]]:
    multi = event.get("multiValueQueryStringParameters")
    if multi:
        return {k: list(v) for k, v in multi.items()}
    single = event.get("queryStringParameters") or {}
    return {k: [v] for k, v in single.items()}


def _body(event: dict, headers: Headers) -> bytes:
    raw = event.get("body") or b""
    if event.get("isBase64Encoded"):
        raw = base64.b64decode(raw)
    elif isinstance(raw, str):
        raw = raw.encode("utf-8")
    encoding = (headers.get("content-encoding") or "").lower()
    if encoding in ("gzip", "x-gzip") and raw:
        try:
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            raw = inflater.decompress(raw, MAX_INFLATED_BODY)
            if inflater.unconsumed_tail:
                raise api_errors.PayloadTooLarge()
        except (zlib.error, gzip.BadGzipFile):
            raise api_errors.BadRequest("request body is not valid gzip") from None
    return raw


def request_from_event(event: dict) -> ApiRequest:
    """The request line and headers; the body is decoded only once a route matched."""
    context = event.get("requestContext") or {}
    method = (event.get("httpMethod") or context.get("httpMethod") or "GET").upper()
    # AWS puts the stage-less path at top level; chalice's local converter only in requestContext.
    path = event.get("path") or context.get("path") or "/"
    headers = Headers(_header_items(event))
    return ApiRequest(
        method=method, path=path, raw_path=path, query=_query(event), headers=headers,
        body=b"", source_ip=client_address(headers, (context.get("identity") or {}).get(
            "sourceIp", ""), get_settings().server.EDGE_SECRET),
        request_id=str(context.get("requestId") or uuid.uuid4()),
    )


EDGE_HEADER = "x-nimbus-edge"


def client_address(headers: Headers, peer: str, edge_secret: str) -> str:
    """Who is calling: the connection's peer, or, behind the stack's own CloudFront, the
    viewer CloudFront saw.  CloudFront appends the viewer to ``X-Forwarded-For`` and API
    Gateway appends the edge, so the viewer is the last but one entry; anything before it
    came from the client and is never believed.  Only a request carrying the
    distribution's secret (``[server] EDGE_SECRET``, sent as ``X-Nimbus-Edge``) came
    through it: anyone can call API Gateway's own URL with a forged header.  Without this,
    every viewer of one edge would share one address, and the sign-in throttle of an
    attacker's address would hold back everyone behind that edge."""
    sent = headers.get(EDGE_HEADER) or ""
    if not edge_secret or not sent or not hmac.compare_digest(sent, edge_secret):
        return peer
    hops = [hop.strip() for hop in (headers.get("x-forwarded-for") or "").split(",")]
    return hops[-2] if len(hops) >= 2 and hops[-2] else peer


def _security_headers(response: ApiResponse, settings) -> None:
    h = response.headers
    h.setdefault("Cache-Control", "max-age=0, private, must-revalidate")
    h.setdefault("X-Content-Type-Options", "nosniff")
    if settings.cors.X_FRAME_OPTIONS:
        h.setdefault("X-Frame-Options", settings.cors.X_FRAME_OPTIONS)
    content_type = next((v for k, v in h.items() if k.lower() == "content-type"), "")
    if content_type.lower().startswith("text/html"):
        # A handler's own policy (a raw file's sandbox, the consent form's) wins.
        h.setdefault("Content-Security-Policy", page_policy.content_security_policy(settings))
    if settings.cors.ENABLED:
        h.setdefault("Access-Control-Allow-Origin", settings.cors.ALLOW_DOMAIN)


def _error_response(err: api_errors.ApiError, settings) -> ApiResponse:
    if isinstance(err, api_errors.PlainTextError):
        resp = ApiResponse.text(err.message + "\n", status=err.status)
    else:
        resp = ApiResponse.json(err.body(settings.swagger_url), status=err.status)
    resp.headers.update(err.headers)
    return resp


def _dispatch(req: ApiRequest, event: dict, settings) -> ApiResponse:
    path = normalize_path(req.raw_path)
    is_api = path == API_PREFIX or path.startswith(API_PREFIX + "/")
    req.path = (path[len(API_PREFIX):] or "/") if is_api else path
    # Imports only the area module that serves this route (the full table for 404/405).
    route, found = route_index.resolve(req.method, req.path, raw=not is_api)
    if route is None:
        if req.method == "OPTIONS" and settings.cors.ENABLED and found:
            return _preflight(found, settings)
        if found:
            raise api_errors.MethodNotAllowed(headers={"Allow": ", ".join(found)})
        raise api_errors.NotFound()
    if route.available is not None and not route.available():
        raise api_errors.NotFound()   # switched off: answered as a route that does not exist
    req.route, req.params = route, found
    req.body = _body(event, req.headers)
    # Git pushes may be large; API bodies are bounded as Lambda bounds them in AWS.
    if not route.raw and len(req.body) > input_rules.MAX_REQUEST_BODY:
        raise api_errors.PayloadTooLarge()
    try:
        _preload(req, route, settings)
        try:
            auth.authorize(req, route, settings)
        except api_errors.ApiError:
            # Forgejo says this before any scope, admin or Basic-only refusal.
            _password_change_first(req, route, settings)
            raise
        _password_change_first(req, route, settings)
        response = route.handler(req)
    except (api_errors.ApiError, service_errors.NotFoundError) as err:
        moved = _moved(req, route, getattr(err, "status", 404))
        if moved is None:
            raise
        return moved
    return _moved(req, route, response.status) or response


# Forgejo's answers to an account that must change its password first: the API's
# (routers/api/shared/middleware.go; AppURL ends in "/" there too, hence the two slashes,
# which routing collapses: /user/change_password leads to the form), and git's (the
# web's verifyAuthWithOptions, to a git client).
MUST_CHANGE_PASSWORD = "You must change your password. Change it at: "
MUST_CHANGE_PASSWORD_GIT = "Update your password"


def _password_change_first(req: ApiRequest, route, settings) -> None:
    """An account whose site admin set ``must_change_password`` is refused on the API
    (403) and git (401) whatever it signed in with, token or password, until it has
    changed it on the web, as Forgejo refuses it.  The account that authenticated is the
    one checked, not the one it acts as through Sudo (Forgejo checks before Sudo).
    Pages send it to the form instead (chalicelib/web/view.py).  No read: the account
    is the principal's."""
    principal = req.principal
    account = (principal.sudo_by or principal.user) if principal is not None else None
    if account is None or not account.must_change_password:
        return
    if not route.raw:
        raise api_errors.Forbidden(MUST_CHANGE_PASSWORD + settings.app_url
                                   + "/user/change_password", plain=True)
    if route.credentials == GIT:
        raise api_errors.PlainTextError(401, MUST_CHANGE_PASSWORD_GIT)


def _moved(req: ApiRequest, route, status: int) -> ApiResponse | None:
    """The redirect to an account's new name when the request named nobody: a 404 (pages
    render theirs as a response), or the 401 by which git asks anonymous callers for
    credentials rather than say that a repository does not exist."""
    if status == 404 or (status == 401 and route.credentials == GIT and req.principal is None):
        return renames.redirect(req, "" if route.raw else API_PREFIX)
    return None


def _preload(req: ApiRequest, route, settings) -> None:
    """Two batched reads: what the request names, then what that reveals."""
    credential = auth.credential_of(req, settings)
    first = auth.credential_keys(credential) + (route.preload(req) if route.preload else [])
    if not first:
        return
    prefetch(first)
    user_id, second = auth.caller_keys(credential)
    if route.preload_more:
        second += route.preload_more(req, user_id)
    prefetch(second)


def _preflight(methods: list[str], settings) -> ApiResponse:
    return ApiResponse(status=200, headers={
        "Access-Control-Allow-Origin": settings.cors.ALLOW_DOMAIN,
        "Access-Control-Allow-Methods": ", ".join(methods),
        "Access-Control-Allow-Headers": "Authorization, Content-Type, X-Gitea-OTP, X-Forgejo-OTP, Sudo",
        "Access-Control-Max-Age": "600",
    })


def handle(req: ApiRequest, event: dict) -> ApiResponse:
    """The answer to ``req``, and its one telemetry line (written when a streamed answer
    ends: its bytes and AWS calls are the request's)."""
    with telemetry.watching() as tally:
        response = _answer(req, event)
    if response.stream is None:
        _log_request(req, response, tally)
    else:
        response.stream = telemetry.continued(response.stream, tally,
                                              lambda: _log_request(req, response, tally))
    return response


def _log_request(req: ApiRequest, response: ApiResponse, tally: telemetry.Tally) -> None:
    """The request's line (docs/operations.md): its route's pattern, never the path as
    sent nor its query (either may carry a token), and who called by account id only."""
    route, status = req.route, response.status
    principal = req.principal
    error, client_error = status >= 500, 400 <= status < 500
    by = telemetry.OPERATION
    telemetry.emit("request", tally, dimensions={
        "Operation": getattr(route, "operation_id", None) or "unmatched"}, metrics=[
        telemetry.Metric("Requests", 1, by=by),
        telemetry.Metric("Errors", int(error), by=by if error else ()),
        telemetry.Metric("ClientErrors", int(client_error), by=by if client_error else ()),
        telemetry.Metric("Latency", tally.elapsed_ms(), telemetry.MILLISECONDS)],
        request_id=req.request_id, method=req.method,
        route=None if route is None else (route.pattern if route.raw else API_PREFIX + route.pattern),
        status=status,
        caller_id=int(principal.user.id) if principal is not None else None,
        via=principal.via if principal is not None else None,
        sudo_by=int(principal.sudo_by.id) if principal is not None and principal.sudo_by else None)


def _answer(req: ApiRequest, event: dict) -> ApiResponse:
    settings = get_settings()
    verdict = None
    try:
        verdict = ratelimit.admit(req, settings)  # 429 before any work; None when off
        with request_scope(request_id=req.request_id, address=req.source_ip):
            response = _dispatch(req, event, settings)
    except api_errors.ApiError as err:
        response = _error_response(err, settings)
    except service_errors.ServiceError as err:
        response = _error_response(api_errors.api_error_of(err), settings)
    except Exception as exc:  # noqa: BLE001 - the one place unexpected errors become a 500
        if _item_too_large(exc):
            # The input rules bound each text, but several near-limit texts (or their
            # copies in the event outbox) may still overflow DynamoDB's 400 KB item:
            # the transaction wrote nothing, so the client may send less.
            log.warning("refused: a stored item would exceed 400 KB on %s %s (request id %s)",
                        req.method, req.raw_path, req.request_id)
            response = _error_response(api_errors.PayloadTooLarge(
                "the change is too large to store"), settings)
        else:
            _log_server_error(req, 500, exc)
            response = _error_response(api_errors.InternalError(
                f"internal server error (request id {req.request_id})"), settings)
    else:
        if response.status >= 500:
            _log_server_error(req, response.status, None)
    if response.status >= 500 and response.headers.get("Content-Type", "").startswith(
            "application/json"):
        _add_request_id_to_body(response, req.request_id)
    response.headers["X-Request-Id"] = req.request_id
    _security_headers(response, settings)
    ratelimit.stamp(response, verdict)
    if req.method == "HEAD":
        response.body = b""
    return response


def _item_too_large(exc: BaseException) -> bool:
    """DynamoDB's ValidationException for an item over 400 KB, anywhere in the chain of
    causes (botocore's error, wrapped by PynamoDB; matched by shape, as the api layer
    imports no store or AWS library)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        error = (getattr(exc, "response", None) or {}).get("Error") or {}
        if error.get("Code") == "ValidationException" \
                and "exceeded the maximum allowed size" in str(error.get("Message", "")):
            return True
        exc = exc.__cause__ or exc.__context__ or getattr(exc, "cause", None)
    return False


def _log_server_error(req: ApiRequest, status: int, exc: BaseException | None) -> None:
    """One structured line per 5xx (CloudWatch Logs Insights parses JSON lines); the
    traceback stays in the log, the client gets the request id to quote."""
    entry = {"level": "error", "event": "server_error", "status": status,
             "request_id": req.request_id, "method": req.method, "path": req.raw_path,
             "operation": getattr(req.route, "operation_id", None)}
    if exc is not None:
        entry["error"] = f"{type(exc).__name__}: {exc}"
        entry["traceback"] = "".join(traceback.format_exception(exc))
    log.error(json.dumps(entry, default=str))


def _add_request_id_to_body(response: ApiResponse, request_id: str) -> None:
    """A 5xx JSON error names its request id and never goes out without a message."""
    try:
        body = json.loads(response.body)
    except ValueError:
        return
    if not isinstance(body, dict):
        return
    body["message"] = body.get("message") or f"internal server error (request id {request_id})"
    body["request_id"] = request_id
    response.body = ApiResponse.json(body).body


def to_proxy_result(response: ApiResponse) -> dict[str, Any]:
    """API Gateway proxy result; binary bodies go base64 (binary media type */*)."""
    body = response.body if response.stream is None else b"".join(response.stream)
    result: dict[str, Any] = {
        "statusCode": response.status,
        "headers": dict(response.headers),
        "multiValueHeaders": {k: list(v) for k, v in response.multi_headers.items()},
    }
    try:
        result["body"] = body.decode("utf-8")
        result["isBase64Encoded"] = False
    except UnicodeDecodeError:
        result["body"] = base64.b64encode(body).decode("ascii")
        result["isBase64Encoded"] = True
    return result


def handle_event(event: dict, context: Any = None) -> dict[str, Any]:
    req = request_from_event(event)
    return to_proxy_result(handle(req, event))
