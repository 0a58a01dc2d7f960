"""The Git LFS File Locking API at Forgejo's paths, ``/{owner}/{repo}.git/info/lfs/locks``
(``[server] LFS_START_SERVER``; 404 when off), for git-lfs's ``lock``, ``unlock``,
``locks`` and the lock check before a push.

Who may call is git over HTTP's rule, as for the batch API (``routes``), and every call
needs a signed-in caller, as Forgejo's (anonymous: 401 with the challenge git-lfs
answers with git's credentials): listing needs read access, creating, verifying and
unlocking write access and a ``write:repository`` token.  Answers and errors are JSON
in Git LFS's media type.
"""
from __future__ import annotations

from chalicelib.http import auth
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.lfs import lock_records, locks, records
from chalicelib.lfs.lock_options import LfsLockCreateOption, LfsLockVerifyOption, LfsUnlockOption
from chalicelib.lfs.routes import LFS, LfsError, lfs_errors
from chalicelib.repos import GitRefusal, RepoView, git_repo

CHALLENGE = {"LFS-Authenticate": auth.REALM, "WWW-Authenticate": auth.REALM}


def _lock_view(req: ApiRequest, *, write: bool, action: str) -> RepoView:
    if req.actor is None:
        # Forgejo's words; the repository's existence is not revealed.
        needed = "push" if write else "pull"
        raise LfsError(401, f"You must have {needed} access to {action} locks", CHALLENGE)
    try:
        return git_repo(req, write=write)
    except GitRefusal as refusal:
        raise LfsError(refusal.status, refusal.message,
                       CHALLENGE if refusal.challenge else None) from None


def _answer(data: dict, status: int = 200) -> ApiResponse:
    return ApiResponse.json(data, status=status, headers={"Content-Type": records.MEDIA_TYPE})


def _limit(req: ApiRequest) -> int | None:
    raw = (req.arg("limit") or "").strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise LfsError(422, f"limit must be an integer, not {raw[:40]!r}") from None


@route("GET", "/{owner}/{repo}/info/lfs/locks", "lfsListLocks",
       summary="Git LFS locks of the repository: by id, by path, or a page",
       query=(Param("path", "string", "the lock of this path"),
              Param("id", "string", "the lock with this id"),
              Param("refspec", "string", "taken, not used: a lock holds on every branch"),
              Param("cursor", "string", "where the page starts: a next_cursor"),
              Param("limit", "integer", "page size (at most LFS_LOCKS_PAGING_NUM)")),
       responses={200: "LfsLockList", 401: "unauthorized", 403: "forbidden",
                  404: "notFound", 422: "validationError"}, **LFS)
@lfs_errors
def lfs_list_locks(req: ApiRequest) -> ApiResponse:
    view = _lock_view(req, write=False, action="list")
    found, following = locks.find(view, lock_id=req.arg("id"), path=req.arg("path"),
                                  cursor=req.arg("cursor"), limit=_limit(req))
    return _answer(lock_records.listing(found, following))


@route("POST", "/{owner}/{repo}/info/lfs/locks", "lfsCreateLock",
       summary="Git LFS: lock a path (409 with the lock that holds it)",
       responses={201: "LfsLock", 401: "unauthorized", 403: "forbidden", 404: "notFound",
                  409: "conflict", 422: "validationError"}, **LFS)
@lfs_errors
def lfs_create_lock(req: ApiRequest) -> ApiResponse:
    view = _lock_view(req, write=True, action="create")
    option = req.option(LfsLockCreateOption)
    try:
        made = locks.create(view, req.actor, option.path)
    except locks.LockExists as exists:
        found: dict = {"message": "already created lock"}
        if exists.lock is not None:
            found["lock"] = lock_records.one(exists.lock)
        return _answer(found, 409)
    return _answer({"lock": lock_records.one(made)}, 201)


@route("POST", "/{owner}/{repo}/info/lfs/locks/verify", "lfsVerifyLocks",
       summary="Git LFS: a page of the locks, the caller's (ours) and the others' (theirs)",
       responses={200: "LfsLockListVerify", 401: "unauthorized", 403: "forbidden",
                  404: "notFound", 422: "validationError"}, **LFS)
@lfs_errors
def lfs_verify_locks(req: ApiRequest) -> ApiResponse:
    view = _lock_view(req, write=True, action="verify")
    option = req.option(LfsLockVerifyOption, required=False)
    ours, theirs, following = locks.verify(view, req.actor, option.cursor, option.limit)
    return _answer(lock_records.verified(ours, theirs, following))


@route("POST", "/{owner}/{repo}/info/lfs/locks/{id}/unlock", "lfsUnlock",
       summary="Git LFS: remove a lock (another user's: force, by a repository admin)",
       responses={200: "LfsLock", 401: "unauthorized", 403: "forbidden", 404: "notFound",
                  422: "validationError"}, **LFS)
@lfs_errors
def lfs_unlock(req: ApiRequest) -> ApiResponse:
    view = _lock_view(req, write=True, action="delete")
    option = req.option(LfsUnlockOption, required=False)
    removed = locks.unlock(view, req.actor, req.params["id"], option.force)
    return _answer({"lock": lock_records.one(removed)})
