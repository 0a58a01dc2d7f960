"""Git LFS pointer files, the small blobs git stores in place of files kept in LFS:

    version https://git-lfs.github.com/spec/v1
    oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393
    size 12345

The domain's name for the one parser, which lives with git storage because received
packs are read for pointers as they are indexed (``chalicelib.gitstore.lfs_pointers``):
the pages and the contents domain reach it here, as they reach no git storage.
"""
from __future__ import annotations

from chalicelib.gitstore.lfs_pointers import MAX_POINTER_SIZE as MAX_SIZE
from chalicelib.gitstore.lfs_pointers import Pointer, parse

__all__ = ["MAX_SIZE", "Pointer", "maybe", "parse"]


def maybe(size: int) -> bool:
    """Whether a blob of ``size`` bytes can be a pointer at all (before reading it)."""
    return 0 < size < MAX_SIZE
