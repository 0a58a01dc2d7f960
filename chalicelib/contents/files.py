"""Reading a repository's content: resolving refs, raw and media files, .editorconfig."""
from __future__ import annotations

import io
import mimetypes
import posixpath
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib.errors import NotFoundError

if TYPE_CHECKING:
    from chalicelib.repos import Repo

_HEX = re.compile(r"^[0-9a-f]{4,40}$")
# Types a browser may render inline without running anything of the repository's.
_INLINE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp",
                 "image/x-icon", "application/pdf", "audio/mpeg", "audio/ogg", "video/mp4",
                 "video/webm"}
EDITORCONFIG_KEYS = ("charset", "indent_style", "indent_size", "end_of_line")


def open_git(repo: Repo):
    from chalicelib.gitstore import repo as gitrepo

    return gitrepo.open_repo(int(repo.id), int(repo.pool_id))


def resolve(git, repo: Repo, ref: str | None) -> bytes:
    """A commit id from a branch, tag or (short) commit id; the default branch if none."""
    if repo.empty:
        raise NotFoundError("repository is empty")
    name = ref or repo.default_branch
    refs = git.refs
    for candidate in (f"refs/heads/{name}", f"refs/tags/{name}", name):
        try:
            sha = refs[candidate.encode()]
        except KeyError:
            continue
        return _peel(git, sha)
    if _HEX.match(name.lower()):
        matches = list(git.object_store.iter_prefix(name.lower().encode()))
        if len(matches) == 1:
            return _peel(git, matches[0])
    raise NotFoundError(f"unrecognized repository reference: {name}")


def _peel(git, sha: bytes) -> bytes:
    """Follow annotated tags down to the commit."""
    from dulwich.objects import Tag

    obj = git[sha]
    while isinstance(obj, Tag):
        obj = git[obj.object[1]]
    return obj.id


@dataclass(frozen=True)
class RawFile:
    """A file's bytes as a download answers them; ``url``: a media file whose LFS object
    is too large to carry, answered by a redirect there (``content`` is then empty)."""
    name: str
    content: bytes
    content_type: str
    url: str | None = None
    lfs: bool = False


def download_headers(file: RawFile, disposition: str = "inline") -> dict[str, str]:
    """The headers of a raw or media answer (API and pages alike)."""
    from urllib.parse import quote

    from chalicelib.http.message import FILE_CSP

    return {"Content-Type": file.content_type,
            "Content-Disposition": f"{disposition}; filename*=UTF-8''{quote(file.name)}",
            "Content-Security-Policy": FILE_CSP}


def _content_type(path: str, data: bytes) -> str:
    """Text as text/plain; a few safe binary types by extension; the rest as bytes.
    Never text/html or SVG: raw files must not run script on our origin."""
    guessed, _ = mimetypes.guess_type(path)
    if guessed in _INLINE_TYPES:
        return guessed
    if b"\x00" not in data[:8000]:
        try:
            data[:8000].decode("utf-8")
            return "text/plain; charset=utf-8"
        except UnicodeDecodeError:
            pass
    return "application/octet-stream"


def read_blob(git, commit_id: bytes, path: str) -> bytes:
    from dulwich.object_store import tree_lookup_path
    from dulwich.objects import Blob

    clean = posixpath.normpath("/" + path).lstrip("/")
    if not clean or clean.startswith(".."):
        raise NotFoundError(f"object does not exist [path: {path}]")
    try:
        _, sha = tree_lookup_path(git.__getitem__, git[commit_id].tree, clean.encode())
        obj = git[sha]
    except (KeyError, NotADirectoryError):
        raise NotFoundError(f"object does not exist [path: {path}]") from None
    if not isinstance(obj, Blob):
        raise NotFoundError(f"object is not a file [path: {path}]")
    return obj.as_raw_string()


def ref_in_path(git, path: str) -> tuple[str | None, str]:
    """Forgejo's ``/raw/{ref}/{filepath}`` form (no ``?ref=``): the shortest leading
    segments naming a branch, then a tag, then a commit id as the first segment; else
    the whole path on the default branch."""
    parts = [part for part in path.split("/") if part]
    for kind in ("heads", "tags"):
        for i in range(1, len(parts)):
            name = "/".join(parts[:i])
            if f"refs/{kind}/{name}".encode() in git.refs:
                return name, "/".join(parts[i:])
    if len(parts) > 1 and re.match(r"^[0-9a-f]{7,40}$", parts[0]):
        if any(True for _ in git.object_store.iter_prefix(parts[0].encode())):
            return parts[0], "/".join(parts[1:])
    return None, path


def as_raw(path: str, data: bytes) -> RawFile:
    """The blob ``data`` at ``path`` as a download answers it."""
    return RawFile(posixpath.basename(path), data, _content_type(path, data))


def raw_file(repo: Repo, path: str, ref: str | None) -> RawFile:
    git = open_git(repo)
    if not ref and not repo.empty:
        ref, path = ref_in_path(git, path)
    return as_raw(path, read_blob(git, resolve(git, repo, ref), path))


def media_file(repo: Repo, path: str, ref: str | None, *, attachment: bool = False) -> RawFile:
    """Forgejo's media answer of ``path`` at ``ref`` (see ``media_of``)."""
    return media_of(repo, raw_file(repo, path, ref), attachment=attachment)


def media_of(repo: Repo, raw: RawFile, *, attachment: bool = False) -> RawFile:
    """A Git LFS pointer whose object the pool holds is that object: its bytes when
    they fit in an answer, else a presigned S3 URL to follow; anything else (no
    pointer, or an object never uploaded) is the raw file itself."""
    from chalicelib import lfs

    obj = lfs.held(int(repo.pool_id), raw.content)
    if obj is None:
        return raw
    if obj.size > lfs.inline_limit():
        return RawFile(raw.name, b"", "application/octet-stream",
                       url=lfs.object_url(obj, raw.name, attachment=attachment), lfs=True)
    data = lfs.read_object(obj)
    return RawFile(raw.name, data, _content_type(raw.name, data), lfs=True)


@dataclass(frozen=True)
class LfsFile:
    """What a page shows of a Git LFS file: its object's size, and its bytes when small
    enough to show (``SHOWN_LFS``), else None."""
    size: int
    content: bytes | None


# An LFS object up to this size is read for the file page (one GetObject) and shown as
# any file is; a larger one is a size and a link.
SHOWN_LFS = 512 * 1024


def lfs_file(repo: Repo, data: bytes) -> LfsFile | None:
    """The LFS object the blob ``data`` points to, when the pool holds it."""
    from chalicelib import lfs

    obj = lfs.held(int(repo.pool_id), data)
    if obj is None:
        return None
    return LfsFile(obj.size, lfs.read_object(obj) if obj.size <= SHOWN_LFS else None)


def editorconfig(repo: Repo, path: str, ref: str | None) -> dict[str, str]:
    """The .editorconfig properties (at the root of the commit) that apply to ``path``."""
    from editorconfig.exceptions import ParsingError
    from editorconfig.ini import EditorConfigParser

    git = open_git(repo)
    commit_id = resolve(git, repo, ref)
    text = read_blob(git, commit_id, ".editorconfig").decode("utf-8", "replace")
    parser = EditorConfigParser("/" + path.lstrip("/"))
    try:
        parser._read(io.StringIO(text), "/.editorconfig")
    except ParsingError:
        pass  # like Forgejo's library: bad lines are skipped, the rest applies
    found = {}
    for key in EDITORCONFIG_KEYS:
        value = parser.options.get(key)
        if value:
            found[key] = value.lower() if key != "indent_size" else value
    return found
