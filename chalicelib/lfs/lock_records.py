"""The File Locking API's JSON (git-lfs docs/api/locking.md, Forgejo's
``convert.ToLFSLock``): a lock is ``id`` (a string), ``path``, ``locked_at`` (RFC 3339,
whole seconds) and ``owner: {name}``, the owner's login as it is now (a deleted owner
shows as Forgejo's ghost)."""
from __future__ import annotations

from collections.abc import Iterable

from chalicelib import accounts
from chalicelib.http.formats import rfc3339
from chalicelib.lfs.lock_store import LfsLock
from chalicelib.store import unit_of_work

GHOST = "Ghost"


def owner_names(locks: Iterable[LfsLock]) -> dict[int, str]:
    """Each owner's login: one BatchGetItem for the owners not read yet."""
    owner_ids = list(dict.fromkeys(int(lock.owner_id) for lock in locks))
    unit_of_work.prefetch(accounts.account_key(i) for i in owner_ids)
    names = {}
    for owner_id in owner_ids:
        account = accounts.account_by_id(owner_id)
        names[owner_id] = account.login if account is not None else GHOST
    return names


def lock(item: LfsLock, names: dict[int, str]) -> dict:
    return {"id": str(int(item.id)), "path": item.path, "locked_at": rfc3339(int(item.created)),
            "owner": {"name": names.get(int(item.owner_id), item.owner_name or GHOST)}}


def one(item: LfsLock) -> dict:
    """``{"lock": …}``: the answer of a create, an unlock, and a 409's ``lock``."""
    return lock(item, owner_names([item]))


def listing(locks: list[LfsLock], following: str) -> dict:
    names = owner_names(locks)
    found: dict = {"locks": [lock(item, names) for item in locks]}
    if following:
        found["next_cursor"] = following
    return found


def verified(ours: list[LfsLock], theirs: list[LfsLock], following: str) -> dict:
    names = owner_names(ours + theirs)
    found: dict = {"ours": [lock(item, names) for item in ours],
                   "theirs": [lock(item, names) for item in theirs]}
    if following:
        found["next_cursor"] = following
    return found
