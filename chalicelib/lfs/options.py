"""The request bodies of the Git LFS batch API (https://github.com/git-lfs/git-lfs/blob/main/docs/api/batch.md).

They are Git LFS's, not Forgejo's REST API's: ``published = False`` keeps them out of
``/swagger.v1.json``, whose definitions are Forgejo's.  An object's ``oid`` is a plain
string here: an id that is not 64 hex characters is answered per object (422 in that
object's ``error``), as Forgejo does, not by refusing the whole batch.
"""
from __future__ import annotations

from typing import Literal

from chalicelib.http.options import UNSET, Option, UnsetType


class LfsPointer(Option):
    """One object: its SHA-256 (hex) and its size in bytes."""
    published = False
    oid: str
    size: int


class LfsRef(Option):
    published = False
    name: str = ""


class LfsBatchOption(Option):
    """``POST …/info/lfs/objects/batch``."""
    published = False
    operation: Literal["upload", "download"]
    objects: list[LfsPointer]
    # Left out: the client takes "basic", the only adapter every client has.
    transfers: list[str] | UnsetType = UNSET
    ref: LfsRef | None | UnsetType = UNSET
    hash_algo: str | UnsetType = UNSET


class LfsVerifyOption(LfsPointer):
    """``POST …/info/lfs/verify``: the object the client uploaded."""
    published = False
