"""PullRequest, PRBranchInfo, ChangedFile and Commit records (fj:services/convert/pull.go).

A PullRequest is the issue record of the same item plus the pull request's own fields;
the base and head shas are the tips as last examined (the push consumer keeps them
current), so rendering reads no refs.
"""
from __future__ import annotations

from urllib.parse import quote

from chalicelib.api import records
from chalicelib.services import commit_views, pull_checks


def branch_info(label: str, ref: str, sha: str, repo_id: int, repo_record: dict | None) -> dict:
    return {"label": label, "ref": ref, "sha": sha, "repo_id": repo_id, "repo": repo_record}


def head_ref(pull, number: int, head_repo: dict | None) -> str:
    """The head branch's name while it exists, else ``refs/pull/<n>/head`` in the base
    (fj:services/convert/pull.go); clients check the ref out under this name."""
    if head_repo is None or pull.head_gone or not pull.head_branch:
        return f"refs/pull/{number}/head"
    return pull.head_branch


def pull_request(issue_record: dict, item, pull, *, number: int, base_repo: dict,
                 head_repo: dict | None, merged_by: dict | None) -> dict:
    """``issue_record``: the Issue record of the item; ``pull``: its PullFields."""
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
        "requested_reviewers": [],
        "requested_reviewers_teams": [],
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
        "mergeable": pull_checks.is_mergeable(pull.status, item.title) and not pull.merged,
        "merged": pull.merged,
        "merged_at": records.rfc3339(pull.merged_at) if pull.merged else None,
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
        "pin_order": 0,
        "flow": 0,
    }


def changed_file(change, html_repo: str, api_repo: str, head_sha: str) -> dict:
    path = quote(change.path)
    return {
        "filename": change.path,
        "previous_filename": change.previous_path or "",
        "status": change.status,
        "additions": change.additions,
        "deletions": change.deletions,
        "changes": change.changes,
        "html_url": f"{html_repo}/src/commit/{head_sha}/{path}",
        "contents_url": f"{api_repo}/contents/{path}?ref={head_sha}",
        "raw_url": f"{html_repo}/raw/commit/{head_sha}/{path}",
    }


def _commit_user(raw: bytes, when: int, tz: int) -> dict:
    text = raw.decode("utf-8", "replace")
    name, _, email = text.partition("<")
    return {"name": name.strip(), "email": email.rstrip(">").strip(),
            "date": records.rfc3339_offset(when, tz)}


def _linked(accounts: dict | None, raw: bytes) -> dict | None:
    """The User record of the account owning the identity's e-mail, as anyone may see it
    (Forgejo's ToCommit links author and committer by e-mail, without a doer)."""
    account = (accounts or {}).get(commit_views.identity_email(raw))
    return records.user(account, None) if account is not None else None


def verification(c) -> dict:
    """PayloadCommitVerification of a dulwich commit."""
    if not c.gpgsig:
        return {"verified": False, "reason": "gpg.error.not_signed_commit", "signature": "",
                "signer": None, "payload": ""}
    from chalicelib.signing import verify as signing_verify

    committer = _commit_user(c.committer, 0, 0)["email"]
    return signing_verify.verify(c.gpgsig.decode("ascii", "replace"),
                                 c.raw_without_sig().decode("utf-8", "replace"), committer)


def commit(c, html_repo: str, api_repo: str, *, stats=None, files=None,
           accounts: dict | None = None) -> dict:
    """A Commit record from a dulwich commit; ``accounts`` (``commit_views.linked_accounts``
    of the page) resolves author and committer, null when nobody owns the e-mail."""
    sha = c.id.decode()
    return {
        "url": f"{api_repo}/git/commits/{sha}",
        "sha": sha,
        "created": records.rfc3339_offset(int(c.commit_time), int(c.commit_timezone)),
        "html_url": f"{html_repo}/commit/{sha}",
        "commit": {
            "url": f"{api_repo}/git/commits/{sha}",
            "author": _commit_user(c.author, int(c.author_time), int(c.author_timezone)),
            "committer": _commit_user(c.committer, int(c.commit_time), int(c.commit_timezone)),
            "message": c.message.decode("utf-8", "replace"),
            "tree": {"url": f"{api_repo}/git/trees/{c.tree.decode()}", "sha": c.tree.decode(),
                     "created": records.rfc3339_offset(int(c.commit_time),
                                                       int(c.commit_timezone))},
            "verification": verification(c),
        },
        "author": _linked(accounts, c.author),
        "committer": _linked(accounts, c.committer),
        # CommitMeta.created is a date-time: Forgejo leaves parents' unset (Go's zero time).
        "parents": [{"url": f"{api_repo}/git/commits/{p.decode()}", "sha": p.decode(),
                     "created": records.GO_ZERO_TIME} for p in c.parents],
        "files": files,
        "stats": stats,
    }
