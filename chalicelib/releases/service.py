"""Releases (Forgejo's rules): list, create, get, edit, delete, latest, by tag.

Who may do what (Forgejo's ``reqRepoReader``/``reqRepoWriter`` on the releases unit):
readers list and read published releases; drafts are seen by writers only (elsewhere a
draft answers 404, as a missing release does); writers create, edit and delete.

What a release does to git (Forgejo's ``createTag``): publishing (creating a non-draft
release, or making a draft non-draft) creates the tag when it does not exist yet — a
lightweight tag on ``target_commitish`` (the default branch when empty), moved from
"absent" by compare-and-swap through ``contents.pushes`` in the SAME transaction as the
release item, so the refs, the repository's metadata, the push events and the release
commit together or not at all.  A draft creates no tag.  Deleting a release keeps its
tag.  A tag that already exists is used as it is: the release takes its commit.

Tags without a release are not releases here: Forgejo keeps a "tag-only" release row
for every pushed tag but its API never lists them (``IncludeTags: false``), and answers
404 for them by id or tag; so nothing is stored for a pushed tag (docs/compatibility.md).

Events (``ReleaseChanged``, as Forgejo notifies): ``published`` when a release becomes
published (created non-draft, or a draft published), ``updated`` when a published
release is edited, ``deleted`` when a published release is deleted; drafts raise none.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from chalicelib import clock, contents, events, quota, repos
from chalicelib.accounts import account_from
from chalicelib.accounts import account_snapshot as account_snapshot
from chalicelib.errors import (ArchivedRepository, ConditionFailed, ConflictError, InvalidInput,
                               NotFoundError, PermissionDenied, RefProtected)
from chalicelib.gitstore import refdb
from chalicelib.gitstore.errors import RefsBusy, StaleRefs
from chalicelib.releases import s3_objects as release_bytes
from chalicelib.releases import store
from chalicelib.releases.options import CreateReleaseOption, EditReleaseOption
from chalicelib.repos import (Access, Caller, HasAccess, RepoView, access_keys, repo_access,
                              strip_git)
from chalicelib.store import ids, unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.releases.store import Asset, Release
    from chalicelib.repos import Repo

log = logging.getLogger("nimbus.releases")

RELEASES_UNIT = "repo.releases"
TAGS = "refs/tags/"
# git check-ref-format, for the part after refs/tags/ (services/repo_init has the branch twin).
_BAD_TAG = ("..", "@{", "//", "/.", ".lock/")
_BAD_CHARS = set(" ~^:?*[\\\x7f")


@dataclass
class Ctx(HasAccess):
    """A repository's releases as one caller sees them (``access``: on the releases unit;
    ``repo``, ``repo_id`` and ``user`` are taken from the view and the caller)."""
    view: RepoView
    caller: Caller
    access: Access
    repo: Repo = field(init=False, repr=False)
    repo_id: int = field(init=False)
    user: Account | None = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.repo, self.user = self.view.repo, self.caller.user
        self.repo_id = int(self.view.repo.id)

    def fresh(self) -> dict[int, Account]:
        """Accounts the request has read anyway, shown fresh instead of their snapshots."""
        found = {int(self.view.owner.id): self.view.owner}
        if self.user is not None:
            found[int(self.user.id)] = self.user
        return found

    def publisher(self, release: Release) -> Account:
        return account_from(release.publisher, self.fresh())

    def event_fields(self) -> dict:
        return dict(actor_id=int(self.user.id) if self.user else None,
                    actor=events.snapshot(self.user), repo_id=self.repo_id,
                    repo=events.snapshot(repos.repo_values(self.repo)))


def context(caller: Caller, view: RepoView) -> Ctx:
    access = repo_access(caller.user, view.repo, view.owner, public_only=caller.public_only,
                         unit=RELEASES_UNIT)
    if access < Access.READ:
        raise NotFoundError("repository does not exist")
    return Ctx(view, caller, access)


def preload_more_keys(owner_name: str, repo_name: str, user_id: int | None, *,
                      release_id: int | None = None, asset_id: int | None = None,
                      tag: str | None = None) -> list:
    """The second preload batch of a release route: the caller's access items and what
    the path names (the release item, an attachment, the claim of a tag)."""
    repo = repos.repo_by_name(owner_name, strip_git(repo_name))
    if repo is None:
        return []
    found = access_keys(repo, user_id)
    if release_id is not None:
        found.append(store.release_key(int(repo.id), release_id))
        if asset_id is not None:
            found.append(store.asset_key(int(repo.id), release_id, asset_id))
    if tag and store.valid_tag_key(tag):
        found.append(store.tag_key(int(repo.id), tag))
    return found


def require_writer(ctx: Ctx) -> None:
    if ctx.user is None or not ctx.can_write:
        raise PermissionDenied("user should have a permission to write to a repo")
    if ctx.repo.archived:
        raise ArchivedRepository("repository is archived")


def visible(ctx: Ctx, release: Release | None) -> bool:
    return release is not None and (not release.draft or ctx.can_write)



# Reads ------------------------------------------------------------------------------------

def _newest_first(releases: list[Release]) -> list[Release]:
    """Forgejo's order: ``created_unix`` then ``id``, newest first."""
    return sorted(releases, key=lambda r: (r.created, r.id), reverse=True)


