"""A migration with ``lfs`` end to end: Debian's git-lfs pushes a repository with LFS
files to the local runtime, the runtime migrates it from itself (its own git and LFS
server as the remote, the endpoint derived from the clone address, the credentials
sent as git sends them), and a fresh clone of the copy gets the files byte-identical.

The runtime enforces AWS's payload limits at 1 MiB and the big file is 3 MB: the
migration's downloads come from the remote's presigned URLs, and the clone's too.
"""
from __future__ import annotations

import os

import httpx

from tests.git_transport.test_git_http import TIMEOUT, git
from tests.git_transport.test_git_streaming import MB, enforced, remote
from tests.lfs.git_support import digest, lfs_work_tree, needs_git_lfs, new_repo

pytestmark = needs_git_lfs
# The runtime migrates from itself, on 127.0.0.1: local networks allowed.
RUNTIME_SETTINGS = {"NIMBUS__MIGRATIONS__ALLOW_LOCALNETWORKS": "true"}
RUNTIME_USERS = ("alice",)


def test_a_migrated_repository_serves_its_lfs_files(server, env, tmp_path):
    new_repo(server, "source", private=True)
    work = tmp_path / "work"
    lfs_work_tree(env, work, {"big.bin": os.urandom(3 * MB), "small.bin": os.urandom(1000),
                              "README": b"not in LFS\n"}, "media")
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
