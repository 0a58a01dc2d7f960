"""Partial clone filters (``git clone --filter=<spec>``): parsing and what they omit.

Forgejo runs git with ``uploadpack.allowFilter`` and ``uploadpack.allowAnySHA1InWant``,
so its servers take every filter git itself knows.  We take the ones a pack can be cut
by while walking trees: ``blob:none``, ``blob:limit=<n>[kmg]``, ``tree:<depth>`` and
``combine:`` of those.  ``sparse:oid`` and ``object:type`` are refused with the error
git's own upload-pack gives for a filter its configuration disallows, so a client never
gets a pack cut differently from what it asked for.

Objects the client names in ``want`` lines are never filtered out (git sends them
whatever the filter, which is what a partial clone's lazy fetches rely on: they ask for
blobs by id with ``--filter=blob:none``).
"""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote

from chalicelib.gitstore.errors import ProtocolError

_SIZE_SUFFIXES = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
# git refuses deeper trees than this unless configured otherwise; a bound keeps the
# depth bookkeeping small.
MAX_TREE_DEPTH = 4096


class FilterRefused(ProtocolError):
    """The filter is malformed or of a kind this server does not apply."""


@dataclass(frozen=True)
class ObjectFilter:
    """What a filter omits.  ``blob_limit``: blobs of this size or more are omitted
    (0: every blob); ``tree_depth``: trees and blobs at this depth or deeper are omitted
    (the root tree is at depth 0, its entries at 1)."""
    spec: str
    blob_limit: int | None = None
    tree_depth: int | None = None

    @property
    def needs_sizes(self) -> bool:
        return self.blob_limit is not None and self.blob_limit > 0

    def omits_tree(self, depth: int) -> bool:
        return self.tree_depth is not None and depth >= self.tree_depth

    def omits_blob_at(self, depth: int) -> bool:
        """Omitted whatever its size (blob:none, or below the tree depth)."""
        return self.blob_limit == 0 or (self.tree_depth is not None
                                        and depth >= self.tree_depth)

    def omits_blob_of_size(self, size: int) -> bool:
        return self.blob_limit is not None and size >= self.blob_limit


def _size(text: str, spec: str) -> int:
    number, suffix = text, ""
    if text and text[-1].lower() in "kmg":
        number, suffix = text[:-1], text[-1].lower()
    if not number.isdigit():
        raise FilterRefused(f"invalid filter-spec '{spec}'")
    return int(number) * _SIZE_SUFFIXES[suffix]


def _one(spec: str, whole: str) -> ObjectFilter:
    if spec == "blob:none":
        return ObjectFilter(spec, blob_limit=0)
    if spec.startswith("blob:limit="):
        return ObjectFilter(spec, blob_limit=_size(spec[len("blob:limit="):], whole))
    if spec.startswith("tree:"):
        depth = spec[len("tree:"):]
        if not depth.isdigit():
            raise FilterRefused("expected 'tree:<depth>'")
        if int(depth) > MAX_TREE_DEPTH:
            raise FilterRefused(f"tree filter allows max depth {MAX_TREE_DEPTH}, "
                                f"but got {int(depth)}")
        return ObjectFilter(spec, tree_depth=int(depth))
    if spec.startswith("sparse:path="):
        raise FilterRefused("sparse:path filters support has been dropped")
    for kind in ("sparse:oid", "object:type"):
        if spec.startswith(kind + "="):
            raise FilterRefused(f"filter '{kind}' not supported")
    raise FilterRefused(f"invalid filter-spec '{whole}'")


def parse_filter(raw: bytes | str) -> ObjectFilter:
    """The filter of a ``filter <spec>`` line; FilterRefused with git's message."""
    try:
        spec = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise FilterRefused("invalid filter-spec") from None
    spec = spec.strip()
    if not spec.startswith("combine:"):
        return _one(spec, spec)
    parts = spec[len("combine:"):].split("+")
    if len(parts) < 2 or not all(parts):
        raise FilterRefused("expected something after combine:")
    filters = [_one(unquote(part), spec) for part in parts]
    # An object is sent only if every filter keeps it: the strictest bound wins.
    limits = [f.blob_limit for f in filters if f.blob_limit is not None]
    depths = [f.tree_depth for f in filters if f.tree_depth is not None]
    return ObjectFilter(spec, blob_limit=min(limits) if limits else None,
                        tree_depth=min(depths) if depths else None)
