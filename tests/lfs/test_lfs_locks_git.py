"""Debian's git-lfs against the local runtime, locking: ``git lfs lock`` as alice, eve
(a collaborator with write access) changes the locked file and her push is refused,
first by git-lfs itself (it asks ``locks/verify`` before pushing), then, with the
client's check switched off (``lfs.locksverify=false``), by the server's pre-receive
refusal; ``git lfs locks`` lists the lock, and after ``git lfs unlock`` eve's push
goes through."""
from __future__ import annotations

import os

import httpx

from tests.git_transport.test_git_http import TIMEOUT, git
from tests.lfs.git_support import lfs_work_tree, needs_git_lfs

pytestmark = needs_git_lfs


def url_of(server, user: str, name: str) -> str:
    host = server.url.split("://", 1)[1]
    return f"http://{user}:{server.tokens[user]}@{host}/alice/{name}.git"


def api(server, method: str, path: str, **kw) -> httpx.Response:
    return httpx.request(method, f"{server.url}/api/v1{path}", timeout=TIMEOUT,
                         headers={"Authorization": f"token {server.tokens['alice']}"}, **kw)


def shared_repo(server, env, tmp_path, name: str):
    """alice's repository ``name`` with eve as a writer, f.bin and g.bin pushed from
    alice's work tree (returned)."""
    api(server, "POST", "/user/repos", json={"name": name}).raise_for_status()
    api(server, "PUT", f"/repos/alice/{name}/collaborators/eve",
        json={"permission": "write"}).raise_for_status()
    mine = tmp_path / "alice"
    lfs_work_tree(env, mine, {"f.bin": os.urandom(2000), "g.bin": os.urandom(2000)}, "assets")
    git(env, "remote", "add", "origin", url_of(server, "alice", name), cwd=mine)
    git(env, "push", "-q", "origin", "main", cwd=mine)
    return mine


def test_a_locked_file_cannot_be_pushed_by_another_user_until_unlocked(server, env, tmp_path):
    mine = shared_repo(server, env, tmp_path, "game")

    locked = git(env, "lfs", "lock", "f.bin", cwd=mine)
    assert "Locked f.bin" in locked.stdout + locked.stderr, locked

    theirs = tmp_path / "eve"
    git(env, "clone", "-q", url_of(server, "eve", "game"), str(theirs))
    listed = git(env, "lfs", "locks", cwd=theirs).stdout
    assert "f.bin" in listed and "alice" in listed, listed
    (theirs / "f.bin").write_bytes(os.urandom(2100))
    git(env, "commit", "-q", "-am", "eve's version", cwd=theirs)

    # git-lfs refuses on its own: locks/verify names f.bin among "theirs".
    by_client = git(env, "push", "origin", "main", cwd=theirs, check=False)
    assert by_client.returncode != 0, by_client
    assert "f.bin" in by_client.stderr and "lock" in by_client.stderr.lower(), by_client.stderr

    # Past the client's check, the server refuses the ref update itself.
    by_server = git(env, "-c", "lfs.locksverify=false", "push", "origin", "main",
                    cwd=theirs, check=False)
    assert by_server.returncode != 0, by_server
    assert "f.bin is locked by alice" in by_server.stderr, by_server.stderr
    heads = api(server, "GET", "/repos/alice/game/branches/main").json()
    assert heads["commit"]["id"] == git(env, "rev-parse", "HEAD", cwd=mine).stdout.strip()

    # A branch that changes another file only is not held back by the lock (the server
    # compares the locked path's blob between the branch's old and new tips).
    git(env, "checkout", "-q", "-b", "other", "origin/main", cwd=theirs)
    (theirs / "g.bin").write_bytes(os.urandom(2200))
    git(env, "commit", "-q", "-am", "g only", cwd=theirs)
    free = git(env, "-c", "lfs.locksverify=false", "push", "origin", "other", cwd=theirs,
               check=False)
    assert free.returncode == 0, free.stderr

    unlocked = git(env, "lfs", "unlock", "f.bin", cwd=mine)
    assert "Unlocked f.bin" in unlocked.stdout + unlocked.stderr, unlocked
    assert "f.bin" not in git(env, "lfs", "locks", cwd=theirs).stdout
    git(env, "checkout", "-q", "main", cwd=theirs)
    done = git(env, "push", "origin", "main", cwd=theirs, check=False)
    assert done.returncode == 0, done.stderr


def test_the_lock_holder_pushes_freely(server, env, tmp_path):
    api(server, "POST", "/user/repos", json={"name": "solo"}).raise_for_status()
    mine = tmp_path / "alice"
    lfs_work_tree(env, mine, {"f.bin": os.urandom(1000)}, "one")
    git(env, "remote", "add", "origin", url_of(server, "alice", "solo"), cwd=mine)
    git(env, "push", "-q", "origin", "main", cwd=mine)
    git(env, "lfs", "lock", "f.bin", cwd=mine)
    (mine / "f.bin").write_bytes(os.urandom(1100))
    git(env, "commit", "-q", "-am", "two", cwd=mine)
    pushed = git(env, "push", "origin", "main", cwd=mine, check=False)
    assert pushed.returncode == 0, pushed.stderr


def test_a_branch_brought_up_to_date_with_the_lock_holders_change_is_no_edit(server, env,
                                                                            tmp_path):
    """alice locks f.bin and changes it on main; eve merges main into her branch (which
    changed g.bin only): her push carries alice's f.bin, as main has it, and goes
    through; a change of her own to f.bin would not."""
    mine = shared_repo(server, env, tmp_path, "merged")
    theirs = tmp_path / "eve"
    git(env, "clone", "-q", url_of(server, "eve", "merged"), str(theirs))
    git(env, "checkout", "-q", "-b", "topic", cwd=theirs)
    (theirs / "g.bin").write_bytes(os.urandom(1200))
    git(env, "commit", "-q", "-am", "g", cwd=theirs)
    git(env, "push", "-q", "origin", "topic", cwd=theirs)

    git(env, "lfs", "lock", "f.bin", cwd=mine)
    (mine / "f.bin").write_bytes(os.urandom(1300))
    git(env, "commit", "-q", "-am", "alice's f", cwd=mine)
    git(env, "push", "-q", "origin", "main", cwd=mine)

    git(env, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main", cwd=theirs)
    merged = git(env, "-c", "lfs.locksverify=false", "push", "origin", "topic", cwd=theirs,
                 check=False)
    assert merged.returncode == 0, merged.stderr
    (theirs / "f.bin").write_bytes(os.urandom(1400))
    git(env, "commit", "-q", "-am", "eve's f", cwd=theirs)
    edited = git(env, "-c", "lfs.locksverify=false", "push", "origin", "topic", cwd=theirs,
                 check=False)
    assert edited.returncode != 0 and "f.bin is locked by alice" in edited.stderr, edited.stderr
