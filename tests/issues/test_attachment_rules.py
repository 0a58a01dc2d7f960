"""Attachments of issues and comments, on the in-memory twin: who may upload, rename and
delete (Forgejo's rules for issues and for comments), that the records ride in the
issue or comment item, what goes with a deleted comment, two first uploads at once,
a rename racing an issue edit, and the presigned upload's hidden pending entry."""
from __future__ import annotations

import threading

import pytest

from chalicelib.errors import ConditionFailed, InvalidInput, NotFoundError, PermissionDenied
from chalicelib.http.uploads import EditAttachmentOptions
from chalicelib.issues import attachment_store, attachments, comments, store
from chalicelib.issues.options import CreateIssueCommentOption
from chalicelib.settings import overridden
from chalicelib.store import attachment_objects as objects
from chalicelib.store import unit_of_work
from tests import memory_scene as scene
from tests.issues.test_reaction_rules import people  # noqa: F401 - a fixture


def on_issue(people, name, number=1):
    ctx = people.ctx(name)
    return ctx, attachments.on_issue(ctx, number)


def on_comment(people, name, comment_id):
    ctx = people.ctx(name)
    return ctx, attachments.on_comment(ctx, comment_id)


def put(people, name, data=b"hello", file="notes.txt", number=1):
    ctx, where = on_issue(people, name, number)
    return attachments.upload(ctx, where, name=file, data=data)


def comment_by(people, name, number=1):
    found, _ = comments.create_comment(people.ctx(name), number,
                                       CreateIssueCommentOption(body="hi"))
    return int(found.id)


def listed(people, name="alice", number=1):
    return [a.name for a in attachments.list_attachments(on_issue(people, name, number)[1])]


def test_the_poster_and_writers_upload_to_an_issue_others_may_not(people):
    assert put(people, "carol", file="a.txt").name == "a.txt"        # the poster
    assert put(people, "bob", file="b.txt").name == "b.txt"          # a writer
    assert put(people, "alice", file="c.txt").name == "c.txt"        # the owner
    with pytest.raises(PermissionDenied):
        put(people, "dave")                                          # reads only
    assert listed(people, "dave") == ["a.txt", "b.txt", "c.txt"]     # readers list them
    item = store.get_issue(people.view.repo.id, 1, consistent=True)
    assert [a.name for a in attachment_store.attachments_of(item)] == ["a.txt", "b.txt", "c.txt"]


def test_renaming_and_deleting_take_the_same_rights(people):
    found = put(people, "carol")
    ctx, where = on_issue(people, "dave")
    with pytest.raises(PermissionDenied):
        attachments.edit(ctx, where, found.id, EditAttachmentOptions(name="x.txt"))
    with pytest.raises(PermissionDenied):
        attachments.delete(ctx, where, found.id)
    ctx, where = on_issue(people, "bob")
    assert attachments.edit(ctx, where, found.id, EditAttachmentOptions(name="")).name == \
        "notes.txt"                                                  # empty: kept
    assert attachments.edit(ctx, where, found.id,
                            EditAttachmentOptions(name="renamed.txt")).name == "renamed.txt"
    assert listed(people) == ["renamed.txt"]
    ctx, where = on_issue(people, "carol")
    attachments.delete(ctx, where, found.id)
    assert listed(people) == []
    assert objects.size_of(objects.key(people.view.repo.id, found.uuid)) is None
    with pytest.raises(NotFoundError):
        attachments.delete(*on_issue(people, "carol"), found.id)


def test_a_comment_takes_its_poster_or_an_admin_who_may_write(people):
    carols = comment_by(people, "carol")     # carol may not write issues
    bobs = comment_by(people, "bob")
    for name, comment_id in (("carol", carols), ("bob", carols), ("dave", bobs)):
        ctx, where = on_comment(people, name, comment_id)
        with pytest.raises(PermissionDenied):
            attachments.upload(ctx, where, name="a.txt", data=b"x")
    ctx, where = on_comment(people, "bob", bobs)
    mine = attachments.upload(ctx, where, name="mine.txt", data=b"x")
    ctx, where = on_comment(people, "alice", carols)
    admins = attachments.upload(ctx, where, name="admin.txt", data=b"x")
    # Each comment's attachments are its own; the issue's are none of them.
    assert [a.id for a in attachments.list_attachments(on_comment(people, "dave", bobs)[1])] \
        == [mine.id]
    with pytest.raises(NotFoundError):
        attachments.get_attachment(on_comment(people, "dave", bobs)[1], admins.id)
    with pytest.raises(NotFoundError):
        attachments.get_attachment(on_issue(people, "dave")[1], mine.id)


