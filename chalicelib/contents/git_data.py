"""The git data API (Forgejo's GetBlob, repoListAllGitRefs/repoListGitRefs,
GetAnnotatedTag, repoGetNote): raw objects and refs, read from the object store; trees
are in services/git_trees.

Costs.  Refs come from the request's one refs Query; a branch whose stored peeled value
is its own sha is a commit, so listing branches reads no object.  Objects are read from
the pool's packs (the pack list, then cached .idx/.pack files, or S3 ranges of a big
pack).  Types and sizes come from pack entry headers (gitstore/object_sizes), so a blob
over the size limit is not inflated and typing a ref's target inflates nothing.
"""
from __future__ import annotations

import re
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib.contents import files as repo_files
from chalicelib.errors import BadInput, InvalidInput, NotFoundError
from chalicelib.gitstore.object_sizes import BLOB, TYPE_NAMES, ObjectSizes

if TYPE_CHECKING:
    from chalicelib.repos import Repo

FULL_ID = re.compile(r"^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$")
NOTES_REF = b"refs/notes/commits"


@dataclass(frozen=True)
class BlobData:
    sha: str
    size: int
    content: bytes | None  # None when over DEFAULT_MAX_BLOB_SIZE


@dataclass(frozen=True)
class RefInfo:
    name: str
    sha: str
    kind: str


def open_repo(repo: Repo):
    """The repository's git objects and refs; 404 while it is empty."""
    if repo.empty:
        raise NotFoundError("repository is empty")
    return repo_files.open_git(repo)


def _full_id(sha: str) -> bytes:
    """A full object id as Forgejo requires here (its 400 for anything else)."""
    if not FULL_ID.match(sha or ""):
        raise BadInput(f"length {len(sha or '')} has no matched object format: {sha}")
    return sha.lower().encode()


def of_format(git, sha: bytes, asked: str) -> bytes:
    """``sha`` if it is an id of the repository's object format (a SHA-256 id cannot
    name an object of a SHA-1 repository: 404)."""
    if len(sha) != git.object_format.hex_length:
        raise NotFoundError(f"object does not exist [id: {asked}]")
    return sha


def _open_at(repo: Repo, sha: str):
    """(the repository, the full object id ``sha`` must be)."""
    wanted = _full_id(sha)
    git = open_repo(repo)
    return git, of_format(git, wanted, sha)


# Blobs ----------------------------------------------------------------------------------

def blob(repo: Repo, sha: str, max_size: int) -> BlobData:
    git, wanted = _open_at(repo, sha)
    with ObjectSizes(git.object_store) as sizes:
        info = sizes.info(wanted)
    if info is None:
        raise NotFoundError(f"object does not exist [id: {sha}]")
    kind, size = info
    if kind != BLOB:
        raise NotFoundError(f"object {sha} is a {TYPE_NAMES.get(kind, 'object')}, not a blob")
    content = git.object_store.get_raw(wanted)[1] if size <= max_size else None
    return BlobData(wanted.decode(), size, content)


# Refs -----------------------------------------------------------------------------------

HIDDEN_PREFIXES = (b"refs/remotes/",)


def list_refs(repo: Repo, prefix: str = "") -> list[RefInfo]:
    """Refs whose full name starts with ``refs/<prefix>`` (a plain string prefix, as
    Forgejo's filter), sorted by name; 404 when there are none."""
    wanted = b"refs/" + prefix.encode() if prefix else b"refs/"
    git = repo_files.open_git(repo)
    refs = git.refs
    names = sorted(name for name in refs.allkeys()
                   if name.startswith(wanted) and not name.startswith(HIDDEN_PREFIXES)
                   and name != b"refs/stash")
    found = []
    with ObjectSizes(git.object_store) as sizes:
        for name in names:
            try:
                sha = refs[name]
            except KeyError:
                continue
            peeled = refs.get_peeled(name)
            if peeled is not None and peeled != sha:
                kind = "tag"
            elif peeled == sha and name.startswith(b"refs/heads/"):
                kind = "commit"
            else:
                info = sizes.info(sha)
                kind = TYPE_NAMES.get(info[0], "commit") if info else "commit"
            found.append(RefInfo(name.decode("utf-8", "replace"), sha.decode(), kind))
    if not found:
        raise NotFoundError(f"no ref matches {prefix!r}")
    return found


# Annotated tags -------------------------------------------------------------------------

def annotated_tag(repo: Repo, sha: str):
    """(the dulwich Tag, the Commit it peels to)."""
    from dulwich.objects import Commit, Tag

    git, wanted = _open_at(repo, sha)
    try:
        tag = git.object_store[wanted]
    except KeyError:
        raise NotFoundError(f"object does not exist [id: {sha}]") from None
    if not isinstance(tag, Tag):
        raise BadInput(f"object does not exist [id: {sha}]: not an annotated tag")
    target = tag
    try:
        while isinstance(target, Tag):
            target = git.object_store[target.object[1]]
    except KeyError:
        raise NotFoundError(f"the target of tag {sha} does not exist") from None
    if not isinstance(target, Commit):
        raise BadInput(f"tag {sha} does not point to a commit")
    return tag, target


# Notes ----------------------------------------------------------------------------------

INVALID_REF = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|^[/.]|[/.]$|\.lock$")


def note(repo: Repo, sha: str):
    """(the note ``refs/notes/commits`` holds for a commit, the notes commit that last
    changed it, the open repository); the notes tree may fan the commit id out into
    directories (``ab/cdef…``)."""
    from dulwich.objects import Blob
    from dulwich.walk import Walker

    if not sha or INVALID_REF.search(sha):
        raise InvalidInput(f"no valid ref or sha: {sha}")
    git = open_repo(repo)
    commit_id = repo_files.resolve(git, repo, sha).decode()
    try:
        notes_head = git.refs[NOTES_REF]
        tree = git.object_store[git.object_store[notes_head].tree]
    except KeyError:
        raise NotFoundError(f"no note for {sha}") from None
    path, rest, entry = "", commit_id, None
    while len(rest) > 2:
        if rest.encode() in tree:
            entry = tree[rest.encode()][1]
            path += rest
            break
        sub = tree[rest[:2].encode()] if rest[:2].encode() in tree else None
        if sub is None or not stat.S_ISDIR(sub[0]):
            break
        tree = git.object_store[sub[1]]
        path, rest = path + rest[:2] + "/", rest[2:]
    found = git.object_store[entry] if entry is not None else None
    if not isinstance(found, Blob):
        raise NotFoundError(f"no note for {sha}")
    walker = Walker(git.object_store, include=[notes_head], paths=[path.encode()],
                    max_entries=1)
    last = next((step.commit for step in walker), None) or git.object_store[notes_head]
    return found.as_raw_string(), last, git
