"""Tags against the local runtime with the real git CLI: an annotated tag made through
the API arrives with ``git fetch --tags``, signed by the instance key (``git
verify-tag``, ``git fsck``); tags pushed with git appear in the API's list; a tag
deleted through the API is gone from ``git ls-remote``."""
from __future__ import annotations

import shutil
import subprocess

import httpx
import pytest

from tests.environment import settings_env
from tests.git_transport.test_git_http import TIMEOUT, git, git_env  # noqa: F401 - git_env: a fixture
# The same runtime set-up (alice with a token; module-scoped, one per module).
from tests.pulls.test_pulls_git import call, remote, server  # noqa: F401 - server: a fixture

SIGN_CRUD = "NIMBUS__REPOSITORY_0X2E_SIGNING__CRUD_ACTIONS"


@pytest.fixture(scope="module")
def signing_server(server):  # noqa: F811 - the imported fixture
    """The runtime, with the instance signing what it writes for API calls."""
    with settings_env({SIGN_CRUD: "always"}):
        yield server


@pytest.fixture
def env(git_env, tmp_path):  # noqa: F811 - the imported fixture
    (tmp_path / "gnupg").mkdir(mode=0o700)
    return {**git_env, "GNUPGHOME": str(tmp_path / "gnupg")}


def tag_names(runtime) -> list[str]:
    r = call(runtime, "GET", "/repos/alice/tags/tags")
    assert r.status_code == 200, r.text
    return [t["name"] for t in r.json()]


def test_api_tags_reach_git_signed_and_pushed_tags_reach_the_api(signing_server, env,
                                                                  tmp_path):
    runtime = signing_server
    assert call(runtime, "POST", "/user/repos",
                json={"name": "tags", "auto_init": True}).status_code == 201
    made = call(runtime, "POST", "/repos/alice/tags/tags",
                json={"tag_name": "v1.0", "message": "First release\n\nNotes.\n"})
    assert made.status_code == 201, made.text
    light = call(runtime, "POST", "/repos/alice/tags/tags", json={"tag_name": "light"})
    assert light.status_code == 201, light.text

    work = tmp_path / "work"
    git(env, "clone", "-q", remote(runtime, "tags"), str(work))
    git(env, "fetch", "-q", "--tags", cwd=work)
    assert set(git(env, "tag", "-l", cwd=work).stdout.split()) == {"v1.0", "light"}
    head = git(env, "rev-parse", "HEAD", cwd=work).stdout.strip()
    assert git(env, "rev-parse", "v1.0", cwd=work).stdout.strip() == made.json()["id"]
    assert git(env, "rev-parse", "v1.0^{commit}", cwd=work).stdout.strip() == head
    assert made.json()["commit"]["sha"] == head
    assert git(env, "rev-parse", "light", cwd=work).stdout.strip() == head == light.json()["id"]
    raw = git(env, "cat-file", "tag", "v1.0", cwd=work).stdout
    assert "\ntag v1.0\ntagger alice <alice@example.com> " in raw
    assert "First release\n\nNotes.\n-----BEGIN PGP SIGNATURE-----" in raw
    git(env, "fsck", "--strict", "--no-dangling", cwd=work)
    if shutil.which("gpg"):
        key = httpx.get(f"{runtime.url}/api/v1/signing-key.gpg", timeout=TIMEOUT).content
        done = subprocess.run(["gpg", "--batch", "--import"], input=key, env=env,
                              capture_output=True, timeout=60)
        assert done.returncode == 0, done.stderr
        done = git(env, "verify-tag", "v1.0", cwd=work, check=False)
        assert done.returncode == 0 and "Good signature" in done.stderr, done.stderr

    # Tags pushed with git: an annotated one and a lightweight one, listed by the API.
    git(env, "tag", "-a", "pushed/annotated", "-m", "From git", cwd=work)
    git(env, "tag", "pushed-light", "HEAD", cwd=work)
    git(env, "push", "-q", "origin", "--tags", cwd=work)
    assert set(tag_names(runtime)) == {"v1.0", "light", "pushed/annotated", "pushed-light"}
    pushed = call(runtime, "GET", "/repos/alice/tags/tags/pushed/annotated").json()
    assert pushed["id"] == git(env, "rev-parse", "pushed/annotated", cwd=work).stdout.strip()
    assert pushed["message"] == "From git" and pushed["commit"]["sha"] == head

    # Deleted through the API: gone for git too.
    assert call(runtime, "DELETE", "/repos/alice/tags/tags/pushed-light").status_code == 204
    remote_tags = git(env, "ls-remote", "--tags", "origin", cwd=work).stdout
    assert "refs/tags/pushed-light" not in remote_tags and "refs/tags/v1.0" in remote_tags
