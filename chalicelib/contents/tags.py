"""A repository's git tags (Forgejo's repoListTags, repoGetTag, repoCreateTag,
repoDeleteTag).

Reading: every ``refs/tags/*`` ref is described from its object (``gitops.tags``):
lightweight and annotated tags, and refs on trees or blobs too.  The list is ordered as
Forgejo orders it, newest first by the tagger's time (the committer's for a lightweight
tag), then by name; so every tag's object is read for a page, as Forgejo's
``for-each-ref`` does.  ``archive_download_count`` is the count of the release that
holds the tag (a bare tag has no release row here, so it counts zero).

Writing goes through ``pushes``: ``refs/tags/<name>`` is created from absent (or deleted
from the value read) by compare-and-swap, with the repository's metadata and the
push/create/delete events, in one transaction.  With a message, the tag is annotated:
a tag object by the caller, signed with the instance key when ``[repository.signing]
CRUD_ACTIONS`` says so for the caller; without one it is lightweight (Forgejo's rule).

Tags and releases: a tag held by a release (its ``ReleaseTagClaim``) cannot be deleted
here (409, as Forgejo answers), and a name a release holds cannot be created (409, as
Forgejo's release-row check).  Both writes carry the check "no release holds the name"
as a condition of their transaction: a release whose claim commits before the tag write
makes it fail with 409, whatever the earlier read saw.  A release committed after a
tag's deletion is not stopped (its transaction does not check the ref): it then names
a tag that is gone.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import quota, releases
from chalicelib.contents import files as repo_files
from chalicelib.contents import pushes
from chalicelib.contents.options import CreateTagOption
from chalicelib.errors import (ConditionFailed, ConflictError, InvalidInput, NotAllowed,
                               NotFoundError, RefProtected)
from chalicelib.gitstore.errors import RefsBusy, StaleRefs
from chalicelib.releases import check_tag_name
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.gitops.tags import TagInfo
    from chalicelib.repos import Caller, RepoView

log = logging.getLogger("nimbus.tags")

TAGS = pushes.TAGS
# Forgejo's messages.
ATTACHED = "a tag attached to a release cannot be deleted directly"
# Forgejo's answer (422) when a tag protection rule refuses a new tag, here and for a
# release on a new tag.
PROTECTED_CREATE = "user not allowed to create protected tag"


@dataclass(frozen=True)
class TagView:
    """A tag with the archive downloads of the release that holds it."""
    info: TagInfo
    archive_zip: int = 0
    archive_tar_gz: int = 0


@dataclass(frozen=True)
class TagPage:
    tags: list[TagView]
    total: int


# Reads ------------------------------------------------------------------------------------

def _tag_refs(git) -> dict[str, bytes]:
    return {name.decode("utf-8", "replace"): sha
            for name, sha in git.refs.as_dict(TAGS.encode().rstrip(b"/")).items()}


def _describe(git, name: str, sha: bytes) -> TagInfo | None:
    from chalicelib.gitops import tags as gittags
    from chalicelib.gitops.errors import ObjectMissing

    try:
        return gittags.describe(git.object_store, name, sha)
    except ObjectMissing:
        log.warning("tag %r names a missing object %s", name, sha)
        return None


def _with_counts(repo_id: int, infos: list[TagInfo]) -> list[TagView]:
    """Two batched reads for a page: the tags' release claims, then those releases."""
    names = [i.name for i in infos]
    unit_of_work.prefetch(releases.release_tag_key(repo_id, n) for n in names
                          if releases.valid_release_tag_key(n))
    holders = {n: releases.release_tag_owner(repo_id, n) for n in names}
    unit_of_work.prefetch(releases.release_key(repo_id, rid)
                          for rid in holders.values() if rid is not None)
    shown = []
    for info in infos:
        rid = holders[info.name]
        release = releases.release_item(repo_id, rid) if rid is not None else None
        if release is None:
            shown.append(TagView(info))
        else:
            shown.append(TagView(info, int(release.archive_zip), int(release.archive_tar_gz)))
    return shown


def list_tags(view: RepoView, offset: int, limit: int) -> TagPage:
    """repoListTags: one page of tags, newest first, and how many there are."""
    git = repo_files.open_git(view.repo)
    found = [info for name, sha in _tag_refs(git).items()
             if (info := _describe(git, name, sha)) is not None]
    found.sort(key=lambda i: i.name)
    found.sort(key=lambda i: i.when or 0, reverse=True)
    page = found[offset:offset + limit]
    return TagPage(_with_counts(int(view.repo.id), page), len(found))


def _ref(git, name: str) -> bytes | None:
    try:
        return git.refs[(TAGS + name).encode("utf-8")]
    except (KeyError, ValueError, UnicodeEncodeError):
        return None


