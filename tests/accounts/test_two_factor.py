"""Two-factor sign-in and sign-in throttling as a client sees them through the gateway:
Basic with a password on the API needs Forgejo's ``X-Forgejo-OTP`` header (401
``invalid provided OTP`` without it), git refuses a password with Forgejo's message
while tokens keep working, failed passwords from one address answer 429 with
``Retry-After`` there and nowhere else, and the operator's ``admin user reset-2fa``."""
from __future__ import annotations

import pyotp
import pytest

from chalicelib import accounts, clock
from chalicelib.local.events import build_event, read_result
from tests.conftest import Response, basic

PASSWORD = "secret-pass-1"
HERE, THERE = "203.0.113.7", "198.51.100.9"
T0 = 1_800_000_000.0


def call(api, method: str, path: str, *, auth=None, token=None, address=HERE,
         headers: dict | None = None, raw: bool = False) -> Response:
    """A request from the client address ``address``."""
    sent = dict(headers or {})
    if auth:
        sent["Authorization"] = basic(*auth)
    if token:
        sent["Authorization"] = f"token {token}"
    target = path if raw else "/api/v1" + path
    event = build_event(method, target, list(sent.items()), None, source_ip=address)
    return Response(*read_result(api.app(event, None)))


def enrol(login: str) -> tuple[str, list[str]]:
    """Two-factor sign-in on for ``login``, through the rules the settings page calls."""
    user = accounts.account_by_name(login)
    enrolment = accounts.start_two_factor(user)
    codes = accounts.enable_two_factor(user, enrolment.sealed,
                                       pyotp.TOTP(enrolment.secret).at(clock.now()))
    return enrolment.secret, codes


@pytest.fixture
def alice(api):
    api.create_user("alice")
    token = api.create_token("alice")
    assert api.post("/user/repos", token=token, json={"name": "proj", "private": True,
                                                      "auto_init": True}).status == 201
    return token


def test_a_password_needs_the_otp_header_once_two_factor_is_on(api, alice):
    with clock.frozen(T0) as now:
        assert call(api, "GET", "/user", auth=("alice", PASSWORD)).status == 200
        secret, _ = enrol("alice")
        now.advance(60)
        refused = call(api, "GET", "/user", auth=("alice", PASSWORD))
        assert refused.status == 401
        assert refused.json["message"] == "invalid provided OTP"
        assert call(api, "GET", "/user", auth=("alice", PASSWORD),
                    headers={"X-Forgejo-OTP": "000000"}).json["message"] == "invalid provided OTP"
        code = pyotp.TOTP(secret).at(clock.now())
        for header in ("X-Forgejo-OTP", "X-Gitea-OTP"):
            found = call(api, "GET", "/user", auth=("alice", PASSWORD), headers={header: code})
            assert found.status == 200 and found.json["login"] == "alice"
        # A wrong password is the usual answer, header or not.
        assert call(api, "GET", "/user", auth=("alice", "nope"), headers={
            "X-Forgejo-OTP": code}).json["message"] == "invalid username, password or token"
        # Tokens are untouched by all of it.
        assert api.get("/user", token=alice).json["login"] == "alice"
        assert api.get("/user", auth=(alice, "")).status == 200          # token as user name


def test_token_creation_with_password_and_otp(api, alice):
    with clock.frozen(T0) as now:
        secret, _ = enrol("alice")
        now.advance(30)
        body = b'{"name": "ci", "scopes": ["read:user"]}'
        event = build_event("POST", "/api/v1/users/alice/tokens", [
            ("Authorization", basic("alice", PASSWORD)), ("Content-Type", "application/json"),
            ("X-Forgejo-OTP", pyotp.TOTP(secret).at(clock.now()))], body, source_ip=HERE)
        made = Response(*read_result(api.app(event, None)))
        assert made.status == 201 and len(made.json["sha1"]) == 40
        assert api.get("/user", token=made.json["sha1"]).status == 200
        event = build_event("POST", "/api/v1/users/alice/tokens", [
            ("Authorization", basic("alice", PASSWORD)), ("Content-Type", "application/json")],
            body.replace(b"ci", b"ci2"), source_ip=HERE)
        assert Response(*read_result(api.app(event, None))).status == 401


def test_git_refuses_a_password_with_forgejo_s_message_and_takes_a_token(api, alice):
    refs = "/alice/proj.git/info/refs?service=git-upload-pack"
    assert call(api, "GET", refs, auth=("alice", PASSWORD), raw=True).status == 200
    secret, _ = enrol("alice")
    refused = call(api, "GET", refs, auth=("alice", PASSWORD), raw=True,
                   headers={"X-Forgejo-OTP": pyotp.TOTP(secret).now()})
    assert refused.status == 401
    assert refused.body.decode().startswith(
        "Users with two-factor authentication enabled cannot perform HTTP/HTTPS operations "
        "via plain username and password. Please create and use a personal access token on "
        "the user settings page")
    assert call(api, "GET", refs, auth=("alice", alice), raw=True).status == 200
    assert call(api, "GET", refs, auth=(alice, "x-oauth-basic"), raw=True).status == 200


