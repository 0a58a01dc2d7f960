"""Attachments of issues and comments (Forgejo's rules): list, upload, get, edit, delete,
the presigned upload for large files, and downloads through ``/attachments/<uuid>``.

Who may do what (Forgejo's ``canUserWriteIssueAttachment`` and
``canUserWriteIssueCommentAttachment``): whoever reads the repository's issues lists,
reads and downloads them; on an issue, its poster, a repository admin, a site admin or
a writer of issues (pull requests for a pull request) uploads, renames and deletes; on
a comment, its poster, a repository admin or a site admin, and only while they may
write issues (pull requests).  Others get 403; a private repository answers 404 to
those who may not read it.  An attachment of another issue or comment is 404.

The bytes live in S3 at ``attachments/<repo id>/<uuid>`` (``store.attachment_objects``,
shared with releases), the records inside the issue or comment (``attachment_store``).
Direct uploads take the bytes in the request (up to what one Lambda request carries);
larger files take the presigned way the release attachments take: ``start_upload``
records the announced attachment in its download link only (with the table's TTL) and
hands out a PUT URL; ``confirm_upload`` reads the object's real size and makes it the
container's attachment.  Limits are Forgejo's ``[attachment]`` settings (``ENABLED``,
``MAX_SIZE``, ``ALLOWED_TYPES``: ``http.uploads``) and the owner's quota
(``size:assets:attachments:issues``, charged in the attachment's transaction).

``updated_at`` (Forgejo's ``SetIssueUpdateDate``): a repository admin may date the
upload (the attachment's ``created_at`` and the issue's ``updated_at``) between the
issue's creation and now; anyone else, or a date outside, is 403.
"""
from __future__ import annotations

import uuid as uuids
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from chalicelib import clock, quota, repos
from chalicelib.errors import (ConditionFailed, InvalidInput, NotFoundError, PermissionDenied,
                               TooLarge)
from chalicelib.http import uploads
from chalicelib.issues import attachment_store, comment_store, store
from chalicelib.issues.attachment_store import Attachment, Place
from chalicelib.issues.context import ISSUES_UNIT, PULLS_UNIT, context, parse_time
from chalicelib.issues.service import get_issue
from chalicelib.settings import get_settings
from chalicelib.store import attachment_objects as objects
from chalicelib.store import ids, unit_of_work

if TYPE_CHECKING:
    from chalicelib.http.uploads import EditAttachmentOptions
    from chalicelib.issues.context import Ctx
    from chalicelib.repos import Caller

SUBJECT = "size:assets:attachments:issues"
KIND = "issues"                  # the owner's usage counter (quota.stage_attachment_usage)
PENDING_SECONDS = 86_400         # a presigned upload not confirmed within a day is dropped
# The records live inside their issue or comment (an item holds 400 KB): a bound on
# how many one may carry keeps it far from that.
MAX_PER_PLACE = 100


@dataclass(frozen=True)
class Where:
    """An issue or a comment as an attachment route names it, read for this caller."""
    place: Place
    container: object            # the issue or comment item (its attachments inside)
    issue: store.Issue
    poster_id: int

    @property
    def is_comment(self) -> bool:
        return bool(self.place.comment_id)


@dataclass(frozen=True)
class Upload:
    """A presigned upload: the announced attachment and where to PUT its bytes."""
    attachment: Attachment
    url: str
    expires_at: int


# Where ------------------------------------------------------------------------------------

def on_issue(ctx: Ctx, number: int) -> Where:
    issue = get_issue(ctx, number)
    return Where(Place(ctx.repo_id, int(issue.number)), issue, issue, int(issue.poster_id))


def on_comment(ctx: Ctx, comment_id: int) -> Where:
    comment = comment_store.get_comment(ctx.repo_id, comment_id)
    issue = store.get_issue(ctx.repo_id, int(comment.issue_number)) if comment else None
    if issue is None:                           # (read with the comment)
        raise NotFoundError(f"comment does not exist [id: {comment_id}]")
    return Where(Place(ctx.repo_id, int(comment.issue_number), int(comment.id)), comment,
                 issue, int(comment.poster_id))


def may_write(ctx: Ctx, where: Where) -> bool:
    user = ctx.user
    if user is None:
        return False
    in_charge = int(user.id) == where.poster_id or ctx.is_admin or bool(user.is_admin)
    if where.is_comment:
        return in_charge and ctx.can_write_for(where.issue)
    return in_charge or ctx.can_write_for(where.issue)


def _require_writer(ctx: Ctx, where: Where) -> None:
    if not may_write(ctx, where):
        raise PermissionDenied("user should have permission to edit comment" if where.is_comment
                               else "user should have permission to write issue")


# Reads ------------------------------------------------------------------------------------

def list_attachments(where: Where) -> list[Attachment]:
    return attachment_store.attachments_of(where.container)


