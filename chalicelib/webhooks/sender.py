"""One webhook request on the wire, and what came back.

The connection goes through ``netguard``: every hop's URL (the hook's, then each
redirect's ``Location``) is resolved and checked against ``[webhook]
ALLOWED_HOST_LIST`` and the socket dials the checked address, never the name again, so
a redirect or a DNS answer that changed cannot reach a refused address.  Redirects are
followed as Go's client follows them (at most 10; 301/302/303 turn into a GET without
body, 307/308 repeat the request; ``Authorization`` is not sent to another host).
``DELIVER_TIMEOUT`` bounds the whole exchange; ``SKIP_TLS_VERIFY`` turns off certificate
checks.  The response body is kept up to ``RESPONSE_BODY_LIMIT`` bytes.
"""
from __future__ import annotations

import base64
import email.utils
import functools
import http.client
import ssl
import time
from dataclasses import dataclass, field
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit

from chalicelib import clock, netguard
from chalicelib.errors import InvalidInput
from chalicelib.settings import Settings, get_settings

MAX_REDIRECTS = 10
RESPONSE_BODY_LIMIT = 4096
# Go's client names itself so when the caller sets no User-Agent (Forgejo sets none).
USER_AGENT = "Go-http-client/1.1"


@dataclass
class Outcome:
    status_code: int = 0              # 0: no response
    reason: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    body: str = ""
    error: str = ""                   # why there is no response
    refused: bool = False             # the address is not allowed: retrying cannot help
    duration: float = 0.0
    url: str = ""                     # where the final response came from
    retry_after: float | None = None  # seconds, from Retry-After

    @property
    def ok(self) -> bool:
        return 200 <= self.status_code < 300


def split_userinfo(url: str) -> tuple[str, str | None]:
    """The URL without ``user:password@``, and the Basic credentials it carried."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    token = base64.b64encode(f"{unquote(user)}:{unquote(password)}".encode()).decode()
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment)), \
        "Basic " + token


def retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from a Retry-After header (delta seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now)


def _same_site(old: str, new: str) -> bool:
    a, b = urlsplit(old).hostname or "", urlsplit(new).hostname or ""
    return a == b or b.endswith("." + a)


@functools.lru_cache(maxsize=2)
def _context(skip_verify: bool) -> ssl.SSLContext:
    """One per process and setting: loading the CA bundle takes tens of milliseconds."""
    context = ssl.create_default_context()
    if skip_verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def send(method: str, url: str, headers: list[tuple[str, str]], body: bytes | None, *,
         settings: Settings | None = None, resolver=None) -> Outcome:
    settings = settings or get_settings()
    timeout = float(settings.webhook.DELIVER_TIMEOUT)
    started = time.monotonic()
    deadline = started + timeout
    context = _context(settings.webhook.SKIP_TLS_VERIFY)
    outcome = Outcome()
    for _ in range(MAX_REDIRECTS + 1):
        outcome = _one(method, url, headers, body, deadline, context, settings, resolver)
        outcome.duration = time.monotonic() - started
        location = outcome.headers.get("Location") or outcome.headers.get("location")
        if outcome.status_code not in (301, 302, 303, 307, 308) or not location:
            return outcome
        target = urljoin(url, location)
        if not _same_site(url, target):
            headers = [(k, v) for k, v in headers if k.lower() != "authorization"]
        if outcome.status_code in (301, 302, 303) and method not in ("GET", "HEAD"):
            method, body = "GET", None
            headers = [(k, v) for k, v in headers if k.lower() != "content-type"]
        url = target
    outcome.error = f"Delivery: stopped after {MAX_REDIRECTS} redirects"
    return outcome


def _one(method: str, url: str, headers: list[tuple[str, str]], body: bytes | None,
         deadline: float, context: ssl.SSLContext, settings: Settings, resolver) -> Outcome:
    plain_url, basic = split_userinfo(url)
    if basic and not any(k.lower() == "authorization" for k, _ in headers):
        headers = [*headers, ("Authorization", basic)]
    try:
        target = netguard.check_target(plain_url, netguard.WEBHOOK, settings, resolver=resolver)
    except InvalidInput as exc:
        # A refused address stays refused (only the settings can change that); a name
        # that does not resolve may resolve later.
        unresolved = str(exc).startswith("dial tcp: lookup")
        return Outcome(error=f"Delivery: {netguard.redact(str(exc))}", refused=not unresolved,
                       url=plain_url)
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return Outcome(error="Delivery: context deadline exceeded", url=plain_url)
    conn = target.open_connection(timeout=remaining, ssl_context=context)
    try:
        conn.putrequest(method, target.request_path, skip_accept_encoding=True)
        sent = {k.lower() for k, _ in headers}
        for name, value in headers:
            conn.putheader(name, value)
        if "user-agent" not in sent:
            conn.putheader("User-Agent", USER_AGENT)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        conn.sock.settimeout(max(0.001, deadline - time.monotonic()))
        response = conn.getresponse()
        data = response.read(RESPONSE_BODY_LIMIT + 1)
        text = data[:RESPONSE_BODY_LIMIT].decode("utf-8", "replace")
        if len(data) > RESPONSE_BODY_LIMIT:
            text += "\n[truncated]"
        found = {}
        for name, value in response.getheaders():
            found[name] = f"{found[name]},{value}" if name in found else value
        return Outcome(status_code=response.status, reason=response.reason, headers=found,
                       body=text, url=plain_url,
                       retry_after=retry_after(response.getheader("Retry-After"), clock.now()))
    except (OSError, http.client.HTTPException) as exc:
        return Outcome(error=f"Delivery: {netguard.redact(str(exc) or type(exc).__name__)}",
                       url=plain_url)
    finally:
        conn.close()
