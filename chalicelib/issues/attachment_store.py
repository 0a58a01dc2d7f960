"""Attachments of issues and comments in the table (keys of the issues in
``chalicelib.issues.store``).

An attachment's record lives inside the item it is attached to: the map
``attachments`` of the issue (``R#<repo>``, ``ISSUE#<number>``) or of the comment
(``R#<repo>``, ``COMMENT#<number>#<id>``), keyed by the attachment's id.  So reading an
issue or a comment reads its attachments with it (the ``assets`` of its record cost no
read), and deleting the issue or the comment deletes their records with it.  Each
write changes one entry by its path (``SET attachments.<id>``, ``REMOVE ...``), so two
uploads to one issue never overwrite each other; on an issue it also adds 1 to
``version``, so an issue edit that replaces the whole item (read before the upload)
fails its condition and is retried with the attachment in it.

| item | pk | sk | attributes |
|---|---|---|---|
| download link | ``IATTACH#<uuid>`` | ``IATTACH`` | ``repo_id``, ``issue_number``, ``comment_id`` (0: the issue's), ``attachment_id``, ``expires`` (TTL, while pending) |

An entry: ``uuid``, ``name``, ``size``, ``download_count``, ``created``, ``uploader_id``,
and ``pending_until`` while it is a presigned upload not yet confirmed: such an entry is
hidden from every read but the confirmation, and one past its time is dropped by the
next upload to the same issue or comment (its link goes by the table's TTL).

Downloads count ``download_count`` with one ``ADD`` on the entry's path, conditional on
the entry still being there.  Labels in ``ConditionFailed``: "attachment" (the entry or
its container changed meanwhile), "issue", "comment" (gone).
"""
from __future__ import annotations

from dataclasses import dataclass

from pynamodb.exceptions import UpdateError

from chalicelib.issues.models import Comment, IssueAttachmentLink
from chalicelib.issues.store import Issue, ikeys
from chalicelib.store import unit_of_work

ATTACHMENT = "attachment"


@dataclass(frozen=True)
class Place:
    """Where an attachment is attached: an issue (``comment_id`` 0) or a comment."""
    repo_id: int
    number: int
    comment_id: int = 0

    @property
    def model(self) -> type:
        return Comment if self.comment_id else Issue

    @property
    def key(self) -> tuple[str, str]:
        if self.comment_id:
            return ikeys.comment(self.repo_id, self.number, self.comment_id)
        return ikeys.issue(self.repo_id, self.number)


@dataclass(frozen=True)
class Attachment:
    """An attachment of an issue or a comment as plain data."""
    id: int
    uuid: str
    name: str
    size: int
    download_count: int
    created: int
    uploader_id: int
    pending_until: int = 0          # a presigned upload not yet confirmed: until when

    def entry(self) -> dict:
        fields = {"uuid": self.uuid, "name": self.name, "size": int(self.size),
                  "download_count": int(self.download_count), "created": int(self.created),
                  "uploader_id": int(self.uploader_id)}
        if self.pending_until:
            fields["pending_until"] = int(self.pending_until)
        return fields


def _attachment(attachment_id, entry: dict) -> Attachment:
    return Attachment(id=int(attachment_id), uuid=str(entry.get("uuid", "")),
                      name=str(entry.get("name", "")), size=int(entry.get("size", 0)),
                      download_count=int(entry.get("download_count", 0)),
                      created=int(entry.get("created", 0)),
                      uploader_id=int(entry.get("uploader_id", 0)),
                      pending_until=int(entry.get("pending_until", 0)))


def _entries(item) -> dict:
    raw = getattr(item, "attachments", None)
    if raw is None:
        return {}
    return raw.as_dict() if hasattr(raw, "as_dict") else dict(raw)


def attachments_of(item, *, pending: bool = False) -> list[Attachment]:
    """The attachments of an issue or comment item (read with it), in upload order;
    announced uploads not yet confirmed only if asked."""
    found = (_attachment(i, e) for i, e in _entries(item).items())
    return sorted((a for a in found if pending or not a.pending_until), key=lambda a: a.id)


def attachment_of(item, attachment_id: int, *, pending: bool = False) -> Attachment | None:
    entry = _entries(item).get(str(int(attachment_id)))
    if entry is None:
        return None
    found = _attachment(attachment_id, entry)
    return found if pending or not found.pending_until else None


def has_map(item) -> bool:
    return getattr(item, "attachments", None) is not None


# Download links ---------------------------------------------------------------------------

def link_key(uuid: str) -> tuple[str, str]:
    return f"IATTACH#{uuid}", "IATTACH"


def get_link(uuid: str) -> tuple[Place, int] | None:
    """Where the attachment ``uuid`` is, and its id (None: no issue's or comment's)."""
    item = unit_of_work.get(IssueAttachmentLink, link_key(uuid))
    return None if item is None else (
        Place(int(item.repo_id), int(item.issue_number), int(item.comment_id or 0)),
        int(item.attachment_id))