def get_tag(view: RepoView, name: str) -> TagView:
    """repoGetTag: 404 when no such tag."""
    git = repo_files.open_git(view.repo)
    sha = _ref(git, name)
    info = _describe(git, name, sha) if sha is not None else None
    if info is None:
        raise NotFoundError(f"tag does not exist [name: {name}]")
    return _with_counts(int(view.repo.id), [info])[0]


# Writes -----------------------------------------------------------------------------------

def _target_commit(git, view: RepoView, target: str) -> bytes:
    """The commit a branch, tag or (short) commit id names; 404 as Forgejo's
    ``GetCommit`` failing."""
    from dulwich.objects import Commit

    try:
        sha = repo_files.resolve(git, view.repo, target)
        if isinstance(git[sha], Commit):
            return sha
    except (NotFoundError, KeyError):
        pass
    raise NotFoundError(f"target not found: object does not exist [id: {target}]")


def _write(change: pushes.RefChange, *, stale: str, claimed: str) -> None:
    """Commit the change with the check that no release holds the tag; ``stale``: what
    a lost compare-and-swap means, ``claimed``: what a release holding the tag means."""
    try:
        pushes.commit(change)
    except StaleRefs:
        raise ConflictError(stale) from None
    except RefsBusy:
        raise ConflictError("the tags are being changed concurrently; try again") from None
    except ConditionFailed as failed:
        if failed.label != releases.RELEASE_TAG_TAKEN:
            raise
        raise ConflictError(claimed) from None


def create_tag(caller: Caller, view: RepoView, option: CreateTagOption) -> TagView:
    """repoCreateTag."""
    from chalicelib import signing
    from chalicelib.contents.authorship import identity
    from chalicelib.gitops import objects
    from chalicelib.gitops import tags as gittags

    pushes.require_ref_writer(caller, view, "tags")
    name = option.tag_name or ""
    if not name.strip():
        raise InvalidInput("[TagName]: Required")
    check_tag_name(name)
    message = option.message or ""
    target = option.target or view.repo.default_branch
    quota.ensure_within_quota(int(view.repo.owner_id), "size:git:all")    # Forgejo's middleware
    repo, user = view.repo, caller.user
    git = repo_files.open_git(repo)
    commit = _target_commit(git, view, target)
    if _ref(git, name) is not None or releases.release_tag_owner(int(repo.id), name) is not None:
        raise ConflictError(f"tag already exists [name: {name}]")
    new = commit
    if message:
        with objects.staged(git.object_store) as staged:
            made = gittags.write_tag(staged, name=name, target=commit, tagger=identity(user),
                                     message=message,
                                     sign=signing.commit_signer("CRUD_ACTIONS", user))
        new = made.id
    try:
        change = pushes.prepare(repo, git, [(TAGS + name, pushes.ZERO, new.decode())],
                                actor=user)
    except RefProtected:
        raise InvalidInput(PROTECTED_CREATE) from None
    change.also(1, lambda _uow: releases.stage_tag_unclaimed(int(repo.id), name))
    exists = f"tag already exists [name: {name}]"
    _write(change, stale=exists, claimed=exists)
    info = _describe(git, name, new)
    if info is None:        # the object was written above: only a broken store gets here
        raise NotFoundError(f"tag does not exist [name: {name}]")
    return TagView(info)


def delete_tag(caller: Caller, view: RepoView, name: str) -> None:
    """repoDeleteTag: 409 when a release holds the tag (delete the release first)."""
    pushes.require_ref_writer(caller, view, "tags")
    repo_id = int(view.repo.id)
    if releases.release_tag_owner(repo_id, name) is not None:
        raise ConflictError(ATTACHED)
    git = repo_files.open_git(view.repo)
    sha = _ref(git, name)
    if sha is None:
        raise NotFoundError(f"tag does not exist [name: {name}]")
    try:
        change = pushes.prepare(view.repo, git, [(TAGS + name, sha.decode(), pushes.ZERO)],
                                actor=caller.user)
    except RefProtected:
        raise NotAllowed("user not allowed to delete protected tag") from None
    change.also(1, lambda _uow: releases.stage_tag_unclaimed(repo_id, name))
    _write(change, stale=f"tag was changed meanwhile [name: {name}]", claimed=ATTACHED)


def preload_more_keys(owner_name: str, repo_name: str, user_id: int | None, *,
                      tag: str | None = None) -> list:
    """The second preload batch of a tag route: the caller's access items and, for one
    tag, the claim a release may hold on it."""
    from chalicelib import releases

    return releases.release_preload_more_keys(owner_name, repo_name, user_id, tag=tag)
