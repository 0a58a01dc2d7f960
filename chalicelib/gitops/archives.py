"""Source archives of a commit: ``zip``, ``tar.gz`` (both under a ``<prefix>/`` top
directory, as ``git archive --prefix``) and ``bundle`` (a git bundle with one branch,
``bundle``, and HEAD at the commit, as Forgejo's).  Submodules are left out: their
content lives in other repositories.  Where archives are kept is the caller's concern,
and so is what some blobs stand for (``Substitutions``: Git LFS pointers, whose objects
the archive carries instead, as Forgejo's do).
"""
from __future__ import annotations

import io
import time
import zipfile
from dataclasses import dataclass
from stat import S_ISLNK, S_ISREG
from types import SimpleNamespace
from typing import BinaryIO, Callable, Iterator

from dulwich.object_store import BaseObjectStore
from dulwich.objects import S_ISGITLINK, Commit, Tree

from chalicelib.gitops.objects import read_commit, read_tree

FORMATS = ("zip", "tar.gz", "bundle")
# The zip format cannot hold a date before 1980.
_ZIP_EPOCH = 315532800


@dataclass(frozen=True)
class Substitute:
    """Other bytes for a blob in an archive (a Git LFS object for its pointer): its
    size, and its bytes read as they are written (never held whole)."""
    size: int
    chunks: Callable[[], Iterator[bytes]]


@dataclass(frozen=True)
class Substitutions:
    """The caller's say in what an archive holds, without this module knowing why:
    ``candidate(data)`` picks blobs that may be replaced (they are written last), then
    ``find`` is asked once for all of them (blob id -> data) and answers the ones to
    replace (blob id -> Substitute); the others are written as they are."""
    candidate: Callable[[bytes], bool]
    find: Callable[[dict[bytes, bytes]], dict[bytes, Substitute]]


def walk_files(store: BaseObjectStore, tree_id: bytes,
               prefix: str = "") -> Iterator[tuple[str, int, bytes, bytes]]:
    """(path, mode, blob id, content) of every file under a tree, depth first, in tree
    order; a path that must not be written into an archive (``..``, ``.git``, an
    absolute path ...) is UnsafeArchivePathError, as dulwich's tar writer has it."""
    from dulwich.archive import UnsafeArchivePathError

    for entry in read_tree(store, tree_id).iteritems():
        if not safe_name(entry.path):
            raise UnsafeArchivePathError(entry.path)
        path = f"{prefix}{entry.path.decode('utf-8', 'replace')}"
        if S_ISGITLINK(entry.mode):
            continue
        obj = store[entry.sha]
        if isinstance(obj, Tree):
            yield from walk_files(store, entry.sha, path + "/")
        else:
            yield path, entry.mode, entry.sha, obj.as_raw_string()


def safe_name(name: bytes) -> bool:
    """git's verify_path for one tree entry's name: no separators, NUL, backslash or
    colon, and not ``.``, ``..`` or ``.git`` (case-insensitive, trailing dots and
    spaces ignored, as NTFS does), wherever the archive is extracted."""
    if not name or any(ch in name for ch in (b"/", b"\\", b"\0", b":")):
        return False
    return name.lower().rstrip(b". ") not in (b"", b".", b"..", b".git")


def _ordered(store: BaseObjectStore, commit: Commit, prefix: str,
             substitutions: Substitutions | None):
    """Every file as (path, mode, content or Substitute): the candidates last, once
    ``find`` has answered for all of them."""
    held = []
    for path, mode, sha, data in walk_files(store, commit.tree, prefix):
        if substitutions is not None and S_ISREG(mode) and substitutions.candidate(data):
            held.append((path, mode, sha, data))
        else:
            yield path, mode, data
    if not held:
        return
    found = substitutions.find({sha: data for _, _, sha, data in held})
    for path, mode, sha, data in held:
        yield path, mode, found.get(sha, data)


