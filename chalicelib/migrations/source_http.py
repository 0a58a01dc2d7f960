"""The one HTTP client the migration readers talk to a source with, and the readings
every reader shares (times, colours, reaction names, paging headers).

Every connection goes through ``netguard``: the URL is checked against the migration
policy right before connecting and the connection dials the checked address (no
second DNS lookup).  The source's credentials travel only to the source's own origin
(scheme, host and port of its API); a JSON request redirected elsewhere fails, and an
asset download redirected to another host (GitHub's object store, a CDN) follows the
redirect without them, the new host checked again.  A 429, a 5xx or a spent rate
limit is retried a few times, waiting what the source asks (``Retry-After``,
``X-RateLimit-Reset``) up to a small cap; a longer wait fails the step, which the
migration resumes later.  Every failure is a :class:`SourceError` (an
``InvalidInput``) whose text names the source and never the credentials.
"""
from __future__ import annotations

import email.utils
import http.client
import json
import random
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urlencode, urljoin, urlsplit

from chalicelib import netguard
from chalicelib.errors import InvalidInput

CONNECT_SECONDS = 10
READ_SECONDS = 60
ATTEMPTS = 4                  # tries of one request that meets a 429, a 5xx or a drop
LONGEST_WAIT_SECONDS = 20     # longer rate-limit waits fail now and resume later
REDIRECT_HOPS = 5
JSON_LIMIT = 32 * 1024 * 1024
CHUNK = 256 * 1024
RETRIED_STATUSES = (429, 500, 502, 503, 504)

pause = time.sleep            # tests replace it to see the waits without waiting


class SourceError(InvalidInput):
    """A source refused, failed or answered something unreadable; ``status`` is the
    HTTP status (0 when no answer came)."""

    def __init__(self, message: str, status: int = 0):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Answer:
    status: int
    headers: Mapping[str, str]     # names in lower case
    data: object                   # the decoded JSON
    url: str


def origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or {"http": 80, "https": 443}.get(scheme, 0)
    return scheme, (parts.hostname or "").lower(), port