def test_wrong_passwords_throttle_that_address_not_the_owner(api, alice):
    for attempt in range(20):
        name = ("alice", "bob", "carol", "nobody")[attempt % 4]
        assert call(api, "GET", "/user", auth=(name, f"guess-{attempt}")).status == 401
    held = call(api, "GET", "/user", auth=("alice", PASSWORD))      # right, but from there
    assert held.status == 429
    assert int(held.headers["retry-after"]) > 0
    assert held.json["message"].startswith("too many failed sign-in attempts")
    assert "url" in held.json                                        # Forgejo's error shape
    # The owner from another address; a token from the held-back one.
    assert call(api, "GET", "/user", auth=("alice", PASSWORD), address=THERE).status == 200
    assert call(api, "GET", "/user", token=alice).status == 200
    assert call(api, "GET", "/user", auth=(alice, "")).status == 200
    # git's Basic from there too: a plain answer git prints.
    refused = call(api, "GET", "/alice/proj.git/info/refs?service=git-upload-pack",
                   auth=("alice", PASSWORD), raw=True)
    assert refused.status == 429 and refused.headers["retry-after"]
    assert refused.body.decode().startswith("too many failed sign-in attempts")


def test_wrong_passwords_for_one_account_hold_back_only_that_pair(api, alice):
    api.create_user("bob")
    for attempt in range(10):
        assert call(api, "GET", "/user", auth=("alice", f"guess-{attempt}")).status == 401
    assert call(api, "GET", "/user", auth=("alice", PASSWORD)).status == 429
    assert call(api, "GET", "/user", auth=("bob", PASSWORD)).status == 200
    assert call(api, "GET", "/user", auth=("alice", PASSWORD), address=THERE).status == 200


def test_wrong_otp_codes_are_failed_sign_ins(api, alice):
    enrol("alice")
    for _ in range(10):
        assert call(api, "GET", "/user", auth=("alice", PASSWORD),
                    headers={"X-Forgejo-OTP": "123456"}).status == 401
    assert call(api, "GET", "/user", auth=("alice", PASSWORD),
                headers={"X-Forgejo-OTP": "123456"}).status == 429


def test_the_operator_resets_a_user_s_two_factor(api, alice, capsys):
    from chalicelib import cli

    enrol("alice")
    assert call(api, "GET", "/user", auth=("alice", PASSWORD)).status == 401
    assert cli.main(["--aws", "admin", "user", "reset-2fa", "--username", "alice"]) == 0
    assert "two-factor authentication removed for alice" in capsys.readouterr().out
    assert call(api, "GET", "/user", auth=("alice", PASSWORD)).status == 200
    assert cli.main(["--aws", "admin", "user", "reset-2fa", "--username", "alice"]) == 1
    assert "not enabled" in capsys.readouterr().err
    assert cli.main(["--aws", "admin", "user", "reset-2fa", "--username", "nobody"]) == 1
    assert "user redirect does not exist" in capsys.readouterr().err


FRESH_PROCESS = r"""
import base64, json, sys
from moto import mock_aws

with mock_aws():
    from chalicelib import aws
    from chalicelib.store import table
    from infra.bootstrap import ensure_resources
    aws.reset_clients(); table.configure(); ensure_resources()
    from chalicelib import accounts
    from chalicelib.accounts.options import CreateAccessTokenOption
    from chalicelib.accounts.service import ensure_admin
    ensure_admin("root", "root-password-1", "root@example.test")
    root = accounts.account_by_name("root")
    _, secret = accounts.create_token(root, "root", CreateAccessTokenOption(name="t", scopes=["all"]))
    from app import app
    from chalicelib.local.events import build_event, read_result
    WATCHED = ("pyotp", "segno", "chalicelib.accounts.two_factor", "chalicelib.accounts.sign_in",
               "chalicelib.accounts.login_throttle", "chalicelib.http.sealing")

    def loaded():
        return sorted(name for name in WATCHED if name in sys.modules)

    before = loaded()
    status = read_result(app(build_event("GET", "/api/v1/user", [
        ("Authorization", "token " + secret)]), None))[0]
    after_token = loaded()
    basic = "Basic " + base64.b64encode(b"root:root-password-1").decode()
    password = read_result(app(build_event("GET", "/api/v1/user", [("Authorization", basic)]),
                               None))[0]
    print(json.dumps({"before": before, "token": status, "after_token": after_token,
                      "password": password, "after_password": loaded()}))
"""


def test_a_token_request_imports_nothing_of_two_factor_or_throttling():
    """The cold-start path of a token request stays as lean as before; a password one
    loads the throttle but not the TOTP library, for an account without a second factor."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("NIMBUS")},
           "NIMBUS__SERVER__ROOT_URL": "http://nimbus.test/",
           "NIMBUS__SECURITY__PASSWORD_HASH_COST": "1024"}
    done = subprocess.run([sys.executable, "-c", FRESH_PROCESS], cwd=root, env=env, text=True,
                          capture_output=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["token"] == 200 and report["password"] == 200
    assert report["before"] == [] and report["after_token"] == []
    assert "chalicelib.accounts.login_throttle" in report["after_password"]
    assert "pyotp" not in report["after_password"] and "segno" not in report["after_password"]