def list_releases(ctx: Ctx, *, draft: bool | None = None, prerelease: bool | None = None,
                  keyword: str = "", offset: int = 0,
                  limit: int = 30) -> tuple[list[Release], int]:
    """repoListReleases: one page and how many match.  Drafts only for writers (a reader
    asking for ``draft=true`` gets nothing, as in Forgejo)."""
    found = [r for r in store.all_of(ctx.repo_id) if visible(ctx, r)]
    if draft is not None:
        found = [r for r in found if r.draft == draft]
    if prerelease is not None:
        found = [r for r in found if r.prerelease == prerelease]
    if keyword:
        lowered = keyword.lower()
        found = [r for r in found if lowered in r.title.lower() or lowered in r.tag_name.lower()
                 or lowered in r.note.lower()]
    ordered = _newest_first(found)
    return ordered[offset:offset + limit], len(ordered)


def get_release(ctx: Ctx, release_id: int) -> Release:
    """A release with its attachments; 404 when missing or a draft the caller may not see."""
    release = store.with_assets(ctx.repo_id, release_id)
    if not visible(ctx, release):
        raise NotFoundError(f"release does not exist [id: {release_id}]")
    return release


def visible_release(ctx: Ctx, release_id: int) -> Release:
    """The release item alone (preloaded), as ``get_release`` checks it."""
    release = store.get(ctx.repo_id, release_id)
    if not visible(ctx, release):
        raise NotFoundError(f"release does not exist [id: {release_id}]")
    return release


def latest(ctx: Ctx) -> Release:
    """The newest release that is neither a draft nor a pre-release."""
    found = [r for r in store.all_of(ctx.repo_id) if not r.draft and not r.prerelease]
    if not found:
        raise NotFoundError("release does not exist [id: 0, tag_name: latest]")
    return _newest_first(found)[0]


def by_tag(ctx: Ctx, tag: str) -> Release:
    release_id = store.tag_owner(ctx.repo_id, tag)
    release = store.with_assets(ctx.repo_id, release_id) if release_id is not None else None
    if not visible(ctx, release):
        raise NotFoundError(f"release does not exist [id: 0, tag_name: {tag}]")
    return release


# Input ------------------------------------------------------------------------------------

def check_tag_name(name: str) -> str:
    """git check-ref-format rules for ``refs/tags/<name>``."""
    if (not name or len(name) > 255 or name.startswith(("-", "/", ".")) or name.endswith(("/", "."))
            or name == "@" or any(part in name + "/" for part in _BAD_TAG)
            or any(ch in _BAD_CHARS or ord(ch) < 32 for ch in name)):
        raise InvalidInput(f"[TagName]: invalid tag name {name!r}")
    return name


def _tag_commit(ctx: Ctx, git, tag: str) -> str | None:
    """The commit an existing tag names (peeled), or None when the tag does not exist."""
    from dulwich.objects import Tag

    try:
        obj = git[git.refs[f"{TAGS}{tag}".encode()]]
    except KeyError:
        return None
    while isinstance(obj, Tag):
        obj = git[obj.object[1]]
    return obj.id.decode()


def _target_commit(ctx: Ctx, git, target: str) -> str:
    try:
        return contents.resolve_ref(git, ctx.repo, target).decode()
    except NotFoundError:
        raise NotFoundError(f'target "{target}" not found: object does not exist') from None


# Writes -----------------------------------------------------------------------------------

def snapshot(release: Release, assets: tuple[Asset, ...] | None = None) -> dict:
    """The release as plain data for events: its fields, publisher and attachments."""
    shown = [a for a in (assets if assets is not None else release.assets)
             if a.state == store.READY]
    return {"id": release.id, "tag_name": release.tag_name, "target": release.target,
            "title": release.title, "note": release.note, "draft": release.draft,
            "prerelease": release.prerelease, "hide_archive_links": release.hide_archive_links,
            "sha": release.sha, "publisher_id": release.publisher_id,
            "publisher": dict(release.publisher), "created": release.created,
            "archive_zip": release.archive_zip, "archive_tar_gz": release.archive_tar_gz,
            "assets": [{"id": a.id, "uuid": a.uuid, "name": a.name, "size": a.size,
                        "download_count": a.download_count, "created": a.created,
                        "external_url": a.external_url} for a in shown]}


