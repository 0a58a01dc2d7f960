"""Debian's git-lfs against the local runtime: ``git lfs track``, commit, push, a fresh
clone with byte-identical files, ``git lfs fsck`` clean.

The runtime enforces AWS's payload limits at 1 MiB (tests/git_transport's LIMITS), and
the file is 3 MB: the push and the clone can only succeed because the bytes go to S3
through the presigned URLs, never through the service.  (The issue's 50 and 200 MB
files are a manual run: the same test with a bigger file.)
"""
from __future__ import annotations

import os

import httpx

from tests.git_transport.test_git_http import TIMEOUT, git
from tests.git_transport.test_git_streaming import MB, enforced, remote
from tests.lfs.git_support import digest, lfs_work_tree, needs_git_lfs, new_repo

pytestmark = needs_git_lfs
MEDIA = "application/vnd.git-lfs+json"


def test_push_then_fresh_clone_gets_the_lfs_files(server, env, tmp_path):
    new_repo(server, "media", private=True)
    work = tmp_path / "work"
    lfs_work_tree(env, work, {"big.bin": os.urandom(3 * MB), "small.bin": os.urandom(1000),
                              "README": b"not in LFS\n"}, "media")
    # In git: pointers, not the bytes.
    assert git(env, "cat-file", "-p", "HEAD:big.bin", cwd=work).stdout.startswith(
        "version https://git-lfs.github.com/spec/v1\n")
    with enforced():
        pushed = git(env, "push", remote(server, "media"), "main", cwd=work)
        assert "main -> main" in pushed.stderr, pushed.stderr
        # Both objects were verified: the server offers them for download.
        answer = httpx.post(
            f"{server.url}/alice/media.git/info/lfs/objects/batch", timeout=TIMEOUT,
            headers={"Authorization": f"token {server.token}", "Content-Type": MEDIA},
            json={"operation": "download", "objects": [
                {"oid": digest(work / name), "size": (work / name).stat().st_size}
                for name in ("big.bin", "small.bin")]}).json()
        assert all("download" in found["actions"] for found in answer["objects"]), answer
        clone = tmp_path / "clone"
        git(env, "clone", "-q", remote(server, "media"), str(clone))
    for name in ("big.bin", "small.bin", "README"):
        assert digest(clone / name) == digest(work / name), name
    listed = git(env, "lfs", "ls-files", cwd=clone).stdout
    assert "big.bin" in listed and "small.bin" in listed and "README" not in listed
    fsck = git(env, "lfs", "fsck", cwd=clone, check=False)
    assert fsck.returncode == 0 and "Git LFS fsck OK" in fsck.stdout, fsck


def test_a_reader_cannot_push_lfs_objects(server, env, tmp_path):
    new_repo(server, "guarded")
    work = tmp_path / "work"
    lfs_work_tree(env, work, {"x.bin": os.urandom(2000)})
    host = server.url.split("://", 1)[1]
    stranger = f"http://eve:{server.tokens['eve']}@{host}/alice/guarded.git"
    git(env, "remote", "add", "stranger", stranger, cwd=work)
    # The objects alone (git push would be refused by receive-pack before its hook).
    refused = git(env, "lfs", "push", "stranger", "main", cwd=work, check=False)
    assert refused.returncode != 0
    assert "may read but not push" in refused.stderr, refused.stderr


def test_a_push_whose_lfs_objects_were_never_uploaded_is_refused(server, env, tmp_path):
    new_repo(server, "skipped")
    work = tmp_path / "work"
    lfs_work_tree(env, work, {"x.bin": os.urandom(5000)})
    # The pre-push hook skipped (as a client without git-lfs would): only pointers go.
    skipped = {**env, "GIT_LFS_SKIP_PUSH": "1"}
    refused = git(skipped, "push", remote(server, "skipped"), "main", cwd=work, check=False)
    assert refused.returncode != 0
    assert "not stored here" in refused.stderr and digest(work / "x.bin") in refused.stderr, \
        refused.stderr
    assert "pre-receive hook declined" in refused.stderr
    # With the objects uploaded, the same push goes through.
    accepted = git(env, "push", remote(server, "skipped"), "main", cwd=work)
    assert "main -> main" in accepted.stderr, accepted.stderr
