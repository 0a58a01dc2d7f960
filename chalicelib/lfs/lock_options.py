"""The request bodies of the Git LFS File Locking API
(https://github.com/git-lfs/git-lfs/blob/main/docs/api/locking.md).

Git LFS's, not Forgejo's REST API's: ``published = False`` keeps them out of
``/swagger.v1.json``.  ``ref`` is taken and not used, as by Forgejo: a lock holds for
the path on every branch.
"""
from __future__ import annotations

from chalicelib.http.options import UNSET, Option, UnsetType
from chalicelib.lfs.options import LfsRef


class LfsLockCreateOption(Option):
    """``POST …/info/lfs/locks``."""
    published = False
    path: str
    ref: LfsRef | None | UnsetType = UNSET


class LfsLockVerifyOption(Option):
    """``POST …/info/lfs/locks/verify``: a page of the repository's locks, split into
    the caller's (``ours``) and the others' (``theirs``)."""
    published = False
    ref: LfsRef | None | UnsetType = UNSET
    cursor: str | None = None
    limit: int | None = None


class LfsUnlockOption(Option):
    """``POST …/info/lfs/locks/{id}/unlock``."""
    published = False
    force: bool = False
    ref: LfsRef | None | UnsetType = UNSET
