"""Commit, CommitVerification and ChangedFile records (fj:services/convert/git_commit.go),
field for field: the commit list, one commit, a pull request's commits and files."""
from __future__ import annotations

from urllib.parse import quote

from chalicelib.accounts import user_record
from chalicelib.contents import commits as commit_views
from chalicelib.http import formats, schemas
from chalicelib.http.schema_types import I, S, T, nullable, ref

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
    "ChangedFile": {"filename": S, "previous_filename": S, "status": S, "additions": I,
                    "deletions": I, "changes": I, "html_url": S, "contents_url": S,
                    "raw_url": S},
    "CommitUser": {"name": S, "email": S, "date": S},
    "CommitMeta": {"url": S, "sha": S, "created": T},
    "RepoCommit": {"url": S, "author": ref("CommitUser"), "committer": ref("CommitUser"),
                   "message": S, "tree": ref("CommitMeta"),
                   "verification": ref("PayloadCommitVerification")},
    "CommitStats": {"total": I, "additions": I, "deletions": I},
    "CommitAffectedFiles": {"filename": S, "status": S},
    "Commit": {
        "url": S, "sha": S, "created": T, "html_url": S, "commit": ref("RepoCommit"),
        "author": nullable(ref("User")), "committer": nullable(ref("User")),
        "parents": {"type": "array", "items": ref("CommitMeta")},
        "files": nullable({"type": "array", "items": ref("CommitAffectedFiles")}),
        "stats": nullable(ref("CommitStats")),
    },
    "Compare": {"total_commits": I, "commits": {"type": "array", "items": ref("Commit")},
                      "files": {"type": "array", "items": ref("CommitAffectedFiles")}},
}, lists=("ChangedFile", "Commit"))


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
            "date": formats.rfc3339_offset(when, tz)}


def _linked(accounts: dict | None, raw: bytes) -> dict | None:
    """The User record of the account owning the identity's e-mail, as anyone may see it
    (Forgejo's ToCommit links author and committer by e-mail, without a doer)."""
    account = (accounts or {}).get(commit_views.identity_email(raw))
    return user_record(account, None) if account is not None else None


def verification(c) -> dict:
    """PayloadCommitVerification of a dulwich commit."""
    if not c.gpgsig:
        return {"verified": False, "reason": "gpg.error.not_signed_commit", "signature": "",
                "signer": None, "payload": ""}
    from chalicelib import signing

    committer = _commit_user(c.committer, 0, 0)["email"]
    return signing.verify_commit(c.gpgsig.decode("ascii", "replace"),
                                 c.raw_without_sig().decode("utf-8", "replace"), committer)


def commit(c, html_repo: str, api_repo: str, *, stats=None, files=None,
           accounts: dict | None = None) -> dict:
    """A Commit record from a dulwich commit; ``accounts`` (``commit_views.linked_accounts``
    of the page) resolves author and committer, null when nobody owns the e-mail."""
    sha = c.id.decode()
    return {
        "url": f"{api_repo}/git/commits/{sha}",
        "sha": sha,
        "created": formats.rfc3339_offset(int(c.commit_time), int(c.commit_timezone)),
        "html_url": f"{html_repo}/commit/{sha}",
        "commit": {
            "url": f"{api_repo}/git/commits/{sha}",
            "author": _commit_user(c.author, int(c.author_time), int(c.author_timezone)),
            "committer": _commit_user(c.committer, int(c.commit_time), int(c.commit_timezone)),
            "message": c.message.decode("utf-8", "replace"),
            "tree": {"url": f"{api_repo}/git/trees/{c.tree.decode()}", "sha": c.tree.decode(),
                     "created": formats.rfc3339_offset(int(c.commit_time),
                                                       int(c.commit_timezone))},
            "verification": verification(c),
        },
        "author": _linked(accounts, c.author),
        "committer": _linked(accounts, c.committer),
        # CommitMeta.created is a date-time: Forgejo leaves parents' unset (Go's zero time).
        "parents": [{"url": f"{api_repo}/git/commits/{p.decode()}", "sha": p.decode(),
                     "created": formats.GO_ZERO_TIME} for p in c.parents],
        "files": files,
        "stats": stats,
    }