def get_container(place: Place, *, consistent: bool = False):
    return unit_of_work.get(place.model, place.key, consistent=consistent)


# Writes -----------------------------------------------------------------------------------

def _stage_entry(place: Place, container, attachment: Attachment, *, updated: int,
                 now: int) -> None:
    """The entry in its container: by path when the map exists (dropping announced
    uploads past their time), else the map whole, on condition that it still does not
    exist (a racing first upload makes this fail)."""
    model = place.model
    if has_map(container):
        stale = [a for a in attachments_of(container, pending=True)
                 if a.pending_until and a.pending_until < now and a.id != attachment.id]
        actions = [model.attachments[str(attachment.id)].set(attachment.entry())]
        actions += [model.attachments[str(a.id)].remove() for a in stale]
        condition = model.attachments.exists()
    else:
        actions = [model.attachments.set({str(attachment.id): attachment.entry()})]
        condition = model.pk.exists() & model.attachments.does_not_exist()
    if model is Issue:
        actions += [Issue.version.add(1), Issue.updated.set(updated)]
    unit_of_work.current().update(model(*place.key), actions, label=ATTACHMENT,
                                  condition=condition)


def _link(place: Place, attachment: Attachment, expires: int | None = None):
    return IssueAttachmentLink(*link_key(attachment.uuid), repo_id=place.repo_id,
                               issue_number=place.number, comment_id=place.comment_id,
                               attachment_id=attachment.id, expires=expires)


def stage_add(place: Place, container, attachment: Attachment, *, updated: int,
              now: int) -> None:
    """A new attachment of an issue or comment (announced, when ``pending_until``), and
    its download link (with the TTL while announced)."""
    _stage_entry(place, container, attachment, updated=updated, now=now)
    unit_of_work.current().put(_link(place, attachment, attachment.pending_until or None),
                               label=ATTACHMENT, must_not_exist=True)


def stage_confirm(place: Place, attachment: Attachment, size: int) -> None:
    """An announced upload becomes a ready attachment of ``size`` bytes (once: the entry
    must still be announced)."""
    model = place.model
    path = model.attachments[str(attachment.id)]
    uow = unit_of_work.current()
    uow.update(model(*place.key), [path["size"].set(size), path["pending_until"].remove()],
               label=ATTACHMENT, condition=path["pending_until"].exists())
    uow.update(IssueAttachmentLink(*link_key(attachment.uuid)),
               [IssueAttachmentLink.expires.remove()], label=ATTACHMENT,
               condition=IssueAttachmentLink.pk.exists())


def stage_rename(place: Place, attachment_id: int, name: str) -> None:
    model = place.model
    path = model.attachments[str(int(attachment_id))]
    unit_of_work.current().update(model(*place.key), [path["name"].set(name)],
                                  label=ATTACHMENT, condition=path.exists())


def stage_remove(place: Place, attachment: Attachment) -> None:
    model = place.model
    path = model.attachments[str(int(attachment.id))]
    uow = unit_of_work.current()
    uow.update(model(*place.key), [path.remove()], label=ATTACHMENT, condition=path.exists())
    uow.delete(IssueAttachmentLink(*link_key(attachment.uuid)), label=ATTACHMENT)


def stage_forget_links(attachments: list[Attachment]) -> None:
    """The download links of attachments whose container is deleted in the same unit."""
    uow = unit_of_work.current()
    for attachment in attachments:
        uow.delete(IssueAttachmentLink(*link_key(attachment.uuid)), label=ATTACHMENT)


# Counters (atomic, outside any unit of work: no domain change) ---------------------------

def add_download(place: Place, attachment_id: int) -> Attachment | None:
    """One more download, counted by ``ADD`` on the entry (None when it is gone).  On an
    issue ``version`` moves too, so an edit replacing the item keeps the count."""
    model = place.model
    path = model.attachments[str(int(attachment_id))]
    actions = [path["download_count"].add(1)]
    if model is Issue:
        actions.append(Issue.version.add(1))
    item = model(*place.key)
    try:
        item.update(actions=actions,
                    condition=path.exists() & path["pending_until"].does_not_exist())
    except UpdateError as exc:
        if exc.cause_response_code == "ConditionalCheckFailedException":
            return None
        raise
    return attachment_of(item, attachment_id)


# The quota recount --------------------------------------------------------------------------

def stored_bytes(repo_id: int) -> int:
    """The bytes of a repository's ready issue and comment attachments (the daily quota
    recount: a Query over its issues and one over its comments, items without
    attachments filtered out)."""
    total = 0
    for model, prefix in ((Issue, ikeys.ISSUE_PREFIX), (Comment, "COMMENT#")):
        for item in model.query(ikeys.partition(int(repo_id)), model.sk.startswith(prefix),
                                filter_condition=model.attachments.exists(),
                                consistent_read=True):
            total += sum(a.size for a in attachments_of(item))
    return total
