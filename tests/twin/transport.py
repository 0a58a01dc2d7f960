"""Where the twin meets botocore: a ``before-send`` handler that answers each HTTP
request from the in-memory backends, as moto's stubber does, but without moto.

``install(world)`` adds two handlers to ``botocore.handlers.BUILTIN_HANDLERS``, so
every botocore session (hence every boto3 or PynamoDB client) created afterwards has
them; ``uninstall()`` takes them out again.  Clients made earlier keep talking to
whatever they talked to.  botocore still validates, serializes, parses, retries and
emits its events (``before-call``, ``before-parse``...) exactly as against AWS; only
the network is replaced.  Two costs that change nothing the twin or Nimbus sees are
cut while a world is installed: standard (non-presign) requests skip SigV4 signing,
which the twin would not check (hashing and HMACs were a third of each call's time;
presigned URLs are still signed for real), and botocore's User-Agent string, rebuilt
twice per call from the same inputs, is computed once per inputs (a quarter of what
was left).

A request for a service the world does not model raises ``Unsupported`` (botocore
re-raises it from ``make_request``), never an answer made up.
"""
from __future__ import annotations

import io
import itertools
import json
from urllib.parse import parse_qs, unquote, urlsplit

import botocore
import botocore.handlers
import botocore.useragent
from botocore.awsrequest import AWSResponse
from botocore.context import get_context

from tests.twin.errors import ServiceError

_state = {"world": None, "handlers": [], "user_agent": None}
_user_agents: dict = {}
_request_ids = itertools.count(1)


class Body(io.BytesIO):
    """A response body as botocore reads it from urllib3 (``read`` and ``stream``)."""

    def stream(self, amt: int = 65536, decode_content: bool = True):
        while True:
            chunk = self.read(amt)
            if not chunk:
                return
            yield chunk


class Request:
    """One HTTP request, decoded: method, host, path (unquoted), query, headers
    (lower-case names, str values) and body (aws-chunked encoding undone: S3 uploads
    with a trailing checksum, botocore's default; ``trailers`` holds the checksum)."""

    def __init__(self, prepared, operation: str):
        self.operation = operation          # botocore's name, for error messages only
        self.method = prepared.method.upper()
        self.url = prepared.url
        parts = urlsplit(prepared.url)
        self.host = parts.hostname or ""
        self.raw_path = parts.path or "/"
        self.path = unquote(self.raw_path)
        self.query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        self.headers = {}
        for name, value in prepared.headers.items():
            if isinstance(value, bytes):
                value = value.decode("utf-8", "replace")
            self.headers[name.lower()] = value
        self.trailers: dict[str, str] = {}
        self.body = self._read(prepared.body)

    def _read(self, body) -> bytes:
        if body is None:
            data = b""
        elif isinstance(body, (bytes, bytearray)):
            data = bytes(body)
        elif isinstance(body, str):
            data = body.encode("utf-8")
        else:
            data = body.read()
            if isinstance(data, str):
                data = data.encode("utf-8")
            if hasattr(body, "seek"):
                body.seek(0)        # a retry reads the body again, as after a real send
        if "aws-chunked" in self.headers.get("content-encoding", ""):
            data = self._dechunk(data)
        return data

    def _dechunk(self, data: bytes) -> bytes:
        out, at = [], 0
        while True:
            line_end = data.index(b"\r\n", at)
            size = int(data[at:line_end].split(b";")[0], 16)
            at = line_end + 2
            if size == 0:
                break
            out.append(data[at:at + size])
            at += size + 2
        for line in data[at:].split(b"\r\n"):
            if b":" in line:
                name, _, value = line.partition(b":")
                self.trailers[name.decode().strip().lower()] = value.decode().strip()
        return b"".join(out)

    def json(self) -> dict:
        return json.loads(self.body) if self.body else {}


def respond(url: str, status: int, headers: dict, body: bytes) -> AWSResponse:
    headers.setdefault("x-amzn-requestid", f"twin-{next(_request_ids)}")
    headers.setdefault("content-length", str(len(body)))
    return AWSResponse(url, status, headers, Body(body))