def _event(ctx: Ctx, release: Release, action: str) -> events.ReleaseChanged:
    return events.ReleaseChanged(**ctx.event_fields(), release_id=release.id,
                                 tag_name=release.tag_name, action=action,
                                 release=snapshot(release))


def _conflict(failed: ConditionFailed, tag: str) -> Exception:
    if failed.label == store.TAG:
        return ConflictError(f"release tag already exist [tag_name: {tag}]")
    if failed.label == store.REPO:
        return NotFoundError("repository does not exist")
    if failed.label == store.RELEASE:
        return ConflictError("the release was changed meanwhile; try again")
    return failed


def _write(ctx: Ctx, tag: str, git, new_commit: str | None, stage, size: int) -> None:
    """Commit ``stage(uow, repo_staged)`` alone, or with the creation of
    ``refs/tags/<tag>`` on ``new_commit`` through ``pushes`` when that is given (then the
    unit already updates the repository: ``repo_staged``)."""
    try:
        if new_commit is None:
            # Publishing on a tag that exists relies on it: the write checks the tag ref
            # still holds what was read, so a concurrent tag deletion makes it 409.
            tag_ref = TAGS + tag
            held = git.refs.read_loose_ref(tag_ref.encode()) if git is not None else None

            # DynamoDB cancels a transaction that meets a concurrent one on the same
            # items; retried, it meets the winner's condition instead (409 below).
            def commit() -> None:
                with unit_of_work.writing() as uow:
                    if held is not None:
                        refdb.stage_ref_check(uow, ctx.repo_id, tag_ref, held.decode())
                    stage(uow, False)
            refdb.retry_while_busy([], commit)
            return
        try:
            change = contents.prepare_ref_changes(ctx.repo, git, [(TAGS + tag, contents.ZERO, new_commit)],
                                    actor=ctx.user)
        except RefProtected:
            # Forgejo's words for a release on a protected new tag (422).
            raise InvalidInput("user not allowed to create protected tag") from None
        change.also(size, lambda uow: stage(uow, True))
        contents.commit_ref_changes(change)
    except ConditionFailed as failed:
        if refdb.stale_refs(failed) is not None:
            raise ConflictError(f"tag {tag!r} was changed meanwhile; try again") from None
        raise _conflict(failed, tag) from None
    except StaleRefs:
        raise ConflictError(f"release tag already exist [tag_name: {tag}]") from None
    except RefsBusy:
        raise ConflictError("the release is being changed concurrently; try again") from None


def _publish_plan(ctx: Ctx, tag: str, target: str):
    """(git, the commit the release names, the commit a new tag must be created on or
    None when the tag exists)."""
    git = contents.open_git(ctx.repo)
    existing = _tag_commit(ctx, git, tag)
    if existing is not None:
        return git, existing, None
    commit = _target_commit(ctx, git, target or ctx.repo.default_branch)
    return git, commit, commit


def create_release(ctx: Ctx, option: CreateReleaseOption) -> Release:
    """repoCreateRelease."""
    require_writer(ctx)
    quota.ensure_within_quota(int(ctx.repo.owner_id), "size:repos:all")   # Forgejo's middleware
    tag = (option.tag_name or "").strip()
    if not tag:
        raise InvalidInput("[TagName]: Required")
    check_tag_name(tag)
    if ctx.repo.empty:
        raise InvalidInput("repo is empty")
    # Forgejo looks the tag's release up before anything else of the option is checked.
    if store.tag_owner(ctx.repo_id, tag) is not None:
        raise ConflictError(f"release tag already exist [tag_name: {tag}]")
    title = option.name or ""
    if not title:
        raise InvalidInput("title is empty")
    draft = bool(option.draft)
    target = (option.target_commitish or "").strip() or ctx.repo.default_branch
    release = store.Release(
        id=ids.next_id("release"), tag_name=tag, target=target, title=title,
        note=option.body or "", draft=draft, prerelease=bool(option.prerelease),
        hide_archive_links=bool(option.hide_archive_links), sha="",
        publisher_id=int(ctx.user.id), publisher=account_snapshot(ctx.user), created=clock.seconds())
    git = new_commit = None
    if not draft:
        git, commit, new_commit = _publish_plan(ctx, tag, target)
        release = release.edited(sha=commit)

    def stage(uow, repo_staged: bool) -> None:
        store.stage_create(ctx.repo, release, repo_staged=repo_staged)
        if not release.draft:
            uow.raise_event(_event(ctx, release, "published"))

    _write(ctx, tag, git, new_commit, stage, store.CREATE_SIZE + 1)
    return release


