"""Helpers of the git-lfs end-to-end tests (the fixtures are in conftest.py)."""
from __future__ import annotations

import hashlib
import shutil

import httpx
import pytest

from tests.git_transport.test_git_http import TIMEOUT, git

needs_git_lfs = pytest.mark.skipif(shutil.which("git-lfs") is None,
                                   reason="Debian's git-lfs is not installed (`make git-lfs`)")


def new_repo(server, name, **options):
    httpx.post(f"{server.url}/api/v1/user/repos", json={"name": name, **options},
               headers={"Authorization": f"token {server.token}"},
               timeout=TIMEOUT).raise_for_status()


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def lfs_work_tree(env, work, files: dict[str, bytes], message: str = "files") -> None:
    """A new repository at ``work`` whose ``*.bin`` files are LFS files, ``files``
    committed."""
    git(env, "init", "-q", str(work))
    git(env, "lfs", "track", "*.bin", cwd=work)
    for name, data in files.items():
        (work / name).write_bytes(data)
    git(env, "add", ".", cwd=work)
    git(env, "commit", "-q", "-m", message, cwd=work)
