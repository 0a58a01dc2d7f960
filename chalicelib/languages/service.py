"""A repository's language statistics (Forgejo's ``repoGetLanguages``): bytes per
language on the default branch, computed by the events worker and cached.

The API answers from the cached item only (``cached``): no tree is walked on a
request, and before the first computation the answer is ``{}``, as Forgejo answers a
repository without statistics.  The worker (``refresh``) brings the figures to the
default branch's tip as it is when it runs:

* from the cached figures and the tree diff between the cached commit and the tip
  (only the changed subtrees are read), when the cached commit is still readable and
  the root ``.gitattributes`` did not change;
* otherwise by walking the whole tree.

Blob sizes are read from the pack entry headers (gitstore/object_sizes: the object's
size is in its header, a delta's target size in the first bytes of the delta) without
inflating the blob or resolving its delta chain; a pack read by ranges gives the
entry's own bytes only, it is not downloaded.
The write is a compare-and-swap on the figures read (``languages.store``): a late or
redelivered computation never replaces newer figures, it starts over from them.
"""
from __future__ import annotations

import logging
import stat
from typing import TYPE_CHECKING

from chalicelib import contents, repos
from chalicelib.errors import ConditionFailed, NotFoundError
from chalicelib.gitstore.object_sizes import ObjectSizes
from chalicelib.languages import store

if TYPE_CHECKING:
    from chalicelib.repos import RepoView

log = logging.getLogger("nimbus.languages")
ATTRIBUTES = b".gitattributes"
ATTEMPTS = 4


def cached(view: RepoView) -> dict[str, int]:
    """The figures as last computed (``{}`` before the first computation)."""
    if view.repo.empty:
        return {}
    sizes = store.get(int(view.repo.id)).sizes
    return {name: sizes[name] for name in sorted(sizes)}


# The worker's side ----------------------------------------------------------------------

def on_push(repo_id: int, ref: str) -> None:
    repo = repos.repo_by_id(repo_id)
    if repo is not None and ref == f"refs/heads/{repo.default_branch}":
        refresh(repo_id)


def refresh(repo_id: int) -> store.Stats | None:
    """Bring the cached figures to the default branch's tip; None when the repository
    or its default branch is gone or empty."""
    for _ in range(ATTEMPTS):
        repo = repos.repo_by_id(repo_id)
        if repo is None or repo.empty:
            return None
        read = store.get(repo_id, consistent=True)
        git = contents.open_git(repo)
        try:
            tip = contents.resolve_ref(git, repo, None)
        except NotFoundError:
            return None
        if read.version and read.commit == tip.decode():
            return read
        sizes = compute(git.object_store, git.object_store[tip].tree, read)
        try:
            return store.save(repo_id, read, tip.decode(), sizes)
        except ConditionFailed as exc:
            if exc.label != store.STATS:
                raise
            log.info("language figures of repository %s moved meanwhile; again", repo_id)
    log.warning("language figures of repository %s: gave up after %d races", repo_id,
                ATTEMPTS)
    return None


def compute(objects, tree_id: bytes, read: store.Stats) -> dict[str, int]:
    """The figures of ``tree_id``: from ``read`` by the tree diff when it can, else by
    a full walk."""
    old_tree = _tree_of(objects, read.commit) if read.version and read.commit else None
    if old_tree is not None:
        from dulwich.diff_tree import tree_changes

        changes = list(tree_changes(objects, old_tree, tree_id))
        if not any(ATTRIBUTES in (_path(c.old), _path(c.new)) for c in changes):
            return _incremental(objects, tree_id, dict(read.sizes), changes)
    return full_walk(objects, tree_id)


def full_walk(objects, tree_id: bytes) -> dict[str, int]:
    rules = _rules(objects, tree_id)
    sizes: dict[str, int] = {}
    with ObjectSizes(objects) as measure:
        for entry in objects.iter_tree_contents(tree_id):
            _count(sizes, measure, rules, entry, 1)
    return sizes


def _incremental(objects, tree_id: bytes, sizes: dict[str, int], changes) -> dict[str, int]:
    # The attributes are the same on both sides, so a file's language is decided the
    # same way as when it was counted: take its old bytes out, put its new bytes in.
    rules = _rules(objects, tree_id)
    with ObjectSizes(objects) as measure:
        for change in changes:
            _count(sizes, measure, rules, change.old, -1)
            _count(sizes, measure, rules, change.new, 1)
    return {name: size for name, size in sizes.items() if size > 0}


def _count(sizes: dict[str, int], measure: ObjectSizes, rules, entry, sign: int) -> None:
    from chalicelib.languages import detection as language_detection

    if entry is None or entry.path is None or not stat.S_ISREG(entry.mode or 0):
        return
    path = entry.path.decode("utf-8", "surrogateescape")
    language = language_detection.counted_language(path, rules)
    if not language:
        return
    size = measure.size(entry.sha)
    if size is None:      # a tree naming a missing blob: fail as reading it would
        raise KeyError(entry.sha)
    sizes[language] = sizes.get(language, 0) + sign * size


def _path(entry) -> bytes | None:
    return None if entry is None else entry.path


def _tree_of(objects, commit: str) -> bytes | None:
    """The tree of the cached commit, or None if it cannot be read (pruned after a
    force push): then the figures are walked anew."""
    try:
        return objects[commit.encode()].tree
    except (KeyError, AttributeError, ValueError):
        return None


def _rules(objects, tree_id: bytes) -> list:
    from chalicelib.languages import detection as language_detection

    try:
        mode, sha = objects[tree_id][ATTRIBUTES]
    except KeyError:
        return []
    if not stat.S_ISREG(mode):
        return []
    text = objects[sha].as_raw_string().decode("utf-8", "replace")
    return language_detection.parse_attributes(text)
