"""Files pushed with Debian's git-lfs, then read where files show, against the local
runtime under 1 MiB answers (tests/git_transport's LIMITS): /raw answers the pointer,
/media the object (its bytes when small, else a redirect the client follows to the
local S3), and an archive has the objects' bytes."""
from __future__ import annotations

import io
import os
import zipfile

import httpx

from tests.git_transport.test_git_http import TIMEOUT, git
from tests.git_transport.test_git_streaming import MB, enforced, remote
from tests.lfs.git_support import lfs_work_tree, needs_git_lfs, new_repo

pytestmark = needs_git_lfs


def test_pushed_lfs_files_in_raw_media_and_archives(server, env, tmp_path):
    new_repo(server, "shown")
    work = tmp_path / "work"
    big, small = os.urandom(2 * MB), os.urandom(1000)
    lfs_work_tree(env, work, {"big.bin": big, "small.bin": small}, "media")
    with enforced():
        git(env, "push", remote(server, "shown"), "main", cwd=work)
        api = f"{server.url}/api/v1/repos/alice/shown"
        with httpx.Client(timeout=TIMEOUT) as client:
            raw = client.get(f"{api}/raw/small.bin")
            assert raw.status_code == 200 and raw.content.startswith(b"version https://")
            assert client.get(f"{api}/media/small.bin").content == small
            page = client.get(f"{server.url}/alice/shown/media/branch/main/small.bin")
            assert page.content == small
            # 2 MB is more than a 1 MiB answer carries: a redirect to S3, followed.
            moved = client.get(f"{api}/media/big.bin")
            assert moved.status_code == 302, moved
            assert client.get(f"{api}/media/big.bin", follow_redirects=True).content == big
            archive = client.get(f"{api}/archive/main.zip", follow_redirects=True)
            assert archive.status_code == 200, archive
    with zipfile.ZipFile(io.BytesIO(archive.content)) as zf:
        assert zf.read("shown/big.bin") == big and zf.read("shown/small.bin") == small
