"""Repositories: a dulwich repo over the S3 object store and the DynamoDB refs.

A repository has its own refs (``REFS#<repo id>``) and reads and writes objects in an
object pool (``POOL#<pool id>``) that its forks share; the caller keeps the repo -> pool
mapping.  Open one ``NimbusRepo`` per request: ref reads come from one snapshot Query.
"""
from __future__ import annotations

from dulwich.config import StackedConfig
from dulwich.errors import RefFormatError
from dulwich.object_format import get_object_format
from dulwich.object_store import peel_sha
from dulwich.repo import MemoryRepo

from chalicelib.gitstore import refdb
from chalicelib.gitstore.errors import InvalidName
from chalicelib.gitstore.objects import S3ObjectStore
from chalicelib.gitstore.refs import DynamoRefsContainer

delete_repo_refs = refdb.delete_repo_refs


class NimbusRepo(MemoryRepo):
    """A bare repository; config, description and named files are in memory (per
    request) like MemoryRepo's, objects and refs are in AWS."""

    def __init__(self, repo_id: object, pool_id: object, object_store: S3ObjectStore,
                 refs: DynamoRefsContainer, *, max_input_size: int | None = None):
        # MemoryRepo sets up config handling and bare-repo behaviour; swap its in-memory
        # store and refs for ours.
        MemoryRepo.__init__(self)
        self.object_store = object_store
        self.refs = refs
        self.object_format = object_store.object_format
        self.repo_id = refs.repo_id
        self.pool_id = object_store.pool_id
        if max_input_size:
            self._config.set((b"receive",), b"maxInputSize", str(max_input_size).encode())

    def get_peeled(self, ref: bytes) -> bytes:
        # A symref (HEAD) has no peeled value of its own; its target's is stored, so
        # advertising refs reads no object (and no pack index).
        peeled = self.refs.get_peeled(ref)
        if peeled is None:
            names, _ = self.refs.follow(ref)
            if names and names[-1] != ref:
                peeled = self.refs.get_peeled(names[-1])
        return peeled if peeled is not None else super().get_peeled(ref)

    def get_config_stack(self) -> StackedConfig:
        # Only this repository's config: never the Lambda's ~/.gitconfig or /etc/gitconfig.
        return StackedConfig([self.get_config()])

    def close(self) -> None:
        self.object_store.close()

    def __enter__(self) -> "NimbusRepo":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"NimbusRepo({self.repo_id!r}, pool={self.pool_id!r})"


def open_repo(repo_id: object, pool_id: object, object_format: str = "sha1", *,
              max_input_size: int | None = None) -> NimbusRepo:
    """Open a repository (no AWS call until something is read)."""
    store = S3ObjectStore(pool_id, object_format=get_object_format(object_format))
    refs = DynamoRefsContainer(repo_id, peel=lambda sha: peel_sha(store, sha)[1].id)
    return NimbusRepo(repo_id, pool_id, store, refs, max_input_size=max_input_size)


def init_repo(repo_id: object, pool_id: object, default_branch: str,
              object_format: str = "sha1") -> NimbusRepo:
    """Create an empty repository: ``HEAD`` -> ``refs/heads/<default_branch>``.

    Idempotent for a retried creation; refuses to re-point an existing HEAD."""
    target = f"refs/heads/{default_branch}"
    repo = open_repo(repo_id, pool_id, object_format)
    try:
        repo.refs._check_refname(target.encode())
    except RefFormatError:
        raise InvalidName(f"invalid branch name {default_branch!r}") from None
    if not refdb.put_symref(repo_id, "HEAD", target, only_if_new=True):
        current = refdb.load_refs(repo_id).get("HEAD")
        if current is None or current.symref != target:
            raise InvalidName(f"repository {repo_id} already exists with another HEAD")
    repo.refs.refresh()
    return repo

