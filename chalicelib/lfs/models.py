"""The lfs domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/lfs/__init__.py``).
"""
from __future__ import annotations

from pynamodb.attributes import (BooleanAttribute, NumberAttribute, NumberSetAttribute,
                                 UnicodeAttribute)

from chalicelib.store.keys import keys as shared_keys
from chalicelib.store.table import Item


class LfsLock(Item, discriminator="lfslock"):
    id = NumberAttribute()
    path = UnicodeAttribute()
    owner_id = NumberAttribute()
    owner_name = UnicodeAttribute(default="")
    created = NumberAttribute()


class RepoNeed(Item, discriminator="lfsreponeed"):
    oid = UnicodeAttribute()
    size = NumberAttribute()
    pool_id = NumberAttribute()


class OwnerNeed(Item, discriminator="lfsownerneed"):
    size = NumberAttribute()
    repo_ids = NumberSetAttribute(null=True)


class LfsObject(Item, discriminator="lfsobject"):
    oid = UnicodeAttribute()
    size = NumberAttribute()
    verified = NumberAttribute()
    needed_by = NumberSetAttribute(null=True)
    # Being collected: its bytes may be gone any moment; nothing may rely on it.
    doomed = BooleanAttribute(null=True)

    @property
    def usable(self) -> bool:
        return not self.doomed


class keys(shared_keys):  # noqa: N801 - a namespace of key builders
    """Key layouts of the lfs domain's items (docs/data-model.md)."""

    LFS_PREFIX = "LFS#"

    @staticmethod
    def lfs_object(pool_id: int, oid: str) -> tuple[str, str]:
        """A Git LFS object of an object pool, beside its packs (forks share both)."""
        return f"POOL#{pool_id}", f"LFS#{oid}"

    LFS_NEED_PREFIX = "LFSNEED#"

    @staticmethod
    def lfs_repo_need(repo_id: int, oid: str) -> tuple[str, str]:
        """A Git LFS object a repository's pushes pointed at (in its partition: it goes
        with the repository)."""
        return shared_keys.repo_partition(repo_id), f"LFSNEED#{oid}"

    @staticmethod
    def lfs_owner_need(owner_id: int, pool_id: int, oid: str) -> tuple[str, str]:
        """A Git LFS object some repository of an owner needs: counted once per owner."""
        return shared_keys.account_partition(owner_id), f"LFSNEED#{pool_id}#{oid}"

    LFS_LOCK_PREFIX = "LFSLOCK#"

    @staticmethod
    def lfs_lock(repo_id: int, lock_id: int) -> tuple[str, str]:
        """A Git LFS lock, in its repository's partition (it goes when the repository
        does); ordered by id, so the locks are listed page by page with one Query."""
        return shared_keys.repo_partition(repo_id), f"LFSLOCK#{lock_id:015d}"

    @staticmethod
    def lfs_lock_path(repo_id: int, lower_path: str) -> tuple[str, str]:
        """The claim on a path that keeps one lock per path (lower-cased, as Forgejo
        compares lock paths)."""
        return shared_keys.repo_partition(repo_id), f"LFSPATH#{lower_path}"
