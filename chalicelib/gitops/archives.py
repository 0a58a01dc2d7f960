"""Source archives of a commit: ``zip``, ``tar.gz`` (both under a ``<prefix>/`` top
directory, as ``git archive --prefix``) and ``bundle`` (a git bundle with one branch,
``bundle``, and HEAD at the commit, as Forgejo's).  Submodules are left out: their
content lives in other repositories.  Where archives are kept is the caller's concern.
"""
from __future__ import annotations

import io
import time
import zipfile
from types import SimpleNamespace
from typing import Iterator

from dulwich.object_store import BaseObjectStore
from dulwich.objects import S_ISGITLINK, Commit, Tree

from chalicelib.gitops.objects import read_commit, read_tree

FORMATS = ("zip", "tar.gz", "bundle")
# The zip format cannot hold a date before 1980.
_ZIP_EPOCH = 315532800


def walk_files(store: BaseObjectStore, tree_id: bytes,
               prefix: str = "") -> Iterator[tuple[str, int, bytes]]:
    """(path, mode, content) of every file under a tree, depth first, in tree order."""
    for entry in read_tree(store, tree_id).iteritems():
        path = f"{prefix}{entry.path.decode('utf-8', 'replace')}"
        if S_ISGITLINK(entry.mode):
            continue
        obj = store[entry.sha]
        if isinstance(obj, Tree):
            yield from walk_files(store, entry.sha, path + "/")
        else:
            yield path, entry.mode, obj.as_raw_string()


def build_zip(store: BaseObjectStore, commit: Commit, prefix: str) -> bytes:
    out = io.BytesIO()
    stamp = time.gmtime(max(commit.commit_time, _ZIP_EPOCH))[:6]
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, mode, data in walk_files(store, commit.tree, prefix):
            info = zipfile.ZipInfo(path, date_time=stamp)
            info.external_attr = (mode & 0xFFFF) << 16  # unix mode: keeps +x and symlinks
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return out.getvalue()


def build_tar_gz(store: BaseObjectStore, commit: Commit, prefix: str) -> bytes:
    from dulwich.archive import tar_stream

    chunks = tar_stream(store, read_tree(store, commit.tree), commit.commit_time,
                        prefix=prefix.encode(), format="gz")
    return b"".join(chunks)


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


def build_archive(store: BaseObjectStore, commit_id: bytes | str, fmt: str, prefix: str) -> bytes:
    """The archive of a commit in ``fmt`` (one of FORMATS); ``prefix`` is the top
    directory of zip and tar.gz (``"name/"``; a bundle has none)."""
    commit = read_commit(store, commit_id)
    if fmt == "zip":
        return build_zip(store, commit, prefix)
    if fmt == "tar.gz":
        return build_tar_gz(store, commit, prefix)
    if fmt == "bundle":
        return build_bundle(store, commit)
    raise ValueError(f"unknown archive format {fmt!r}")
