"""What a fetch leaves behind in the process serving it (bench/large_repos.py measures
the peaks; these check the mechanisms).

* Streamed answers leave the streaming handler in bounded, non-empty chunks, whatever
  the pack produced: the transports copy each chunk to frame it, and an empty chunk
  would end an HTTP chunked body early.
* A fetch closes the repository it opened: a pack read whole is a memory map of its
  file, which otherwise stays mapped until a cyclic garbage collection.
"""
from __future__ import annotations

import gc
import os
from pathlib import Path

import httpx
import pytest

from chalicelib.streaming.handler import CHUNK_SIZE, bounded
from tests.git_transport.test_git_http import TIMEOUT, git, git_env  # noqa: F401 - git_env: a fixture
from tests.pulls.test_pulls_git import runtime_with_users


def test_long_chunks_are_cut_and_short_ones_pass_as_they_are():
    small, big, edge = b"PACK....", os.urandom(3 * CHUNK_SIZE + 17), os.urandom(CHUNK_SIZE)
    out = list(bounded(iter([small, b"", big, edge, b""])))
    assert out[0] is small and out[-1] is edge
    assert [len(chunk) for chunk in out[1:-1]] == [CHUNK_SIZE] * 3 + [17]
    assert b"".join(out) == small + big + edge


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with runtime_with_users(tmp_path_factory.mktemp("clone-memory"), {},
                            events=False) as runtime:
        yield runtime


def new_repo(server, name: str) -> str:
    """Create alice's repository ``name``; its git URL with her token."""
    httpx.post(f"{server.url}/api/v1/user/repos", json={"name": name},
               headers={"Authorization": f"token {server.token}"},
               timeout=TIMEOUT).raise_for_status()
    return f"http://alice:{server.token}@{server.url.split('://', 1)[1]}/alice/{name}.git"


def mapped_packs() -> list[str]:
    return [line.split()[-1] for line in Path("/proc/self/maps").read_text().splitlines()
            if line.split()[-1].endswith(".pack")]


@pytest.mark.parametrize("version", ["0", "2"])
def test_fetches_leave_no_pack_mapped(server, git_env, tmp_path, version):  # noqa: F811
    remote = new_repo(server, f"mapped-v{version}")
    work = tmp_path / "work"
    git(git_env, "init", "-q", str(work))
    for i in range(3):
        (work / "data.bin").write_bytes(os.urandom(200_000))
        git(git_env, "add", ".", cwd=work)
        git(git_env, "commit", "-q", "-m", f"step {i}", cwd=work)
    git(git_env, "push", "-q", remote, "main", cwd=work)
    clone = tmp_path / "clone"
    gc.collect()
    gc.disable()   # what a collection would release must already be released
    try:
        # Shallow fetches build their packs from the stored one, read whole.
        git(git_env, "-c", f"protocol.version={version}", "clone", "-q", "--depth=1",
            remote, str(clone))
        git(git_env, "-c", f"protocol.version={version}", "fetch", "-q", "--depth=2",
            cwd=clone)
        assert mapped_packs() == []
    finally:
        gc.enable()
    git(git_env, "fsck", "--strict", cwd=clone)
    assert git(git_env, "rev-list", "--count", "HEAD", cwd=clone).stdout.strip() == "2"


@pytest.mark.parametrize("version", ["0", "2"])
def test_a_built_pack_of_a_blob_bigger_than_a_piece_is_what_git_wants(
        server, git_env, tmp_path, version):  # noqa: F811
    """A shallow clone's pack is built, not reused: the stored entry of a 6 MB blob goes
    out copied piece by piece, through either protocol's framing.  (Its memory is
    measured in test_pack_writer.py, in process: here the local HTTP server's own
    buffers would count, werkzeug reading what is left of a request in 10 MB reads.)"""
    size = 6_000_000
    remote = new_repo(server, f"big-blob-v{version}")
    work = tmp_path / "work"
    git(git_env, "init", "-q", str(work))
    blob = os.urandom(size)
    (work / "big.bin").write_bytes(blob)
    git(git_env, "add", ".", cwd=work)
    git(git_env, "commit", "-q", "-m", "big", cwd=work)
    (work / "small.txt").write_text("small\n")
    git(git_env, "add", ".", cwd=work)
    git(git_env, "commit", "-q", "-m", "small", cwd=work)
    git(git_env, "push", "-q", remote, "main", cwd=work)
    clone = tmp_path / "clone"
    git(git_env, "-c", f"protocol.version={version}", "clone", "-q", "--depth=1",
        remote, str(clone))
    git(git_env, "fsck", "--strict", cwd=clone)
    assert (clone / "big.bin").read_bytes() == blob
    assert git(git_env, "rev-list", "--count", "HEAD", cwd=clone).stdout.strip() == "1"
