"""The rules of Git LFS file locking (Forgejo's services/lfs/locks.go and
models/git/lfs_lock.go), and the two places the server holds others to a lock.

Who may call is decided before (``lock_routes``): listing needs read access, creating,
verifying and unlocking write access.  Here:

- a lock's path is cleaned as Forgejo cleans it (``path.Clean`` under ``/``, the
  leading ``/`` dropped); an empty path, ``.`` or one longer than the table's key allows
  is 422;
- one lock per path, compared without case: a second lock of a path is 409 with the
  lock that holds it (the path's claim, a conditional put, decides a race);
- a page holds at most ``[server] LFS_LOCKS_PAGING_NUM`` locks (50); ``limit`` 0 or
  none asks for a full page (Forgejo lists every lock then: git-lfs follows
  ``next_cursor`` either way).  The cursor is the last id of the page before;
- unlocking another user's lock needs ``force`` and admin access to the repository
  (403 otherwise; Forgejo lets any writer force);
- ``push_refusal``: a push may not change (add, modify or remove) a path another user
  has locked, on any branch: the blob at the lock's path in the old tip's tree against
  the new tip's (a new branch: against the default branch's tip), no history walk;
- ``refuse_locked``: the contents API may not write such a path (Forgejo's
  ``ErrLFSFileLocked``).

Both checks read nothing when the repository holds no lock (``Repo.lfs_locks``), or
when ``[server] LFS_START_SERVER`` is off.
"""
from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import TYPE_CHECKING

from chalicelib import clock
from chalicelib.errors import ConditionFailed, InvalidInput, NotFoundError, PermissionDenied
from chalicelib.lfs import lock_store
from chalicelib.lfs.lock_store import LfsLock
from chalicelib.repos import RepoView
from chalicelib.settings import get_settings
from chalicelib.store import ids, unit_of_work

if TYPE_CHECKING:
    from chalicelib.repos import Repo

HEADS = "refs/heads/"
SEQUENCE = "lfs_lock"


class LockExists(Exception):
    """The path is locked already: ``lock`` holds it (None if it went meanwhile)."""

    def __init__(self, lock: LfsLock | None):
        super().__init__("already created lock")
        self.lock = lock


def enabled() -> bool:
    return get_settings().server.LFS_START_SERVER


def clean_path(raw: str) -> str:
    """Forgejo's ``util.PathJoinRel``: the path cleaned under ``/``, relative."""
    if "\x00" in raw:
        raise InvalidInput("[Path]: a path may not contain NUL")
    cleaned = posixpath.normpath("/" + raw).lstrip("/") if raw else ""
    if cleaned in ("", "."):
        raise InvalidInput("[Path]: Required")
    if len(cleaned.encode("utf-8")) > lock_store.MAX_PATH_BYTES:
        raise InvalidInput(f"[Path]: longer than {lock_store.MAX_PATH_BYTES} bytes")
    return cleaned


def paging(cursor: str | None, limit: int | None) -> tuple[int, int]:
    """(the id the page starts after, its size) from a request's ``cursor``/``limit``."""
    most = get_settings().server.LFS_LOCKS_PAGING_NUM
    size = most if not limit or limit < 0 or limit > most else int(limit)
    cursor = (cursor or "").strip()
    if not cursor:
        return 0, size
    if not cursor.isdigit() or len(cursor) > 15:
        raise InvalidInput(f"[Cursor]: {cursor[:40]!r} is not a cursor this server gave")
    return int(cursor), size


def _next_cursor(found: list[LfsLock], more: bool) -> str:
    return str(int(found[-1].id)) if more and found else ""


# The API --------------------------------------------------------------------------------------

def create(view: RepoView, user, path: str) -> LfsLock:
    """Lock ``path`` for ``user``; ``LockExists`` when it is locked already."""
    path = clean_path(path)
    repo = view.repo
    held = lock_store.at_path(int(repo.id), path)
    if held is not None:
        raise LockExists(held)
    lock = lock_store.new(int(repo.id), ids.next_id(SEQUENCE), path, int(user.id),
                          user.login, clock.seconds())
    try:
        with unit_of_work.writing():
            lock_store.stage_create(repo, lock)
    except ConditionFailed as failed:
        if failed.label == lock_store.PATH:
            # Another request locked the path between our read and our write.
            raise LockExists(lock_store.at_path(int(repo.id), path)) from None
        if failed.label == lock_store.REPO:
            raise NotFoundError("the repository was deleted") from None
        raise
    repo.lfs_locks = int(repo.lfs_locks or 0) + 1
    return lock


def find(view: RepoView, *, lock_id: str | None = None, path: str | None = None,
         cursor: str | None = None, limit: int | None = None) -> tuple[list[LfsLock], str]:
    """A page of the repository's locks and the next page's cursor ("" at the end); by
    ``lock_id`` or ``path``, the one lock (or none) and no cursor."""
    repo_id = int(view.repo.id)
    if lock_id:
        if not lock_id.isdigit():
            raise InvalidInput(f"[ID]: {lock_id[:40]!r} is not a lock id")
        found = lock_store.get(repo_id, int(lock_id)) if len(lock_id) <= 15 else None
        return ([found] if found is not None else []), ""
    if path:
        found = lock_store.at_path(repo_id, clean_path(path))
        return ([found] if found is not None else []), ""
    after, size = paging(cursor, limit)
    if not int(view.repo.lfs_locks or 0) and not after:
        return [], ""
    found, more = lock_store.page(repo_id, after, size)
    return found, _next_cursor(found, more)