class SourceHTTP:
    """JSON and byte requests to one source; ``base_url`` is its API root (requests
    name paths below it, or whole URLs), ``auth`` the headers that authenticate."""

    def __init__(self, base_url: str, *, auth: Mapping[str, str] | None = None,
                 secrets: tuple[str, ...] = (), name: str = "the source",
                 accept: str = "application/json"):
        self.base_url = base_url.rstrip("/")
        self.origin = origin(self.base_url)
        self.auth = dict(auth or {})
        self.secrets = tuple(s for s in secrets if s)
        self.name = name
        self.accept = accept
        self._kept: http.client.HTTPConnection | None = None

    def close(self) -> None:
        """Close the idle connection to the source, if there is one."""
        if self._kept is not None:
            self._kept.close()
            self._kept = None

    # --- the reader's calls -------------------------------------------------------

    def url(self, path: str, params: Mapping[str, object] | None = None) -> str:
        url = path if "://" in path else self.base_url + "/" + path.lstrip("/")
        if params:
            query = urlencode([(k, v) for k, v in params.items() if v is not None], doseq=True)
            url += ("&" if "?" in url else "?") + query
        return url

    def get(self, path: str, params: Mapping[str, object] | None = None) -> Answer:
        """GET JSON; redirects within the source's origin are followed, others fail."""
        url = self.url(path, params)
        for _ in range(REDIRECT_HOPS + 1):
            status, headers, body = self._request(url, {"Accept": self.accept}, JSON_LIMIT)
            if 300 <= status < 400 and headers.get("location"):
                target = urljoin(url, headers["location"])
                if origin(target) != self.origin:
                    raise SourceError(f"{self.name} redirected {self._shown(url)} to another "
                                      f"host ({self._shown(target)}); not followed", status)
                url = target
                continue
            return Answer(status, headers, self._decode(url, status, headers, body), url)
        raise SourceError(f"{self.name} redirected {self._shown(url)} too many times")

    def get_optional(self, path: str, params: Mapping[str, object] | None = None,
                     missing: tuple[int, ...] = (404,)) -> Answer | None:
        """Like :meth:`get`, but None when the source answers one of ``missing`` (a
        feature it lacks or has switched off)."""
        try:
            return self.get(path, params)
        except SourceError as exc:
            if exc.status in missing:
                return None
            raise

    def stream(self, url: str, headers: Mapping[str, str] | None = None) -> Iterator[bytes]:
        """The bytes at ``url`` in chunks; redirects are followed to any host the guard
        allows, the credentials only ever sent to the source's origin."""
        url = self.url(url)
        for _ in range(REDIRECT_HOPS + 1):
            response, connection = self._open(url, dict(headers or {}))
            if 300 <= response.status < 400 and response.getheader("location"):
                target = urljoin(url, response.getheader("location"))
                connection.close()
                url = target
                continue
            if response.status != 200:
                body = _read_limited(response, 4096)
                connection.close()
                raise self._status_error(url, response.status, body)
            return _chunks(response, connection, self, url)
        raise SourceError(f"{self.name} redirected {self._shown(url)} too many times")

    # --- one request with retries ---------------------------------------------------

    def _headers_for(self, url: str, extra: Mapping[str, str]) -> dict[str, str]:
        headers = {"User-Agent": "Nimbus-migration", **extra}
        if origin(url) == self.origin:
            headers.update(self.auth)
        return headers

    def _connect(self, url: str, keep: bool):
        """A connection for ``url``: the idle one to the source's origin when ``keep``
        allows (it was checked when it was opened), else a new one to the address the
        guard checks now; with the request path and whether it was reused."""
        parts = urlsplit(url)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        if keep and self._kept is not None and origin(url) == self.origin:
            connection, self._kept = self._kept, None
            return connection, path, True
        target = netguard.check_target(url, netguard.MIGRATION)
        if target.scheme not in ("http", "https"):
            raise SourceError(f"{self.name}: {self._shown(url)} is not an HTTP URL")
        return target.open_connection(timeout=CONNECT_SECONDS), target.request_path, False

    def _open(self, url: str, extra: Mapping[str, str], keep: bool = False):
        """An answered request (status not yet judged beyond retries), its connection."""
        attempt = 0
        while attempt < ATTEMPTS:
            connection, path, reused = self._connect(url, keep)
            attempt += 1
            try:
                connection.request("GET", path, headers=self._headers_for(url, extra))
                connection.sock.settimeout(READ_SECONDS)
                response = connection.getresponse()
            except (OSError, http.client.HTTPException) as exc:
                connection.close()
                if reused:          # the server closed the idle connection: open anew
                    attempt -= 1
                    continue
                if attempt == ATTEMPTS:
                    raise SourceError(f"{self.name} did not answer {self._shown(url)}: "
                                      f"{self._clean(str(exc) or type(exc).__name__)}") from None
                pause(backoff(attempt))
                continue
            wait = retry_wait(response.status, response.headers, attempt)
            if wait is None or attempt == ATTEMPTS:
                return response, connection
            _read_limited(response, 4096)
            connection.close()
            if wait > LONGEST_WAIT_SECONDS:
                raise SourceError(f"{self.name} asks to wait {int(wait)} s before more requests "
                                  "(rate limit); try again later", response.status)
            pause(wait)
        raise AssertionError("unreachable")

    def _request(self, url: str, extra: Mapping[str, str], limit: int):
        response, connection = self._open(url, extra, keep=True)
        try:
            body = _read_limited(response, limit + 1)
        except (OSError, http.client.HTTPException) as exc:
            connection.close()
            raise SourceError(f"{self.name} broke off {self._shown(url)}: "
                              f"{self._clean(str(exc))}") from None
        if response.will_close or len(body) > limit or origin(url) != self.origin:
            connection.close()
        else:               # kept for the next request: one handshake per source, not per list
            self.close()
            self._kept = connection
        if len(body) > limit:
            raise SourceError(f"{self.name} answered {self._shown(url)} with more than "
                              f"{limit} bytes")
        headers = {k.lower(): v for k, v in response.getheaders()}
        return response.status, headers, body

    # --- judging answers --------------------------------------------------------------

    def _decode(self, url: str, status: int, headers: Mapping[str, str], body: bytes):
        if status != 200 and status != 201:
            raise self._status_error(url, status, body)
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind and "json" not in kind:
            raise SourceError(f"{self.name} answered {self._shown(url)} with {kind}, not JSON "
                              "(is the address the right kind of service?)", status)
        try:
            return json.loads(body.decode("utf-8")) if body.strip() else None
        except (UnicodeDecodeError, ValueError):
            raise SourceError(f"{self.name} answered {self._shown(url)} with invalid JSON",
                              status) from None

    def _status_error(self, url: str, status: int, body: bytes) -> SourceError:
        detail = ""
        try:
            answer = json.loads(body.decode("utf-8"))
            if isinstance(answer, dict):
                detail = str(answer.get("message") or answer.get("error") or "")[:200]
        except (UnicodeDecodeError, ValueError):
            pass
        what = {401: "authentication failed", 403: "access refused",
                404: "not found"}.get(status, f"HTTP {status}")
        text = f"{self.name} answered {self._shown(url)}: {what}"
        return SourceError(text + (f" ({self._clean(detail)})" if detail else ""), status)

    def _clean(self, text: str) -> str:
        return netguard.redact(text, self.secrets)

    def _shown(self, url: str) -> str:
        return self._clean(url.split("?", 1)[0])


