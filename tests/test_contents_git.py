"""The contents API against the local runtime with the real git CLI: files created,
updated and deleted through the API arrive in a clone's ``git pull`` as exactly those
commits, and ``git fsck`` finds nothing wrong."""
from __future__ import annotations

import base64

from tests.test_git_http import git, git_env  # noqa: F401 - git_env: a fixture
# The same runtime set-up (alice with a token; module-scoped, one per module).
from tests.test_pulls_git import call, server  # noqa: F401 - server: a fixture


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_api_commits_arrive_in_git_pull(server, git_env, tmp_path):  # noqa: F811
    assert call(server, "POST", "/user/repos",
                json={"name": "files", "auto_init": True}).status_code == 201
    host = server.url.split("://", 1)[1]
    url = f"http://alice:{server.token}@{host}/alice/files.git"
    work = tmp_path / "work"
    git(git_env, "clone", "-q", url, str(work))
    start = git(git_env, "rev-parse", "HEAD", cwd=work).stdout.strip()
    R = "/repos/alice/files/contents"
    made = call(server, "POST", f"{R}/dir/new file.txt", json={"content": b64("one\n")})
    assert made.status_code == 201, made.text
    updated = call(server, "PUT", f"{R}/dir/new file.txt", json={
        "content": b64("two\n"), "sha": made.json()["content"]["sha"], "message": "second"})
    assert updated.status_code == 200, updated.text
    readme = call(server, "GET", f"{R}/README.md").json()["sha"]
    deleted = call(server, "DELETE", f"{R}/README.md", json={"sha": readme})
    assert deleted.status_code == 200, deleted.text
    git(git_env, "pull", "-q", "--ff-only", cwd=work)
    log = git(git_env, "log", "--format=%H %s", f"{start}..HEAD", cwd=work).stdout.split("\n")
    assert [line for line in log if line] == [
        f"{deleted.json()['commit']['sha']} Delete 'README.md'",
        f"{updated.json()['commit']['sha']} second",
        f"{made.json()['commit']['sha']} Add 'dir/new file.txt'"]
    assert (work / "dir" / "new file.txt").read_text() == "two\n"
    assert not (work / "README.md").exists()
    git(git_env, "fsck", "--strict", cwd=work)