def verify(view: RepoView, user, cursor: str | None,
           limit: int | None) -> tuple[list[LfsLock], list[LfsLock], str]:
    """A page of the locks split into the caller's and the others', and the cursor."""
    found, following = find(view, cursor=cursor, limit=limit)
    ours = [lock for lock in found if int(lock.owner_id) == int(user.id)]
    theirs = [lock for lock in found if int(lock.owner_id) != int(user.id)]
    return ours, theirs, following


def unlock(view: RepoView, user, lock_id: str, force: bool) -> LfsLock:
    """Remove lock ``lock_id``: the owner's own, or, with ``force``, any lock for an
    administrator of the repository."""
    repo = view.repo
    lock = lock_store.get(int(repo.id), int(lock_id)) if lock_id.isdigit() \
        and len(lock_id) <= 15 else None
    if lock is None:
        raise NotFoundError(f"lock does not exist [id: {lock_id[:40]}]")
    if int(lock.owner_id) != int(user.id):
        if not force:
            raise PermissionDenied("user doesn't own lock and force flag is not set")
        if not view.is_admin:
            raise PermissionDenied("only an administrator of the repository may remove "
                                   "another user's lock")
    try:
        with unit_of_work.writing():
            lock_store.stage_delete(repo, lock)
    except ConditionFailed as failed:
        if failed.label in (lock_store.LOCK, lock_store.PATH):
            raise NotFoundError(f"lock does not exist [id: {lock_id}]") from None
        if failed.label == lock_store.REPO:
            raise NotFoundError("the repository was deleted") from None
        raise
    repo.lfs_locks = max(int(repo.lfs_locks or 0) - 1, 0)
    return lock


# Holding others to a lock --------------------------------------------------------------------

def _applies(repo: Repo) -> bool:
    return int(repo.lfs_locks or 0) > 0 and enabled()


def refuse_locked(repo: Repo, user, paths: Iterable[str]) -> None:
    """The contents API: PermissionDenied when one of ``paths`` (exactly, as Forgejo's
    ``GetTreePathLock`` compares) is locked by another user."""
    if not _applies(repo):
        return
    wanted = [p for p in dict.fromkeys(paths) if p]
    user_id = int(user.id) if user is not None else 0
    for lock in lock_store.at_paths(int(repo.id), wanted):
        if lock.path in wanted and int(lock.owner_id) != user_id:
            raise PermissionDenied(f"File is lfs locked [repo: {int(repo.id)}, locked by: "
                                   f"{lock.owner_name}, path: {lock.path}]")


def _entry(store, tree_id: bytes | None, path: str) -> bytes | None:
    """The object id at ``path`` in a tree (None: nothing there)."""
    from dulwich.errors import NotTreeError
    from dulwich.object_store import tree_lookup_path
    from dulwich.objects import SubmoduleEncountered

    if tree_id is None:
        return None
    try:
        _mode, sha = tree_lookup_path(store.__getitem__, tree_id, path.encode("utf-8"))
    except (KeyError, NotTreeError, SubmoduleEncountered):
        return None      # nothing there, a file where a folder would be, a submodule
    return sha


def _tree(store, commit_hex: str | None) -> bytes | None:
    from chalicelib.gitops.objects import read_commit

    if not commit_hex or not commit_hex.strip("0"):
        return None
    try:
        return read_commit(store, commit_hex).tree
    except NotFoundError:
        return None


def _default_tip(git, repo: Repo) -> str | None:
    try:
        return git.refs[f"{HEADS}{repo.default_branch}".encode()].decode()
    except KeyError:
        return None


def push_refusal(view: RepoView, git, updates: list[tuple[str, str, str]], actor) -> str | None:
    """git push: the first path another user has locked that an updated branch changes,
    in words for the pusher; None when the push changes no such path.  A branch that
    takes the file as the default branch has it is not changing it: that is bringing a
    branch up to date (a merge of the default branch, which the lock's owner may have
    changed), not an edit of the locked file."""
    repo = view.repo
    if not _applies(repo):
        return None
    moving = [(ref, old, new) for ref, old, new in updates
              if ref.startswith(HEADS) and new.strip("0")]
    if not moving:
        return None
    actor_id = int(actor.id) if actor is not None else 0
    theirs = [lock for lock in lock_store.every(int(repo.id)) if int(lock.owner_id) != actor_id]
    store = git.object_store
    default = _tree(store, _default_tip(git, repo))
    for ref, old, new in moving:
        before = _tree(store, old) if old.strip("0") else default
        after = _tree(store, new)
        for lock in theirs:
            now = _entry(store, after, lock.path)
            if now != _entry(store, before, lock.path) and now != _entry(store, default, lock.path):
                return (f"{lock.path} is locked by {lock.owner_name} (Git LFS lock "
                        f"{int(lock.id)}): {ref[len(HEADS):]} may not change it until "
                        "they unlock it")
    return None
