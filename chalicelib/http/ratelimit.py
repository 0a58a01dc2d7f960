"""Rate limits: a token bucket per client address and one per credential.

Every request takes a token from its address's bucket and, when it carries a credential
(Authorization header, ``token``/``access_token`` query), one from that credential's
bucket; an empty bucket answers 429 with ``Retry-After``.  Every answer carries
``X-RateLimit-Limit/Remaining/Reset`` of the tighter bucket (GitHub's names; Reset is
the UTC epoch second at which that bucket is full again).

The buckets live in the Lambda instance (no AWS call at all, so the call budgets hold
whether limits are on or off); API Gateway's stage throttling caps the whole API.  Why
that and not a shared bucket in DynamoDB: docs/ratelimit.md.  Settings: ``[ratelimit]``
(chalicelib/settings.py), off by default.

A credential's bucket is keyed by a hash of the credential as sent (never stored in
the clear), so nobody can empty another user's bucket by naming that user with a wrong
password; guessing passwords is bounded by the address's bucket.
"""
from __future__ import annotations

import hashlib
import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from chalicelib import clock
from chalicelib.http import errors as api_errors
from chalicelib.http.message import ApiRequest, ApiResponse

# Buckets kept per instance; the least recently used go first (a full bucket is
# the same as a forgotten one, so forgetting costs a client at most a refill).
MAX_BUCKETS = 10_000
QUERY_CREDENTIALS = ("token", "access_token")


@dataclass
class Bucket:
    tokens: float
    refilled_at: float      # time.monotonic() of the last refill


@dataclass(frozen=True)
class Verdict:
    """What one bucket said about a request."""
    allowed: bool
    limit: int
    remaining: int
    retry_after: float      # seconds until a token is back (0 if allowed)
    full_after: float       # seconds until the bucket is full

    def tighter(self, other: "Verdict | None") -> "Verdict":
        if other is None:
            return self
        if self.allowed != other.allowed:
            return other if not other.allowed else self
        return other if other.remaining < self.remaining else self

    def headers(self, now: float) -> dict[str, str]:
        return {"X-RateLimit-Limit": str(self.limit),
                "X-RateLimit-Remaining": str(self.remaining),
                "X-RateLimit-Reset": str(math.ceil(now + self.full_after))}


class TooManyRequests(api_errors.ApiError):
    status = 429
    default_message = "rate limit exceeded"


class TokenBuckets:
    """Buckets of ``burst`` tokens refilled at ``per_minute`` tokens a minute, by key."""

    def __init__(self, per_minute: int, burst: int, clock=time.monotonic):
        self.rate = per_minute / 60.0
        self.burst = burst
        self.clock = clock
        self._buckets: OrderedDict[str, Bucket] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key: str) -> Verdict:
        now = self.clock()
        with self._lock:
            bucket = self._buckets.pop(key, None) or Bucket(float(self.burst), now)
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.refilled_at) * self.rate)
            bucket.refilled_at = now
            allowed = bucket.tokens >= 1
            if allowed:
                bucket.tokens -= 1
            self._buckets[key] = bucket
            while len(self._buckets) > MAX_BUCKETS:
                self._buckets.popitem(last=False)
            tokens = bucket.tokens
        return Verdict(allowed=allowed, limit=self.burst, remaining=int(tokens),
                       retry_after=0.0 if allowed else (1 - tokens) / self.rate,
                       full_after=(self.burst - tokens) / self.rate)


class RateLimiter:
    def __init__(self, config):
        self.config = config
        self.addresses = TokenBuckets(config.ADDRESS_PER_MINUTE, config.ADDRESS_BURST)
        self.credentials = TokenBuckets(config.CREDENTIAL_PER_MINUTE, config.CREDENTIAL_BURST)

    def take(self, req: ApiRequest) -> Verdict:
        verdict = self.addresses.take("ip:" + (req.source_ip or "unknown"))
        credential = credential_fingerprint(req)
        if credential is not None and verdict.allowed:
            verdict = verdict.tighter(self.credentials.take(credential))
        return verdict


def credential_fingerprint(req: ApiRequest) -> str | None:
    sent = [req.headers.get("authorization") or ""]
    sent += [value for name in QUERY_CREDENTIALS for value in req.query.get(name, [])]
    sent = [value for value in sent if value]
    if not sent:
        return None
    return "cred:" + hashlib.sha256("\n".join(sent).encode("utf-8", "surrogatepass")).hexdigest()


_limiter: RateLimiter | None = None
_limiter_lock = threading.Lock()


def limiter_for(settings) -> RateLimiter | None:
    """The instance's limiter for these settings (None when limits are off)."""
    global _limiter
    config = settings.ratelimit
    if not config.ENABLED:
        return None
    with _limiter_lock:
        if _limiter is None or _limiter.config != config:
            _limiter = RateLimiter(config)
        return _limiter


def admit(req: ApiRequest, settings) -> Verdict | None:
    """Take the request's tokens; raises TooManyRequests (429, with every header) when
    a bucket is empty.  None when limits are off."""
    limiter = limiter_for(settings)
    if limiter is None:
        return None
    verdict = limiter.take(req)
    if not verdict.allowed:
        headers = verdict.headers(clock.now())
        headers["Retry-After"] = str(max(1, math.ceil(verdict.retry_after)))
        raise TooManyRequests(headers=headers)
    return verdict


def stamp(response: ApiResponse, verdict: Verdict | None) -> None:
    """Put the X-RateLimit headers on an answer (nothing when limits are off)."""
    if verdict is not None:
        for name, value in verdict.headers(clock.now()).items():
            response.headers.setdefault(name, value)


def reset() -> None:
    """Forget every bucket (tests)."""
    global _limiter
    with _limiter_lock:
        _limiter = None
