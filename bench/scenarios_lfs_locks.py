"""Git LFS locking scenarios for bench/aws_calls.py (imported there), in a repository
of their own: a push to one without locks (``gitReceivePack``, alice/demo) must read
none, and does not, whatever these scenarios lock.

Each call costs the gateway's two preload rounds (token and repository, then caller,
owner and access).  Then: a create, the path's claim (consistent GetItem), the id
block's counter now and then, one transaction (lock, claim, count); a page of the list
or of verify, one Query and one BatchGetItem for the owners' current logins (none
when the caller owns them all: read with the preload); an unlock, the lock (GetItem)
and one transaction.
"""
from __future__ import annotations

import json

from scene import Req, Scene

MEDIA = "application/vnd.git-lfs+json"
LOCKED = 3      # locks in the repository when the list and verify are measured


def _locks(s: Scene) -> str:
    return f"/alice/{s.once('lfs_lock_repo', lambda: s.new_repo(auto_init=True))}.git/info/lfs/locks"


def _lock(s: Scene, path: str) -> str:
    status, out = s.call("POST", _locks(s), "token", data=json.dumps({"path": path}).encode(),
                         content_type=MEDIA)
    assert status == 201, (status, out[:200], s.errors.last)
    return json.loads(out)["lock"]["id"]


def _held(s: Scene) -> list[str]:
    return s.once("lfs_locks_held", lambda: [_lock(s, f"held/{i}.bin") for i in range(LOCKED)])


def _post(s: Scene, path: str, body: dict, expect: int, expect_body: bytes) -> Req:
    return Req("POST", path, "token", data=json.dumps(body).encode(), content_type=MEDIA,
               expect=expect, expect_body=expect_body)


def create_request(s: Scene) -> list[Req]:
    _held(s)
    return [_post(s, _locks(s), {"path": s.unique("new/") + ".bin",
                                 "ref": {"name": "refs/heads/main"}}, 201, b'"lock"')]


def list_request(s: Scene) -> list[Req]:
    _held(s)
    return [Req("GET", _locks(s), "token", expect_body=b'"held/')]


def verify_request(s: Scene) -> list[Req]:
    _held(s)
    return [_post(s, f"{_locks(s)}/verify", {"ref": {"name": "refs/heads/main"}}, 200,
                  b'"ours"')]


def unlock_request(s: Scene) -> list[Req]:
    lock_id = _lock(s, s.unique("gone/") + ".bin")
    return [_post(s, f"{_locks(s)}/{lock_id}/unlock", {"force": False}, 200, b'"lock"')]


def scenarios() -> dict:
    return {"lfsCreateLock": create_request, "lfsListLocks": list_request,
            "lfsVerifyLocks": verify_request, "lfsUnlock": unlock_request}


BUDGETS = {
    # The preload, the claim, one transaction; plus the id counter once every 16 locks
    # a process makes (measured: 4).
    ("lfsCreateLock", "token"): 5,
    # The preload and one Query; plus one BatchGetItem when other users own locks on the
    # page (measured with the caller's own: 3).
    ("lfsListLocks", "token"): 4,
    ("lfsVerifyLocks", "token"): 4,
    # The preload, the lock, one transaction.
    ("lfsUnlock", "token"): 4,
    # A push to a repository without locks reads no lock (Repo.lfs_locks is 0): what a
    # push cost before locks existed.
    ("gitReceivePack", "token"): 8,
}
