"""Scenarios for attachments of issues and comments (alice/demo's tracker, issue_calls).

Uploads go to a fresh issue or comment of alice's each time (multipart, as a client
sends them); a get, edit or delete first uploads one, unmeasured.  A presigned upload's
bytes are PUT straight to S3, as a client would.
"""
from __future__ import annotations

from issue_calls import REPO, history, new_comment, new_issue
from scenarios_releases import BOUNDARY, multipart, upload_to
from scene import Req, after


def on_issue(s) -> str:
    return f"{REPO}/issues/{new_issue(s)}"


def on_comment(s) -> str:
    return f"{REPO}/issues/comments/{new_comment(s)}"


def with_attachments(s, where: str) -> str:
    """An issue or comment (``where``: on_issue or on_comment) carrying three."""
    path = on_issue(s) if where == "issue" else on_comment(s)
    for _ in range(3):
        upload_to(s, path)
    return path


def one(s, where: str) -> str:
    path = on_issue(s) if where == "issue" else on_comment(s)
    return f"{path}/assets/{upload_to(s, path)['id']}"


def pending(s, where: str) -> str:
    """A presigned upload whose bytes were PUT: its confirm path."""
    from chalicelib import aws
    from chalicelib.settings import get_settings

    path = on_issue(s) if where == "issue" else on_comment(s)
    found = s.must("POST", f"{path}/assets/upload?name={s.unique('big-')}.txt&size=5", "token")
    key = f"attachments/{found['upload_url'].split('/attachments/')[1].split('?')[0]}"
    aws.client("s3").put_object(Bucket=get_settings().aws.BUCKET, Key=key, Body=b"12345")
    return f"{path}/assets/{found['id']}/confirm"


def _create(s, path: str) -> Req:
    return Req("POST", f"{path}/assets", "token", expect=201,
               data=multipart("measured.txt", b"measured\n"),
               content_type=f"multipart/form-data; boundary={BOUNDARY}")


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    found = {}
    for kind, op in (("issue", "Issue"), ("comment", "IssueComment")):
        found.update({
            f"issueList{op}Attachments": lambda s, k=kind: after(history(s), [
                Req("GET", f"{with_attachments(s, k)}/assets"),
                Req("GET", f"{with_attachments(s, k)}/assets", "token")]),
            f"issueCreate{op}Attachment": lambda s, k=kind: [
                _create(s, on_issue(s) if k == "issue" else on_comment(s))],
            f"issueCreate{op}AttachmentUpload": lambda s, k=kind: [
                Req("POST", f"{on_issue(s) if k == 'issue' else on_comment(s)}/assets/upload"
                            "?name=big.txt&size=100000000", "token", expect=201)],
            f"issueConfirm{op}AttachmentUpload": lambda s, k=kind: [
                Req("POST", pending(s, k), "token", expect=201)],
            f"issueGet{op}Attachment": lambda s, k=kind: [
                Req("GET", one(s, k)), Req("GET", one(s, k), "token")],
            f"issueEdit{op}Attachment": lambda s, k=kind: [
                Req("PATCH", one(s, k), "token", {"name": s.unique("renamed-") + ".txt"}, 201)],
            f"issueDelete{op}Attachment": lambda s, k=kind: [
                Req("DELETE", one(s, k), "token", expect=204)],
        })
    return found


# The gateway's two preload batches (the token and the repository; the caller's access
# items with the tracker, the owner's block of the caller and the issue or the
# comment's lookup item; a comment's path then reads the comment and its issue in one
# batch more).  The records ride in the issue or comment item, so a list or a get
# reads nothing else.  Then: an upload, PutObject and one transaction (the entry in its
# container, the download link, the usage); announcing a presigned upload, one
# transaction; confirming it, HeadObject, a ranged GetObject (the type sniffed, as
# ``[attachment] ALLOWED_TYPES`` is set by default) and one transaction; a rename, one
# UpdateItem; a deletion, one transaction and DeleteObjects.
BUDGETS = {
    ("issueListIssueAttachments", "anon"): 2,
    ("issueListIssueAttachments", "token"): 2,
    ("issueCreateIssueAttachment", "token"): 4,
    ("issueCreateIssueAttachmentUpload", "token"): 3,
    ("issueConfirmIssueAttachmentUpload", "token"): 5,
    ("issueGetIssueAttachment", "anon"): 2,
    ("issueGetIssueAttachment", "token"): 2,
    ("issueEditIssueAttachment", "token"): 3,
    ("issueDeleteIssueAttachment", "token"): 4,
    ("issueListIssueCommentAttachments", "anon"): 3,
    ("issueListIssueCommentAttachments", "token"): 3,
    ("issueCreateIssueCommentAttachment", "token"): 5,
    ("issueCreateIssueCommentAttachmentUpload", "token"): 4,
    ("issueConfirmIssueCommentAttachmentUpload", "token"): 6,
    ("issueGetIssueCommentAttachment", "anon"): 3,
    ("issueGetIssueCommentAttachment", "token"): 3,
    ("issueEditIssueCommentAttachment", "token"): 4,
    ("issueDeleteIssueCommentAttachment", "token"): 5,
}