def build_zip(store: BaseObjectStore, commit: Commit, prefix: str, out: BinaryIO,
              substitutions: Substitutions | None = None) -> None:
    stamp = time.gmtime(max(commit.commit_time, _ZIP_EPOCH))[:6]
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, mode, data in _ordered(store, commit, prefix, substitutions):
            info = zipfile.ZipInfo(path, date_time=stamp)
            info.external_attr = (mode & 0xFFFF) << 16  # unix mode: keeps +x and symlinks
            info.compress_type = zipfile.ZIP_DEFLATED
            if isinstance(data, Substitute):
                info.file_size = data.size
                with zf.open(info, "w", force_zip64=data.size >= zipfile.ZIP64_LIMIT) as w:
                    for chunk in data.chunks():
                        w.write(chunk)
            else:
                zf.writestr(info, data)


class _Chunks(io.RawIOBase):
    """A Substitute's chunks as the file tarfile copies a member from."""

    def __init__(self, chunks: Iterator[bytes]):
        self._chunks, self._rest = chunks, b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self._rest:
            self._rest = next(self._chunks, None)
            if self._rest is None:
                self._rest = b""
                return 0
        n = min(len(buffer), len(self._rest))
        buffer[:n], self._rest = self._rest[:n], self._rest[n:]
        return n


def build_tar_gz(store: BaseObjectStore, commit: Commit, prefix: str, out: BinaryIO,
                 substitutions: Substitutions | None = None) -> None:
    """A pax tar in gzip, as ``git archive``: modes as a checkout has them (644 or 755,
    no setuid), symlinks as symlinks, every time the commit's (the gzip header's too,
    so one commit makes the same bytes)."""
    import gzip
    import tarfile

    from dulwich.index import cleanup_mode

    mtime = int(commit.commit_time)
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=mtime, filename="") as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, mode, data in _ordered(store, commit, prefix, substitutions):
            info = tarfile.TarInfo(path)
            info.mtime = mtime
            if S_ISLNK(mode):
                info.type, info.linkname = tarfile.SYMTYPE, data.decode("utf-8", "replace")
                info.mode = 0o777
                tar.addfile(info)
                continue
            info.mode = cleanup_mode(mode) & 0o777
            if isinstance(data, Substitute):
                info.size = data.size
                tar.addfile(info, io.BufferedReader(_Chunks(data.chunks()), 1 << 20))
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))


def build_bundle(store: BaseObjectStore, commit: Commit) -> bytes:
    from dulwich.bundle import create_bundle_from_repo, write_bundle
    from dulwich.refs import DictRefsContainer

    # create_bundle_from_repo reads refs and asks for pack data: give it exactly these.
    only = SimpleNamespace(
        refs=DictRefsContainer({b"refs/heads/bundle": commit.id, b"HEAD": commit.id}),
        generate_pack_data=store.generate_pack_data, object_format=store.object_format)
    bundle = create_bundle_from_repo(only, refs=[b"refs/heads/bundle", b"HEAD"])
    out = io.BytesIO()
    write_bundle(out, bundle)
    return out.getvalue()


def build_archive(store: BaseObjectStore, commit_id: bytes | str, fmt: str, prefix: str,
                  out: BinaryIO | None = None,
                  substitutions: Substitutions | None = None) -> bytes | None:
    """The archive of a commit in ``fmt`` (one of FORMATS); ``prefix`` is the top
    directory of zip and tar.gz (``"name/"``; a bundle has none).  Written to ``out``
    when given (a spooled file: a large archive need not be held in memory; None is
    returned), else returned."""
    if out is None:
        buffer = io.BytesIO()
        build_archive(store, commit_id, fmt, prefix, buffer, substitutions)
        return buffer.getvalue()
    commit = read_commit(store, commit_id)
    if fmt == "zip":
        build_zip(store, commit, prefix, out, substitutions)
    elif fmt == "tar.gz":
        build_tar_gz(store, commit, prefix, out, substitutions)
    elif fmt == "bundle":
        out.write(build_bundle(store, commit))
    else:
        raise ValueError(f"unknown archive format {fmt!r}")
    return None