def get_attachment(where: Where, attachment_id: int) -> Attachment:
    found = attachment_store.attachment_of(where.container, attachment_id)
    if found is None:
        raise NotFoundError(f"attachment does not exist [id: {attachment_id}]")
    return found


# Writes -----------------------------------------------------------------------------------

def _dated(ctx: Ctx, where: Where, updated_at: str | None) -> int:
    """The upload's time: now, or ``updated_at`` for a repository admin (Forgejo's
    ``SetIssueUpdateDate``)."""
    now = clock.seconds()
    when = parse_time(updated_at, "UpdatedAt")
    if when is None:
        return now
    if not ctx.is_admin:
        raise PermissionDenied("user needs to have admin or owner right")
    if when < int(where.issue.created) or when > now:
        raise PermissionDenied("unallowed update date")
    return when


def _check_room(where: Where) -> None:
    if len(attachment_store.attachments_of(where.container, pending=True)) >= MAX_PER_PLACE:
        raise InvalidInput(f"an issue or comment carries at most {MAX_PER_PLACE} attachments")


def _check_file(name: str, size: int, head: bytes | None) -> None:
    uploads.check_name(name)
    if size < 0:
        raise InvalidInput("[Size]: must be the number of bytes to upload")
    uploads.check_size(size)
    uploads.check_type(name, head, get_settings().attachment.ALLOWED_TYPES)


def _new(ctx: Ctx, name: str, size: int, created: int) -> Attachment:
    return Attachment(id=ids.next_id("attachment"), uuid=str(uuids.uuid4()), name=name,
                      size=size, download_count=0, created=created,
                      uploader_id=int(ctx.user.id))


def _commit(ctx: Ctx, where: Where, stage, size: int) -> None:
    """Stage a write of ``where``'s attachments with the owner's usage moved by ``size``;
    a container changed meanwhile is read again once (a first upload racing another)."""
    for attempt in (1, 2):
        try:
            with unit_of_work.writing():
                stage(where)
                if size:
                    quota.stage_attachment_usage(int(ctx.repo.owner_id), KIND, size)
            return
        except ConditionFailed as failed:
            if failed.label != attachment_store.ATTACHMENT or attempt == 2:
                raise NotFoundError("the issue, comment or attachment does not exist") \
                    from None
            container = attachment_store.get_container(where.place, consistent=True)
            if container is None:
                raise NotFoundError("the issue or comment does not exist") from None
            where = replace(where, container=container)


def upload(ctx: Ctx, where: Where, *, name: str, data: bytes,
           updated_at: str | None = None) -> Attachment:
    """issueCreateIssueAttachment, issueCreateIssueCommentAttachment: bytes first, record
    last (a crash between leaves an object nothing points at, never a record without
    its bytes; a failed record removes the object again)."""
    uploads.require_enabled()
    _require_writer(ctx, where)
    created = _dated(ctx, where, updated_at)
    _check_file(name, len(data), data[:uploads.SNIFF_BYTES])
    _check_room(where)
    quota.ensure_within_quota(int(ctx.repo.owner_id), SUBJECT, adding=len(data))
    attachment = _new(ctx, name, len(data), created)
    key = objects.key(ctx.repo_id, attachment.uuid)
    objects.put(key, data)
    now = clock.seconds()
    try:
        _commit(ctx, where, lambda w: attachment_store.stage_add(
            w.place, w.container, attachment, updated=created, now=now), attachment.size)
    except Exception:
        objects.remove([key])
        raise
    return attachment


def start_upload(ctx: Ctx, where: Where, *, name: str, size: int) -> Upload:
    """The first step of a presigned upload (our extension, as for releases): the
    announced attachment (hidden until confirmed) and a PUT URL for its bytes."""
    uploads.require_enabled()
    _require_writer(ctx, where)
    _check_file(name, size, None)
    _check_room(where)
    quota.ensure_within_quota(int(ctx.repo.owner_id), SUBJECT, adding=size)
    now = clock.seconds()
    attachment = replace(_new(ctx, name, size, now), pending_until=now + PENDING_SECONDS)
    _commit(ctx, where, lambda w: attachment_store.stage_add(
        w.place, w.container, attachment, updated=now, now=now), 0)
    return Upload(attachment, objects.upload_url(objects.key(ctx.repo_id, attachment.uuid)),
                  now + objects.UPLOAD_URL_SECONDS)


