"""PullRequest, PRBranchInfo, ChangedFile and Commit records (fj:services/convert/pull.go).

A PullRequest is the issue record of the same item plus the pull request's own fields;
the base and head shas are the tips as last examined (the push consumer keeps them
current), so rendering reads no refs.
"""
from __future__ import annotations

from chalicelib import accounts
from chalicelib.http import formats, schemas
from chalicelib.http.schema_types import B, I, S, T, nullable, ref
from chalicelib.pulls import checks as pull_checks

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
    "PRBranchInfo": {"label": S, "ref": S, "sha": S, "repo_id": I,
                     "repo": nullable(ref("Repository"))},
    "PullRequest": {
        "id": I, "url": S, "number": I, "user": ref("User"), "title": S, "body": S,
        "labels": {"type": "array", "items": ref("Label")},
        "milestone": nullable(ref("Milestone")), "assignee": nullable(ref("User")),
        "assignees": nullable({"type": "array", "items": ref("User")}),
        "requested_reviewers": {"type": "array", "items": ref("User")},
        "requested_reviewers_teams": {"type": "array", "items": ref("Team")},
        "state": S, "draft": B, "is_locked": B, "comments": I, "review_comments": I,
        "additions": I, "deletions": I, "changed_files": I, "html_url": S, "diff_url": S,
        "patch_url": S, "mergeable": B, "merged": B, "merged_at": nullable(T),
        "merge_commit_sha": nullable(S), "merged_by": nullable(ref("User")),
        "allow_maintainer_edit": B, "base": ref("PRBranchInfo"), "head": ref("PRBranchInfo"),
        "merge_base": S, "due_date": nullable(T), "created_at": T, "updated_at": T,
        "closed_at": nullable(T), "pin_order": I, "flow": I,
    },
}, lists=("PullRequest",))


def branch_info(label: str, ref: str, sha: str, repo_id: int, repo_record: dict | None) -> dict:
    return {"label": label, "ref": ref, "sha": sha, "repo_id": repo_id, "repo": repo_record}


def head_ref(pull, number: int, head_repo: dict | None) -> str:
    """The head branch's name while it exists, else ``refs/pull/<n>/head`` in the base
    (fj:services/convert/pull.go); clients check the ref out under this name."""
    if head_repo is None or pull.head_gone or not pull.head_branch:
        return f"refs/pull/{number}/head"
    return pull.head_branch


TEAM_DEFAULTS = {"id": 0, "name": "", "description": "", "permission": "read", "units": [],
                 "units_map": "{}", "includes_all_repositories": False,
                 "can_create_org_repo": False}


def requested(pull, owner, viewer, account_of) -> tuple[list, list]:
    """The User and Team records of the reviewers ``pull`` (PullFields) asks for, from
    the snapshots it keeps; ``account_of(snapshot)`` rebuilds an account."""
    from types import SimpleNamespace

    from chalicelib import orgs

    users = [accounts.user_record(account_of(s), viewer) for s in pull.requested_reviewers]
    teams = [orgs.team_record(SimpleNamespace(**{**TEAM_DEFAULTS, **t}), owner)
             for t in pull.requested_teams] if owner is not None else []
    return users, teams


def pull_request(issue_record: dict, item, pull, *, number: int, base_repo: dict,
                 head_repo: dict | None, merged_by: dict | None,
                 requested: tuple[list, list] = ([], []), checking: bool = False) -> dict:
    """``issue_record``: the Issue record of the item; ``pull``: its PullFields;
    ``requested``: the User and Team records of the requested reviewers; ``checking``: a
    branch moved since the pull request was examined (Forgejo's "checking" state: not
    mergeable until examined again)."""
    html = issue_record["html_url"]
    return {
        "id": issue_record["id"],
        "url": html,
        "number": number,
        "user": issue_record["user"],
        "title": issue_record["title"],
        "body": issue_record["body"],
        "labels": issue_record["labels"],
        "milestone": issue_record["milestone"],
        "assignee": issue_record["assignee"],
        "assignees": issue_record["assignees"],
        "requested_reviewers": list(requested[0]),
        "requested_reviewers_teams": list(requested[1]),
        "state": issue_record["state"],
        "draft": pull_checks.is_work_in_progress(item.title),
        "is_locked": issue_record["is_locked"],
        "comments": issue_record["comments"],
        "review_comments": 0,
        "additions": pull.additions,
        "deletions": pull.deletions,
        "changed_files": pull.changed_files,
        "html_url": html,
        "diff_url": html + ".diff",
        "patch_url": html + ".patch",
        "mergeable": (pull_checks.is_mergeable(pull.status, item.title) and not pull.merged
                      and not checking),
        "merged": pull.merged,
        "merged_at": formats.rfc3339(pull.merged_at) if pull.merged else None,
        "merge_commit_sha": pull.merge_commit_sha or None,
        "merged_by": merged_by,
        "allow_maintainer_edit": pull.allow_maintainer_edit,
        "base": branch_info(pull.base_branch, pull.base_branch, pull.base_sha,
                            int(base_repo["id"]), base_repo),
        "head": branch_info(pull.head_branch, head_ref(pull, number, head_repo), pull.head_sha,
                            pull.head_repo_id if head_repo is not None else -1, head_repo),
        "merge_base": pull.merge_base,
        "due_date": issue_record["due_date"],
        "created_at": issue_record["created_at"],
        "updated_at": issue_record["updated_at"],
        "closed_at": issue_record["closed_at"],
        "pin_order": issue_record["pin_order"],
        "flow": 0,
    }


