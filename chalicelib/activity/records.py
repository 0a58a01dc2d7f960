"""Activities -> Forgejo's Activity and UserHeatmapData records, field for field
(Forgejo's ``services/convert/activity.go``): the repository as the caller sees it,
the actor as a user record, and a comment's record for a comment's activity."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from chalicelib import accounts, issues, repos
from chalicelib.http import formats, schemas
from chalicelib.http.schema_types import B, I, S, T, nullable, ref

if TYPE_CHECKING:
    from chalicelib.activity.service import Shown

OP_TYPES = ["create_repo", "rename_repo", "star_repo", "watch_repo", "commit_repo",
            "create_issue", "create_pull_request", "transfer_repo", "push_tag",
            "comment_issue", "merge_pull_request", "close_issue", "reopen_issue",
            "close_pull_request", "reopen_pull_request", "delete_tag", "delete_branch",
            "mirror_sync_push", "mirror_sync_create", "mirror_sync_delete",
            "approve_pull_request", "reject_pull_request", "comment_pull", "publish_release",
            "pull_review_dismissed", "pull_request_ready_for_review", "auto_merge_pull_request"]

SCHEMAS = schemas.declare({
    "Activity": {"act_user": ref("User"), "act_user_id": I,
                 "comment": nullable(ref("Comment")), "comment_id": I, "content": S,
                 "created": T, "id": I, "is_private": B,
                 "op_type": {"type": "string", "enum": OP_TYPES}, "ref_name": S,
                 "repo": ref("Repository"), "repo_id": I, "user_id": I},
    "UserHeatmapData": {"contributions": I, "timestamp": I},
}, lists=("Activity", "UserHeatmapData"))


def activity(shown: "Shown", viewer) -> dict:
    copy = shown.copy
    comment = None
    if copy.comment:
        item = issues.comment_from_snapshot(json.loads(copy.comment))
        comment = issues.comment_record(item, shown.view, viewer, poster=shown.actor,
                                        is_pull=bool(copy.is_pull))
    return {
        "id": int(copy.id),
        "user_id": int(copy.user_id),
        "op_type": copy.op_type,
        "act_user_id": int(copy.act_user_id),
        "act_user": accounts.user_record(shown.actor, viewer),
        "repo_id": int(copy.repo_id),
        "repo": repos.repository_record(shown.view, viewer),
        "comment_id": int(copy.comment_id) if comment is not None else 0,
        "comment": comment,
        "ref_name": copy.ref_name,
        "is_private": bool(shown.view.repo.private),
        "content": copy.content,
        "created": formats.rfc3339(copy.created),
    }


def heatmap_data(timestamp: int, contributions: int) -> dict:
    return {"timestamp": int(timestamp), "contributions": int(contributions)}
