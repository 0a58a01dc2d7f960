"""Git smart HTTP for a repository the caller may use (``git_transport/routes.py`` decides who
may; this runs the protocol over ``chalicelib.gitstore.smart_http``).

A push's ref transaction is ours (``pushes``): the refs' compare-and-swap, the branch
records, the repository's metadata and the push events commit together, so a push
that is reported "ok" has its records and its events, and a refused one has neither.

Each call opens the repository and closes it when its answer is done (for a fetch, when
the stream ends or is abandoned): a pack read whole is a memory map of its file, and
the map is not unmapped until the pack is closed, which otherwise waits for a cyclic
garbage collection (shallow fetches of a 210 MB repository, one after the other, held
two or three maps of its pack at once).
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import quote

from chalicelib import contents, quota
from chalicelib.settings import get_settings

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.gitstore.repo import NimbusRepo
    from chalicelib.repos import RepoView

# Set by the streaming entry point (chalicelib/streaming) to the bytes its answer may
# carry; unset, the request is on the buffered path (6 MB proxy result, base64 body).
STREAM_BUDGET: ContextVar[int | None] = ContextVar("git_stream_budget", default=None)

UPLOAD_PACK = "git-upload-pack"
RECEIVE_PACK = "git-receive-pack"
SERVICES = (UPLOAD_PACK, RECEIVE_PACK)


@dataclass(frozen=True)
class GitTarget:
    """The git a smart HTTP request reaches: the repository's own (the defaults), or
    another git the repository owns (its wiki), opened by ``open`` (a pool of its own,
    so any object of it may be wanted), whose pushes move refs through
    ``commit_refs(git, updates, actor)`` (a compare-and-swap of every ref, all or
    nothing) and skip what only the repository's branches have: protection rules, Git
    LFS, quota, pull request hints."""
    view: RepoView
    open: Callable[[], NimbusRepo] | None = None
    commit_refs: Callable[[NimbusRepo, list, Account | None], None] | None = None


def open_git(view: RepoView) -> NimbusRepo:
    from chalicelib.gitstore import repo as gitrepo

    return gitrepo.open_repo(int(view.repo.id), int(view.repo.pool_id))


def _open(view: RepoView, target: GitTarget | None) -> NimbusRepo:
    return target.open() if target is not None and target.open is not None else open_git(view)


def advertise(view: RepoView, service: str, git_protocol: str | None = None, *,
              target: GitTarget | None = None) -> bytes:
    """Body of ``GET info/refs?service=<service>``; ``git_protocol`` is the request's
    ``Git-Protocol`` header (``version=2`` gets protocol v2 for upload-pack)."""
    from chalicelib.gitstore import smart_http

    with _open(view, target) as git:
        return smart_http.advertise(git, service, git_protocol)


def upload_pack(view: RepoView, body: bytes, git_protocol: str | None = None, *,
                target: GitTarget | None = None) -> Iterator[bytes]:
    """Body of ``POST git-upload-pack`` (fetch, clone, partial clone's lazy fetches) as
    chunks, the pack built as they are taken.  The first ``next`` negotiates (and
    raises what the request did wrong); take it inside the request."""
    from chalicelib.gitstore import smart_http

    own_pool = target is not None and target.open is not None
    git = _open(view, target)
    try:
        yield from smart_http.upload_pack_stream(
            git, body, git_protocol,
            any_object=lambda: own_pool or _pool_is_private(view))
    finally:
        git.close()


def _pool_is_private(view: RepoView) -> bool:
    """Whether the repository's object pool holds its objects only.  Forgejo lets a
    client want any object by id (git's uploadpack.allowAnySHA1InWant); with a pool
    shared by forks that could hand out another repository's objects, so then only
    objects reachable from this repository's refs may be wanted."""
    from chalicelib import repos

    if int(view.repo.pool_id) != int(view.repo.id):
        return False
    pool = repos.pool_by_id(int(view.repo.pool_id))
    return pool is None or int(pool.members or 0) <= 1


def receive_pack(view: RepoView, body: bytes, *, actor: Account | None,
                 before_commit: Callable[[list], None] | None = None,
                 target: GitTarget | None = None) -> bytes:
    """Body of ``POST git-receive-pack`` (push).  ``before_commit(updates)`` runs after
    the pack is stored and before the refs move (crash tests)."""
    from chalicelib.gitstore import smart_http

    if target is not None and target.commit_refs is not None:
        return _receive_other(view, body, actor, before_commit, target)
    git = open_git(view)

    def commit_refs(updates: list[tuple[str, str, str]]) -> None:
        contents.commit_ref_changes(contents.prepare_ref_changes(view.repo, git, updates, actor=actor,
                                     guard=contents.Guard.CHECKED))

    def check_push(updates: list[tuple[str, str, str]]) -> str | None:
        return quota.quota_push_refusal(view.repo, updates)

    def check_refs(updates: list[tuple[str, str, str]]) -> str | None:
        # Forgejo's pre-receive hook prints "<brand>: <message>" (fj:cmd/hook.go).
        from chalicelib import lfs, protection

        # The rules first (they read the most cheaply), the pointers' needs last: they
        # write, and only for a push nothing else refuses.
        refused = (protection.protection_push_refusal(view, git, updates, actor)
                   or lfs.locks_push_refusal(view, git, updates, actor)
                   or lfs.admit_pointers(view.repo, git.object_store.lfs_pointers))
        return f"{get_settings().server.APP_NAME}: {refused}" if refused else None

    with git:
        return smart_http.receive_pack(git, body, commit_refs=commit_refs,
                                       before_commit=before_commit, check_update=_refuse_hidden,
                                       check_push=check_push, check_refs=check_refs,
                                       after_commit=lambda updates: pull_request_hints(
                                           view, updates))


def _receive_other(view: RepoView, body: bytes, actor: Account | None,
                   before_commit: Callable[[list], None] | None, target: GitTarget) -> bytes:
    """A push to a git the repository owns (its wiki): the pack stored, the refs moved
    by the target's compare-and-swap; hidden refs refused as for the repository."""
    from chalicelib.gitstore import smart_http

    git = _open(view, target)
    with git:
        return smart_http.receive_pack(
            git, body, before_commit=before_commit, check_update=_refuse_hidden,
            commit_refs=lambda updates: target.commit_refs(git, updates, actor))


def pull_request_hints(view: RepoView, updates: list[tuple[str, str, str]]) -> str | None:
    """What Forgejo's post-receive hook prints for each branch pushed other than the
    default one: the link that opens a pull request from it into the default branch,
    or the one to the pull request already open.  A fork's pushes print nothing: its
    pull requests go to the parent, whose compare page does not take another
    repository's branch yet."""
    from chalicelib import pulls, repos

    if view.repo.fork:
        return None
    default = view.repo.default_branch
    html_url = repos.repo_html_url(view)
    lines = []
    for ref, _, new in updates:
        branch = ref.removeprefix("refs/heads/")
        if branch == ref or branch == default or set(new) == {"0"}:
            continue
        number = pulls.open_pull_number(int(view.repo.id), branch, default)
        if number is None:
            lines += ["", f"Create a new pull request for '{branch}':",
                      f"  {html_url}/compare/{quote(default)}...{quote(branch)}", ""]
        else:
            lines += ["", "Visit the existing pull request:", f"  {html_url}/pulls/{number}", ""]
    return "".join(line + "\n" for line in lines) or None


# Refs the service keeps itself (Forgejo's receive.hideRefs): the pull requests' heads.
SERVER_REFS = ("refs/pull/",)


def _refuse_hidden(ref: str, old: str, new: str) -> str | None:
    if ref.startswith(SERVER_REFS):
        return "deny updating a hidden ref"
    return None