def confirm_upload(ctx: Ctx, where: Where, attachment_id: int) -> Attachment:
    """The last step of a presigned upload: the object's real size (HeadObject) must be
    the size announced and within the limits (a file refused goes: its entry, link and
    bytes); the attachment becomes ready and is charged.  Confirming a ready attachment
    again answers it unchanged."""
    uploads.require_enabled()
    _require_writer(ctx, where)
    announced = attachment_store.attachment_of(where.container, attachment_id, pending=True)
    if announced is None or (announced.pending_until
                             and announced.pending_until < clock.seconds()):
        raise NotFoundError(f"attachment does not exist [id: {attachment_id}]")
    if not announced.pending_until:
        return announced
    key = objects.key(ctx.repo_id, announced.uuid)
    size = objects.size_of(key)
    if size is None:
        raise InvalidInput("nothing was uploaded yet: PUT the bytes to upload_url first")
    try:
        _check_file(announced.name, size,
                    objects.read_head(key, uploads.SNIFF_BYTES) if size else b"")
        quota.ensure_within_quota(int(ctx.repo.owner_id), SUBJECT, adding=size)
    except (TooLarge, InvalidInput):
        _commit(ctx, where, lambda w: attachment_store.stage_remove(w.place, announced), 0)
        objects.remove([key])
        raise
    if size != announced.size:
        raise InvalidInput(f"the upload has {size} bytes, not the {announced.size} announced: "
                           "PUT the whole file again")
    _commit(ctx, where, lambda w: attachment_store.stage_confirm(w.place, announced, size),
            size)
    return replace(announced, size=size, pending_until=0)


def edit(ctx: Ctx, where: Where, attachment_id: int,
         option: EditAttachmentOptions) -> Attachment:
    """issueEditIssueAttachment, issueEditIssueCommentAttachment (201): the name; an
    empty or left-out one keeps it."""
    _require_writer(ctx, where)
    found = get_attachment(where, attachment_id)
    name = (option.name or "").strip() or found.name
    uploads.check_name(name)
    if name == found.name:
        return found
    _commit(ctx, where, lambda w: attachment_store.stage_rename(w.place, found.id, name), 0)
    return replace(found, name=name)


def delete(ctx: Ctx, where: Where, attachment_id: int) -> None:
    """issueDeleteIssueAttachment, issueDeleteIssueCommentAttachment: the record and its
    link, the usage given back, then the bytes."""
    _require_writer(ctx, where)
    found = attachment_store.attachment_of(where.container, attachment_id, pending=True)
    if found is None:
        raise NotFoundError(f"attachment does not exist [id: {attachment_id}]")
    charged = 0 if found.pending_until else found.size
    _commit(ctx, where, lambda w: attachment_store.stage_remove(w.place, found), -charged)
    objects.remove([objects.key(ctx.repo_id, found.uuid)])


def stage_forget(owner_id: int, container) -> list[str]:
    """In the unit deleting an issue or comment (whose item holds the attachments'
    records): their download links, and the usage they counted given back.  The keys
    of their bytes, for ``remove_objects`` once the unit is committed."""
    found = attachment_store.attachments_of(container, pending=True)
    attachment_store.stage_forget_links(found)
    total = sum(a.size for a in found if not a.pending_until)
    if total:
        quota.stage_attachment_usage(int(owner_id), KIND, -total)
    return [objects.key(int(container.repo_id), a.uuid) for a in found]


def remove_objects(keys: list[str]) -> None:
    objects.remove(keys)


# Downloads (``/attachments/<uuid>``, served by the releases' route for both kinds) ------

@dataclass(frozen=True)
class Served:
    """What a download of an issue's or comment's attachment answers from."""
    name: str
    size: int
    object_key: str


def download_link_key(uuid: str) -> tuple[str, str]:
    return attachment_store.link_key(uuid)


def download_preload_more(uuid: str) -> list:
    """Second preload batch of a download whose uuid names an issue's or comment's
    attachment: the repository's id link, the container and its issue."""
    link = attachment_store.get_link(uuid)
    if link is None:
        return []
    place = link[0]
    return [repos.repo_id_key(place.repo_id), place.key,
            store.ikeys.issue(place.repo_id, place.number)]


def download(caller: Caller, uuid: str, *, count: bool = True) -> Served | None:
    """The attachment ``uuid`` names, for a caller who reads the issues (or pull
    requests) of its repository; counted unless ``count`` is False (HEAD).  None when
    no issue or comment attachment has this uuid (a release's may)."""
    link = attachment_store.get_link(uuid)
    if link is None:
        return None
    place, attachment_id = link
    repo = repos.repo_by_id(place.repo_id)
    issue = store.get_issue(place.repo_id, place.number)
    if repo is None or issue is None:
        raise NotFoundError(f"attachment does not exist [uuid: {uuid}]")
    user_id = int(caller.user.id) if caller.user is not None else None
    unit_of_work.prefetch(repos.access_keys(repo, user_id))
    context(caller, repos.view_of(repo, caller), PULLS_UNIT if issue.is_pull else ISSUES_UNIT)
    if count:
        found = attachment_store.add_download(place, attachment_id)
    else:
        container = attachment_store.get_container(place)
        found = attachment_store.attachment_of(container, attachment_id) \
            if container is not None else None
    if found is None:
        raise NotFoundError(f"attachment does not exist [uuid: {uuid}]")
    return Served(found.name, found.size, objects.key(place.repo_id, found.uuid))