def _edited(ctx: Ctx, before: Release, option: EditReleaseOption) -> Release:
    """Forgejo's edit: texts change when given non-empty, flags when given (not null)."""
    texts = {"tag_name": (option.tag_name or "").strip(),
             "target": (option.target_commitish or "").strip(),
             "title": option.name or "", "note": option.body or ""}
    changes: dict = {attribute: value for attribute, value in texts.items() if value}
    for attribute, flag in (("draft", option.draft), ("prerelease", option.prerelease),
                            ("hide_archive_links", option.hide_archive_links)):
        if isinstance(flag, bool):
            changes[attribute] = flag
    after = before.edited(**changes)
    if after.tag_name != before.tag_name:
        check_tag_name(after.tag_name)
    return after


def edit_release(ctx: Ctx, release_id: int, option: EditReleaseOption) -> Release:
    """repoEditRelease.  Publishing creates the tag."""
    require_writer(ctx)
    quota.ensure_within_quota(int(ctx.repo.owner_id), "size:repos:all")
    before = get_release(ctx, release_id)
    after = _edited(ctx, before, option)
    if after.tag_name.lower() != before.tag_name.lower():
        holder = store.tag_owner(ctx.repo_id, after.tag_name)
        if holder is not None and holder != before.id:
            raise ConflictError(f"release tag already exist [tag_name: {after.tag_name}]")
    git = new_commit = None
    if after.draft:
        # Forgejo stamps a draft with the time of its last edit (drafts sort first).
        after = after.edited(created=clock.seconds())
    elif before.draft or after.tag_name != before.tag_name or not before.sha:
        git, commit, new_commit = _publish_plan(ctx, after.tag_name, after.target)
        after = after.edited(sha=commit, created=clock.seconds() if new_commit else after.created)
    # else: a published release keeps its tag and commit; no git read is needed.
    action = None if after.draft else "published" if before.draft else "updated"

    def stage(uow, repo_staged: bool) -> None:
        store.stage_edit(ctx.repo, before, after, repo_staged=repo_staged)
        if action:
            uow.raise_event(_event(ctx, after, action))

    _write(ctx, after.tag_name, git, new_commit, stage, store.EDIT_SIZE + 1)
    return after.edited(version=before.version + 1)


def delete_release(ctx: Ctx, release_id: int) -> None:
    """repoDeleteRelease: the release, its attachments (records now, bytes after the
    commit); the tag stays."""
    require_writer(ctx)
    release = store.with_assets(ctx.repo_id, release_id, include_pending=True)
    if release is None:
        raise NotFoundError(f"release does not exist [id: {release_id}]")

    def stage(uow, _repo_staged: bool) -> None:
        store.stage_delete(ctx.repo, release, list(release.assets))
        freed = sum(int(a.size) for a in release.assets
                    if a.state == store.READY and not a.external_url)
        if freed:
            quota.stage_attachment_usage(int(ctx.repo.owner_id), "releases", -freed)
        if not release.draft:
            uow.raise_event(_event(ctx, release, "deleted"))

    _write(ctx, release.tag_name, None, None, stage, 0)
    release_bytes.remove([asset.s3_key for asset in release.assets])


def delete_by_tag(ctx: Ctx, tag: str) -> None:
    require_writer(ctx)
    release_id = store.tag_owner(ctx.repo_id, tag)
    if release_id is None:
        raise NotFoundError(f"release does not exist [id: 0, tag_name: {tag}]")
    delete_release(ctx, release_id)


# Source archives --------------------------------------------------------------------------

ARCHIVE_KINDS = {".zip": "zip", ".tar.gz": "tar_gz"}


def count_archive_download(repo, archive: str) -> None:
    """Forgejo counts downloads of a release's source archives (``archive_download_count``):
    called by the archive route after it served ``archive`` (``<ref>.zip|.tar.gz``).  One
    GetItem (the tag's claim) and, for a release's tag, one UpdateItem; never fails the
    download it counts."""
    for suffix, kind in ARCHIVE_KINDS.items():
        if archive.endswith(suffix) and len(archive) > len(suffix):
            break
    else:
        return
    try:
        release_id = store.tag_owner(int(repo.id), archive[:-len(suffix)])
        if release_id is not None:
            store.add_archive_download(int(repo.id), release_id, kind)
    except Exception:  # noqa: BLE001 - a count must not cost the client its archive
        log.exception("counting an archive download of repository %s failed", repo.id)
