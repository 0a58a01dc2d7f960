"""The contents API against the local runtime with the real git CLI: files created,
updated and deleted through the API arrive in a clone's ``git pull`` as exactly those
commits, signed by the instance where its rules say so (``git verify-commit``), and
``git fsck`` finds nothing wrong."""
from __future__ import annotations

import base64

from tests.git_transport.test_git_http import git, git_env  # noqa: F401 - git_env: env's fixture
# The same runtime set-up (alice with a token; module-scoped, one per module).
from tests.pulls.test_pulls_git import assert_signed, call, env, server  # noqa: F401 - fixtures


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_api_commits_arrive_in_git_pull(server, env, tmp_path):  # noqa: F811
    """The fixture's signing rules have the instance sign API commits (CRUD_ACTIONS)."""
    assert call(server, "POST", "/user/repos",
                json={"name": "files", "auto_init": True}).status_code == 201
    host = server.url.split("://", 1)[1]
    url = f"http://alice:{server.token}@{host}/alice/files.git"
    work = tmp_path / "work"
    git(env, "clone", "-q", url, str(work))
    start = git(env, "rev-parse", "HEAD", cwd=work).stdout.strip()
    R = "/repos/alice/files/contents"
    made = call(server, "POST", f"{R}/dir/new file.txt", json={"content": b64("one\n")})
    assert made.status_code == 201, made.text
    updated = call(server, "PUT", f"{R}/dir/new file.txt", json={
        "content": b64("two\n"), "sha": made.json()["content"]["sha"], "message": "second"})
    assert updated.status_code == 200, updated.text
    readme = call(server, "GET", f"{R}/README.md").json()["sha"]
    deleted = call(server, "DELETE", f"{R}/README.md", json={"sha": readme})
    assert deleted.status_code == 200, deleted.text
    git(env, "pull", "-q", "--ff-only", cwd=work)
    log = git(env, "log", "--format=%H %s", f"{start}..HEAD", cwd=work).stdout.split("\n")
    assert [line for line in log if line] == [
        f"{deleted.json()['commit']['sha']} Delete 'README.md'",
        f"{updated.json()['commit']['sha']} second",
        f"{made.json()['commit']['sha']} Add 'dir/new file.txt'"]
    assert (work / "dir" / "new file.txt").read_text() == "two\n"
    for written in (made, updated, deleted):
        assert_signed(server, env, work, written.json()["commit"]["sha"])
    assert not (work / "README.md").exists()
    git(env, "fsck", "--strict", cwd=work)
