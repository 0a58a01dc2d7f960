"""Rate limits ([ratelimit]): off by default; when on, a token bucket per client
address and per credential, 429 with Retry-After and X-RateLimit-* headers."""
from __future__ import annotations

import time

import pytest

from chalicelib.http import ratelimit
from chalicelib.local.events import build_event, read_result
from chalicelib.settings import SettingsError, load_settings, reset_settings_cache
from tests.conftest import Response


@pytest.fixture
def limits(monkeypatch):
    """Turn limits on with the given settings for one test."""
    def configure(**values):
        monkeypatch.setenv("NIMBUS__RATELIMIT__ENABLED", "true")
        for key, value in values.items():
            monkeypatch.setenv(f"NIMBUS__RATELIMIT__{key}", str(value))
        reset_settings_cache()
        ratelimit.reset()

    yield configure
    monkeypatch.delenv("NIMBUS__RATELIMIT__ENABLED")
    reset_settings_cache()
    ratelimit.reset()


def from_address(api, address: str, path: str = "/api/v1/version", headers=()) -> Response:
    event = build_event("GET", path, list(headers), None, source_ip=address)
    return Response(*read_result(api.app(event, None)))


def test_off_by_default(api):
    assert load_settings({}).ratelimit.ENABLED is False
    for _ in range(5):
        answer = api.get("/version")
        assert answer.status == 200
        assert not any(name.startswith("x-ratelimit") for name in answer.headers)


def test_address_bucket_answers_429_with_headers(api, limits):
    limits(ADDRESS_BURST=3, ADDRESS_PER_MINUTE=60)
    before = time.time()
    seen = [api.get("/version") for _ in range(3)]
    assert [r.status for r in seen] == [200, 200, 200]
    assert [r.headers["x-ratelimit-remaining"] for r in seen] == ["2", "1", "0"]
    assert {r.headers["x-ratelimit-limit"] for r in seen} == {"3"}
    refused = api.get("/version")
    assert refused.status == 429
    assert refused.json["message"] == "rate limit exceeded"
    assert refused.headers["retry-after"] == "1"          # one token a second
    assert refused.headers["x-ratelimit-limit"] == "3"
    assert refused.headers["x-ratelimit-remaining"] == "0"
    assert before + 2 <= int(refused.headers["x-ratelimit-reset"]) <= time.time() + 4
    # Another address has its own bucket.
    assert from_address(api, "198.51.100.7").status == 200


def test_credential_bucket_is_per_credential(api, limits):
    api.create_user("alice")
    api.create_user("bob")
    alice, bob = api.create_token("alice"), api.create_token("bob")
    limits(CREDENTIAL_BURST=2, CREDENTIAL_PER_MINUTE=1)
    assert [api.get("/user", token=alice).status for _ in range(2)] == [200, 200]
    refused = api.get("/user", token=alice)
    assert refused.status == 429 and int(refused.headers["retry-after"]) >= 59
    # Same address: bob's credential and anonymous requests are not held up.
    assert api.get("/user", token=bob).status == 200
    assert api.get("/version").status == 200
    # Alice's name with a guessed password is another credential, not her bucket.
    assert api.get("/user", auth=("alice", "guessed-password")).status == 401
    assert api.get("/user", token=alice).status == 429


def test_limits_apply_to_git_and_error_answers(api, limits):
    limits(ADDRESS_BURST=1)
    assert api.get("/repos/nobody/nothing").status == 404
    assert api.get("/nobody/nothing.git/info/refs?service=git-upload-pack", raw=True).status == 429


def test_bucket_refills_at_its_rate():
    clock = [100.0]
    buckets = ratelimit.TokenBuckets(per_minute=120, burst=2, clock=lambda: clock[0])
    assert [buckets.take("k").allowed for _ in range(3)] == [True, True, False]
    refused = buckets.take("k")
    assert refused.retry_after == pytest.approx(0.5)
    clock[0] += 0.5
    assert buckets.take("k").allowed and not buckets.take("k").allowed
    clock[0] += 60
    assert buckets.take("k").remaining == 1          # full again, never above the burst


def test_buckets_are_bounded(monkeypatch):
    monkeypatch.setattr(ratelimit, "MAX_BUCKETS", 3)
    buckets = ratelimit.TokenBuckets(per_minute=1, burst=1)
    for key in "abcd":
        buckets.take(key)
    assert len(buckets._buckets) == 3


def test_settings_are_checked():
    with pytest.raises(SettingsError, match=r"\[ratelimit\]"):
        load_settings({"NIMBUS__RATELIMIT__ADDRESS_BURST": "0"})
    with pytest.raises(SettingsError, match="ENABLED"):
        load_settings({"NIMBUS__RATELIMIT__ENABLED": "maybe"})
