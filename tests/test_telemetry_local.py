"""The local runtime as ``make run`` starts it: ``/metrics`` in Prometheus's format for
a site admin (403 for anyone else, 401 anonymous), fed by the requests and by the event
pipeline's consumer runs in the background, and ``NIMBUS_ACCESS_LOG=json`` writing the
same JSON lines as Lambda, none holding a token or a password."""
from __future__ import annotations

import base64
import json
import time
import urllib.error
import urllib.request

from tests.local_server import ADMIN_ENV, ADMIN_PASSWORD, call, served, stop


def fetch(base: str, path: str, auth: tuple[str, str] | None = None,
          token: str | None = None) -> tuple[int, str, str]:
    """(status, content type, text) of a GET."""
    request = urllib.request.Request(base + path)
    if auth:
        request.add_header("Authorization",
                           "Basic " + base64.b64encode(":".join(auth).encode()).decode())
    if token:
        request.add_header("Authorization", f"token {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.headers["Content-Type"], err.read().decode()


def test_metrics_and_json_lines_on_the_local_runtime(tmp_path):
    root = ("root", ADMIN_PASSWORD)
    with served(tmp_path / "data", NIMBUS_ACCESS_LOG="json", **ADMIN_ENV) as (process, base):
        status, made = call(base, "POST", "/api/v1/users/root/tokens",
                            {"name": "probe", "scopes": ["all"]}, auth=root)
        assert status == 201
        token = made["sha1"]
        assert call(base, "POST", "/api/v1/admin/users", {
            "username": "bob", "password": "bob-password-1", "email": "bob@example.com",
            "must_change_password": False}, auth=root)[0] == 201
        assert fetch(base, f"/api/v1/user?token={token}")[0] == 200
        assert call(base, "POST", "/api/v1/user/repos", {"name": "app"}, auth=root)[0] == 201

        assert fetch(base, "/metrics")[0] == 401
        assert fetch(base, "/metrics", auth=("bob", "bob-password-1"))[0] == 403
        # The repository's events reach their consumers in the background.
        deadline = time.monotonic() + 20
        while True:
            status, kind, text = fetch(base, "/metrics", token=token)
            assert status == 200 and kind == "text/plain; version=0.0.4; charset=utf-8"
            # Other consumers (the audit log's) may run first: wait for the search index's.
            if 'nimbus_consumer_runs_total{consumer="search-index"}' in text \
                    or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert 'nimbus_requests_total{operation="createCurrentUserRepo"} 1\n' in text
        assert 'nimbus_client_errors_total{operation="getMetrics"} 2\n' in text
        assert 'nimbus_consumer_runs_total{consumer="search-index"}' in text
        assert "nimbus_outbox_lag_seconds_bucket" in text
        assert 'nimbus_aws_calls_total{service="dynamodb"}' in text
        assert stop(process)[0] == 0

    output = process.output.read_text()
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    requests = [line for line in lines if line["event"] == "request"]
    assert [line["status"] for line in requests if line["Operation"] == "getMetrics"][:2] == [401, 403]
    assert {line["Function"] for line in lines} == {"local"}
    assert any(line["event"] == "consumer_run" for line in lines)
    for secret in (token, ADMIN_PASSWORD, "bob-password-1"):
        assert secret not in output