def json_answer(url: str, handle, operation: str, body: dict, content_type: str,
                error_prefix: str = "", query_codes=None) -> AWSResponse:
    """Answer a JSON-protocol request: ``handle(operation, body)`` returns the body;
    a ServiceError becomes ``{"__type": ..., "message": ...}`` (and, for services that
    speak the old query protocol's codes, botocore's ``x-amzn-query-error`` header)."""
    try:
        answer = handle(operation, body)
        return respond(url, 200, {"content-type": content_type},
                       json.dumps(answer, separators=(",", ":")).encode("utf-8"))
    except ServiceError as error:
        headers = {"content-type": content_type}
        if query_codes is not None:
            code = query_codes(error.code)
            if code:
                headers["x-amzn-query-error"] = f"{code};Sender"
        payload = {"__type": error_prefix + error.code, **error.fields}
        if "Message" not in payload:        # a few errors spell it with a capital
            payload["message"] = error.message
        return respond(url, error.status, headers,
                       json.dumps(payload, separators=(",", ":")).encode("utf-8"))


def _before_send(request, event_name: str, **_):
    world = _state["world"]
    if world is None:
        return None
    host = urlsplit(request.url).hostname or ""
    if not host.endswith(".amazonaws.com"):
        return None         # a client pointed elsewhere (a local moto server): not ours
    # A session may hold the handler twice (made after ``install`` extended botocore's
    # built-in handlers, and given it again by ``install``): botocore calls both, and
    # the request must be answered, and applied, once.
    answered = getattr(request, "_nimbus_twin_answer", None)
    if answered is not None:
        return answered
    _, service, operation = event_name.split(".", 2)
    answered = request._nimbus_twin_answer = world.answer(service, Request(request, operation))
    return answered


def _choose_signer(signature_version=None, **_):
    if _state["world"] is None or signature_version is botocore.UNSIGNED:
        return None
    if str(signature_version).endswith(("-query", "-presign-post")):
        return None             # a presigned URL: sign it, as AWS would need
    return botocore.UNSIGNED


def _user_agent(self) -> str:
    # The same string botocore builds: its inputs are the client's (self, its config and
    # features) and the call's features.
    context = get_context()
    key = (id(self), self._client_config, frozenset(self._client_features or ()),
           frozenset(context.features) if context is not None else None)
    found = _user_agents.get(key)
    if found is None:
        if len(_user_agents) > 4096:
            _user_agents.clear()
        found = _user_agents[key] = _state["user_agent"](self)
    return found


def install(world) -> None:
    """Answer every client created from now on from ``world`` (one world at a time)."""
    if _state["world"] is not None:
        raise RuntimeError("an AWS twin world is already installed")
    _state["world"] = world
    # botocore calls every before-send handler and takes the first answer: the twin's
    # goes first, so it is the answer even where moto's mock is active too (moto's
    # stubber still sees the request; the property tests pause it).
    specs = [("before-send", _before_send, botocore.handlers.REGISTER_FIRST),
             ("choose-signer", _choose_signer, botocore.handlers.REGISTER_FIRST)]
    botocore.handlers.BUILTIN_HANDLERS.extend(specs)
    _state["handlers"] = specs
    # Nimbus makes its clients from one long-lived botocore session (chalicelib/aws.py),
    # which may predate this world: give it the handlers too.  (Clients copy a session's
    # handlers when made, so the world's clients are made after this: twin.world().)
    from chalicelib import aws

    for event, handler, _first in specs:
        aws.session().get_component("event_emitter").register_first(
            event, handler, unique_id=_unique_id(event))
    _state["user_agent"] = botocore.useragent.UserAgentString.to_string
    botocore.useragent.UserAgentString.to_string = _user_agent


def _unique_id(event: str) -> str:
    return f"nimbus-aws-twin-{event}"


def uninstall() -> None:
    from chalicelib import aws

    for spec in _state["handlers"]:
        if spec in botocore.handlers.BUILTIN_HANDLERS:
            botocore.handlers.BUILTIN_HANDLERS.remove(spec)
        aws.session().unregister(spec[0], unique_id=_unique_id(spec[0]))
    _state["handlers"] = []
    if _state["user_agent"] is not None:
        botocore.useragent.UserAgentString.to_string = _state["user_agent"]
        _state["user_agent"] = None
    _user_agents.clear()
    _state["world"] = None

