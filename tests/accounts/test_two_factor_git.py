"""The real git CLI against the local runtime for a user with two-factor sign-in: a clone
with the password is refused (Forgejo's answer: use a token), with a token it works, and
the password works again once a site admin's reset removed the second factor."""
from __future__ import annotations

import httpx
import pyotp
import pytest

from chalicelib.local.runtime import LocalRuntime
from tests.git_cli import git_home_env
from tests.git_cli import run_git as git

PASSWORD = "alice-password"
TIMEOUT = 60


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with LocalRuntime(port=0, data_dir=tmp_path_factory.mktemp("git-2fa"),
                      access_log=False) as runtime:
        from chalicelib import accounts
        from chalicelib.accounts.service import ensure_admin

        ensure_admin("boss", "boss-password", "boss@example.com")
        api = f"{runtime.url}/api/v1"
        made = httpx.post(f"{api}/admin/users", auth=("boss", "boss-password"), timeout=TIMEOUT,
                          json={"username": "alice", "email": "alice@example.com",
                                "password": PASSWORD, "must_change_password": False})
        assert made.status_code == 201, made.text
        runtime.token = httpx.post(f"{api}/users/alice/tokens", auth=("alice", PASSWORD),
                                   json={"name": "git", "scopes": ["all"]},
                                   timeout=TIMEOUT).json()["sha1"]
        assert httpx.post(f"{api}/user/repos", headers={"Authorization": f"token {runtime.token}"},
                          json={"name": "proj", "private": True, "auto_init": True},
                          timeout=TIMEOUT).status_code == 201
        alice = accounts.account_by_name("alice")
        enrolment = accounts.start_two_factor(alice)
        accounts.enable_two_factor(alice, enrolment.sealed, pyotp.TOTP(enrolment.secret).now())
        yield runtime


def _url(server, secret: str) -> str:
    return f"http://alice:{secret}@{server.url.split('://', 1)[1]}/alice/proj.git"


def test_clone_with_the_password_is_refused_and_with_a_token_works(server, tmp_path):
    env = git_home_env(tmp_path)
    refused = git(env, "clone", "-q", _url(server, PASSWORD), str(tmp_path / "by-password"),
                  check=False)
    assert refused.returncode != 0, refused
    # git prints the answer's text to the user, then gives up.
    assert "remote: Users with two-factor authentication enabled cannot perform HTTP/HTTPS " \
        "operations via plain username and password. Please create and use a personal " \
        "access token on the user settings page" in refused.stderr
    assert "Authentication failed" in refused.stderr
    assert not (tmp_path / "by-password" / "README.md").exists()
    git(env, "clone", "-q", _url(server, server.token), str(tmp_path / "by-token"))
    assert (tmp_path / "by-token" / "README.md").is_file()
    answer = httpx.get(f"{server.url}/alice/proj.git/info/refs?service=git-upload-pack",
                       auth=("alice", PASSWORD), timeout=TIMEOUT)
    assert answer.status_code == 401
    assert answer.text.startswith("Users with two-factor authentication enabled cannot "
                                  "perform HTTP/HTTPS operations via plain username and password")


def test_after_a_reset_the_password_clones_again(server, tmp_path):
    from chalicelib import accounts

    accounts.reset_two_factor(None, "alice")
    env = git_home_env(tmp_path)
    git(env, "clone", "-q", _url(server, PASSWORD), str(tmp_path / "again"))
    assert (tmp_path / "again" / "README.md").is_file()