def test_a_deleted_comment_takes_its_attachments_links_and_bytes(people):
    bobs = comment_by(people, "bob")
    ctx, where = on_comment(people, "bob", bobs)
    found = attachments.upload(ctx, where, name="a.txt", data=b"x")
    key = objects.key(people.view.repo.id, found.uuid)
    assert attachment_store.get_link(found.uuid) is not None
    comments.delete_comment(people.ctx("bob"), bobs)
    with unit_of_work.start():
        assert attachment_store.get_link(found.uuid) is None
    assert objects.size_of(key) is None
    caller = scene.caller(people["alice"])
    with unit_of_work.start():                          # no issue attachment has it
        assert attachments.download(caller, found.uuid) is None


def test_limits_types_and_dates(people):
    with overridden({"NIMBUS__ATTACHMENT__MAX_SIZE": "1"}), pytest.raises(Exception) as refused:
        put(people, "carol", data=b"x" * (2 << 20))
    assert getattr(refused.value, "status", 413) == 413
    with pytest.raises(InvalidInput):
        put(people, "carol", data=b"MZ\x00\x01binary", file="tool.exe")
    with overridden({"NIMBUS__ATTACHMENT__ENABLED": "false"}), pytest.raises(NotFoundError):
        put(people, "carol")
    ctx, where = on_issue(people, "carol")
    with pytest.raises(PermissionDenied):              # only an admin dates an upload
        attachments.upload(ctx, where, name="a.txt", data=b"x",
                           updated_at="2030-01-01T00:00:00Z")
    ctx, where = on_issue(people, "alice")
    with pytest.raises(PermissionDenied):              # not before the issue
        attachments.upload(ctx, where, name="a.txt", data=b"x",
                           updated_at="2001-01-01T00:00:00Z")
    with pytest.raises(InvalidInput):
        attachments.upload(ctx, where, name="a.txt", data=b"x", updated_at="yesterday")


def test_two_first_uploads_at_once_both_land(people):
    errors, done = [], []

    def one(name):
        try:
            done.append(put(people, "carol", file=name).id)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(f"{i}.txt",)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and sorted(listed(people)) == ["0.txt", "1.txt"]


def test_an_issue_edit_read_before_an_upload_keeps_the_attachment(people):
    ctx = people.ctx("carol")
    before = store.get_issue(ctx.repo_id, 1, consistent=True)
    put(people, "carol", file="kept.txt")
    replaced = store.copy_issue(before)
    replaced.title = "changed"
    with pytest.raises(ConditionFailed):                # the version moved: the edit retries
        with unit_of_work.writing():
            store.stage_replace_issue(replaced, int(before.version))
    assert listed(people) == ["kept.txt"]


def test_a_presigned_upload_is_hidden_until_confirmed(people):
    ctx, where = on_issue(people, "carol")
    started = attachments.start_upload(ctx, where, name="big.txt", size=5)
    assert listed(people) == []
    ctx, where = on_issue(people, "carol")
    with pytest.raises(InvalidInput):                   # nothing PUT yet
        attachments.confirm_upload(ctx, where, started.attachment.id)
    objects.put(objects.key(ctx.repo_id, started.attachment.uuid), b"12345")
    done = attachments.confirm_upload(ctx, where, started.attachment.id)
    assert done.size == 5 and not done.pending_until
    assert listed(people) == ["big.txt"]
    ctx, where = on_issue(people, "carol")
    assert attachments.confirm_upload(ctx, where, done.id).id == done.id


def test_usage_is_charged_given_back_and_recounted(people):
    from chalicelib.quota import service as quota_service

    owner = int(people.view.repo.owner_id)
    put(people, "carol", data=b"x" * 10, file="a.txt")
    bobs = comment_by(people, "bob")
    ctx, where = on_comment(people, "bob", bobs)
    attachments.upload(ctx, where, name="b.txt", data=b"y" * 5)
    assert quota_service.used(owner).attachments_issues == 15
    assert attachment_store.stored_bytes(people.view.repo.id) == 15
    comments.delete_comment(people.ctx("bob"), bobs)
    assert quota_service.used(owner).attachments_issues == 10
    assert attachment_store.stored_bytes(people.view.repo.id) == 10