def _read_limited(response, limit: int) -> bytes:
    return response.read(limit)


def _chunks(response, connection, client: SourceHTTP, url: str) -> Iterator[bytes]:
    try:
        while True:
            try:
                chunk = response.read(CHUNK)
            except (OSError, http.client.HTTPException) as exc:
                raise SourceError(f"{client.name} broke off {client._shown(url)}: "
                                  f"{client._clean(str(exc))}") from None
            if not chunk:
                return
            yield chunk
    finally:
        connection.close()


# --- waits ------------------------------------------------------------------------

def backoff(attempt: int) -> float:
    """Half a second, doubling, with jitter: a dropped connection or a plain 5xx."""
    return min(8.0, 0.5 * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)


def retry_wait(status: int, headers, attempt: int) -> float | None:
    """Seconds to wait before trying again, or None when the answer is final."""
    remaining = headers.get("X-RateLimit-Remaining") or headers.get("RateLimit-Remaining")
    spent = remaining is not None and remaining.strip() == "0"
    if status not in RETRIED_STATUSES and not (status == 403 and spent):
        return None
    asked = headers.get("Retry-After")
    if asked:
        asked = asked.strip()
        if asked.isdigit():
            return float(asked)
        when = email.utils.parsedate_to_datetime(asked) if asked else None
        if when is not None:
            return max(0.0, when.timestamp() - time.time())
    reset = headers.get("X-RateLimit-Reset") or headers.get("RateLimit-Reset")
    if spent and reset and reset.strip().isdigit():
        return max(0.0, float(reset) - time.time())
    if status == 403:
        return None
    return backoff(attempt)


# --- readings every reader shares ---------------------------------------------------

def unix(value) -> int:
    """An ISO 8601 time or date (``Z``, offsets, fractions) as Unix seconds; 0 if none."""
    if not value or not isinstance(value, str):
        return 0
    text = value.strip()
    try:
        if len(text) == 10:
            when = datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)
        else:
            when = datetime.fromisoformat(text)     # Z, offsets and fractions (3.11)
            if when.tzinfo is None:
                when = when.replace(tzinfo=UTC)
    except ValueError:
        return 0
    seconds = int(when.timestamp())
    return max(0, seconds)


def color(value) -> str:
    return str(value or "").strip().lstrip("#").lower()


# Forgejo's reaction names; GitHub uses the same, GitLab names its emoji.
REACTIONS = ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes")
EMOJI_REACTIONS = {"thumbsup": "+1", "thumbs_up": "+1", "+1": "+1",
                   "thumbsdown": "-1", "thumbs_down": "-1", "-1": "-1",
                   "laughing": "laugh", "smile": "laugh", "laugh": "laugh",
                   "joy": "laugh", "tada": "hooray", "hooray": "hooray",
                   "confused": "confused", "heart": "heart", "rocket": "rocket",
                   "eyes": "eyes"}


def reaction_name(value) -> str:
    """Forgejo's name for a reaction, or "" for one it has no name for."""
    return EMOJI_REACTIONS.get(str(value or "").strip().lower(), "")


def link_next(headers: Mapping[str, str]) -> str | None:
    """The ``rel="next"`` URL of a Link header (GitHub, Gitea), or None."""
    for part in (headers.get("link") or "").split(","):
        section = part.split(";")
        if len(section) > 1 and any(p.strip().replace(" ", "") in ('rel="next"', "rel=next")
                                    for p in section[1:]):
            return section[0].strip().strip("<>")
    return None


def listed(answer: Answer, what: str) -> list:
    """The JSON list an answer must be."""
    if not isinstance(answer.data, list):
        raise SourceError(f"the source's {what} is not a list")
    return [item for item in answer.data if isinstance(item, dict)]


def one(answer: Answer, what: str) -> dict:
    if not isinstance(answer.data, dict):
        raise SourceError(f"the source's {what} is not an object")
    return answer.data
