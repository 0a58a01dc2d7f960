"""Forgejo's GetTree: one page of a tree's entries, optionally recursive, with every
blob's size.

Sizes without contents.  Reading each blob to measure it would inflate whole files;
``gitstore/object_sizes`` reads the size from the blob's pack entry header (and the
first bytes of a delta), for local packs and packs read by S3 ranges alike.

Recursive trees.  ``total_count`` needs every entry counted, so the first request
decodes every subtree once, keeping only the page's entries and the current path's
trees in memory.  The number of entries under a tree depends on its id alone, so those
counts are remembered (bounded, per process): later pages skip whole subtrees that lie
outside the page without reading them.
"""
from __future__ import annotations

import re
import stat
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib.contents.git_data import FULL_ID, of_format, open_repo
from chalicelib.errors import BadInput, NotFoundError
from chalicelib.gitstore.object_sizes import ObjectSizes

if TYPE_CHECKING:
    from chalicelib.repos import Repo

SHORT_ID = re.compile(r"^[0-9a-f]{4,40}$")
GITLINK = 0o160000      # a submodule's entry
COUNT_CACHE_SIZE = 32768


@dataclass(frozen=True)
class TreeEntry:
    path: str
    mode: int
    kind: str      # "blob", "tree" or "commit" (a submodule)
    sha: str
    size: int


@dataclass(frozen=True)
class TreePage:
    sha: str       # what the request named, resolved: a commit, tag or tree id
    entries: list[TreeEntry]
    total: int
    page: int
    truncated: bool


# Entries under a tree (recursively) by tree id, least recently used first out; the
# local server answers requests on several threads.
COUNTS: OrderedDict[bytes, int] = OrderedDict()
COUNTS_LOCK = threading.Lock()


def _count_of(sha: bytes) -> int | None:
    with COUNTS_LOCK:
        found = COUNTS.get(sha)
        if found is not None:
            COUNTS.move_to_end(sha)
        return found


def _remember_count(sha: bytes, count: int) -> None:
    with COUNTS_LOCK:
        COUNTS[sha] = count
        COUNTS.move_to_end(sha)
        while len(COUNTS) > COUNT_CACHE_SIZE:
            COUNTS.popitem(last=False)


def _named(git, name: str) -> bytes | None:
    """An object id from a ref name, as git resolves one (tags before branches), or
    from a unique abbreviated id."""
    refs = git.refs
    candidates = [name] if name == "HEAD" or name.startswith("refs/") else []
    candidates += [f"refs/{name}", f"refs/tags/{name}", f"refs/heads/{name}"]
    for candidate in candidates:
        try:
            return refs[candidate.encode()]
        except (KeyError, ValueError):
            continue
    if SHORT_ID.match(name):
        matches = list(git.object_store.iter_prefix(name.encode()))
        if len(matches) == 1:
            return matches[0]
    return None


def _tree_of(git, sha: str) -> tuple[bytes, bytes]:
    """(the resolved id, the tree id) of a tree, commit or tag id, or of a ref."""
    from dulwich.objects import Commit, Tag, Tree

    start = of_format(git, sha.lower().encode(), sha) if FULL_ID.match(sha) \
        else _named(git, sha)
    if start is None:
        raise NotFoundError(f"sha not found [sha: {sha}]")
    try:
        obj = git.object_store[start]
        while isinstance(obj, Tag):
            obj = git.object_store[obj.object[1]]
    except KeyError:
        raise NotFoundError(f"sha not found [sha: {sha}]") from None
    if isinstance(obj, Commit):
        return start, obj.tree
    if isinstance(obj, Tree):
        return start, obj.id
    raise BadInput(f"object {sha} is a {obj.type_name.decode()}, not a tree")


def _kind(mode: int) -> str:
    if stat.S_IFMT(mode) == GITLINK:
        return "commit"
    return "tree" if stat.S_ISDIR(mode) else "blob"


def _walk(store, root: bytes, recursive: bool, start: int, end: int):
    """(entries in [start, end) as (path, mode, sha), total entry count)."""
    read = store.__getitem__
    found, pos = [], 0
    stack = [(iter(read(root).iteritems()), "", root, 0)]
    while stack:
        items, prefix, tree_id, began = stack[-1]
        item = next(items, None)
        if item is None:
            stack.pop()
            if recursive:
                _remember_count(tree_id, pos - began)
            continue
        name = item.path.decode("utf-8", "surrogateescape")
        if start <= pos < end:
            found.append((prefix + name, item.mode, item.sha))
        pos += 1
        if not recursive or not stat.S_ISDIR(item.mode):
            continue
        known = _count_of(item.sha)
        if known is not None and (pos + known <= start or pos >= end):
            pos += known     # wholly outside the page: counted, not read
        else:
            stack.append((iter(read(item.sha).iteritems()), f"{prefix}{name}/", item.sha, pos))
    return found, pos


def tree_page(repo: Repo, sha: str, *, recursive: bool, page: int, per_page: int,
              max_per_page: int) -> TreePage:
    """One page of a tree's entries (Forgejo's page size rules: a missing, non-positive
    or too large ``per_page`` is the maximum)."""
    if not sha:
        raise BadInput("sha not provided")
    git = open_repo(repo)
    resolved, tree_id = _tree_of(git, sha)
    if per_page <= 0 or per_page > max_per_page:
        per_page = max_per_page
    page = max(page, 1)
    start = per_page * (page - 1)
    listed, total = _walk(git.object_store, tree_id, recursive, start, start + per_page)
    entries = []
    with ObjectSizes(git.object_store) as sizes:
        for path, mode, entry_sha in listed:
            kind = _kind(mode)
            size = (sizes.size(entry_sha) or 0) if kind == "blob" else 0
            entries.append(TreeEntry(path, mode, kind, entry_sha.decode(), size))
    return TreePage(resolved.decode(), entries, total, page,
                    truncated=start + per_page < total)

