"""A migration with ``lfs`` end to end: Debian's git-lfs pushes a repository with LFS
files to the local runtime, the runtime migrates it from itself (its own git and LFS
server as the remote, the endpoint derived from the clone address, the credentials
sent as git sends them), and a fresh clone of the copy gets the files byte-identical.

The runtime enforces AWS's payload limits at 1 MiB and the big file is 3 MB: the
migration's downloads come from the remote's presigned URLs, and the clone's too.
"""
from __future__ import annotations

import os
import shutil

import httpx
import pytest

from chalicelib.settings import ServerSettings
from tests.git_transport.test_git_http import TIMEOUT, git, git_env  # noqa: F401 - git_env: a fixture
from tests.git_transport.test_git_streaming import LIMITS, MB, enforced, remote
from tests.lfs.test_lfs_git import digest, env, new_repo  # noqa: F401 - env: a fixture
from tests.pulls.test_pulls_git import runtime_with_users

pytestmark = pytest.mark.skipif(shutil.which("git-lfs") is None,
                                reason="Debian's git-lfs is not installed (`make git-lfs`)")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # The runtime migrates from itself, on 127.0.0.1: local networks allowed.
    settings = {**LIMITS, "NIMBUS__SERVER__ROOT_URL": ServerSettings().ROOT_URL,
                "NIMBUS__MIGRATIONS__ALLOW_LOCALNETWORKS": "true"}
    with runtime_with_users(tmp_path_factory.mktemp("lfs-migrate"), settings,
                            users=("alice",), events=False) as runtime:
        yield runtime


def test_a_migrated_repository_serves_its_lfs_files(server, env, tmp_path):  # noqa: F811
    new_repo(server, "source", private=True)
    work = tmp_path / "work"
    git(env, "init", "-q", str(work))
    git(env, "lfs", "track", "*.bin", cwd=work)
    (work / "big.bin").write_bytes(os.urandom(3 * MB))
    (work / "small.bin").write_bytes(os.urandom(1000))
    (work / "README").write_text("not in LFS\n")
    git(env, "add", ".", cwd=work)
    git(env, "commit", "-q", "-m", "media", cwd=work)
    with enforced():
        git(env, "push", remote(server, "source"), "main", cwd=work)
        migrated = httpx.post(
            f"{server.url}/api/v1/repos/migrate", timeout=TIMEOUT,
            headers={"Authorization": f"token {server.token}"},
            json={"clone_addr": f"{server.url}/alice/source.git", "repo_name": "copy",
                  "auth_token": server.token, "private": True, "lfs": True})
        assert migrated.status_code == 201, migrated.text
        clone = tmp_path / "clone"
        git(env, "clone", "-q", remote(server, "copy"), str(clone))
    for name in ("big.bin", "small.bin", "README"):
        assert digest(clone / name) == digest(work / name), name
    fsck = git(env, "lfs", "fsck", cwd=clone, check=False)
    assert fsck.returncode == 0 and "Git LFS fsck OK" in fsck.stdout, fsck
