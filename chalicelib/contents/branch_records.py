"""The Branch record (fj:services/convert/convert.go ToBranch), field for field."""
from __future__ import annotations

from urllib.parse import quote

from chalicelib import protection
from chalicelib.accounts import payload_user
from chalicelib.http import schemas
from chalicelib.http.formats import app_url, rfc3339_offset
from chalicelib.http.schema_types import EMAIL, STRINGS, B, I, S, T, nullable, ref

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
    "PayloadUser": {"name": S, "email": EMAIL, "username": S},
    "PayloadCommitVerification": {"verified": B, "reason": S, "signature": S,
                                  "signer": nullable(ref("PayloadUser")), "payload": S},
    "PayloadCommit": {
        "id": S, "message": S, "url": S, "author": ref("PayloadUser"),
        "committer": ref("PayloadUser"), "verification": ref("PayloadCommitVerification"),
        "timestamp": T, "added": nullable(STRINGS), "removed": nullable(STRINGS),
        "modified": nullable(STRINGS),
    },
    "Branch": {
        "name": S, "commit": ref("PayloadCommit"), "protected": B, "required_approvals": I,
        "enable_status_check": B, "status_check_contexts": STRINGS, "user_can_push": B,
        "user_can_merge": B, "effective_branch_protection_name": S,
    },
}, lists=("Branch",))


def _verification(info) -> dict:
    """PayloadCommitVerification of the head commit (no I/O when it is unsigned)."""
    if not info.signature:
        return {"verified": False, "reason": "gpg.error.not_signed_commit",
                "signature": "", "signer": None, "payload": ""}
    from chalicelib import signing

    return signing.verification_for_branch(info)


def _guard(view):
    """The rules and an anonymous-like pusher with the view's access, for callers that
    pass no guard: the protection fields stay true, and an allowlist that would admit
    the caller shows as not admitting them (never the other way round)."""
    from chalicelib import protection

    guard = protection.branch_guard(view, None)
    pusher = protection.Pusher(0, "", frozenset(), can_write=view.can_write,
                               is_repo_admin=view.is_admin, is_site_admin=False)
    return protection.BranchGuard(guard.protection, pusher)


def branch(info, view, *, usernames: dict[str, str] | None = None, guard=None) -> dict:
    """A Branch record from a stored BranchInfo; ``usernames`` maps e-mails to logins;
    ``guard`` (``protection.service.branch_guard``) is what the caller may do."""
    usernames = usernames or {}
    html_url = f"{app_url()}{quote(view.owner.login)}/{quote(view.repo.name)}"
    guard = guard if guard is not None else _guard(view)
    return {
        "name": info.name,
        "commit": {
            "id": info.commit_id,
            "message": info.message,
            "url": f"{html_url}/commit/{info.commit_id}",
            "author": payload_user(info.author_name, info.author_email,
                                   usernames.get(info.author_email.lower(), "")),
            "committer": payload_user(info.committer_name, info.committer_email,
                                      usernames.get(info.committer_email.lower(), "")),
            "verification": _verification(info),
            "timestamp": rfc3339_offset(info.author_time, info.author_tz),
            "added": None,
            "removed": None,
            "modified": None,
        },
        **protection.branch_fields(guard.protection, info.name, guard.pusher,
                                           view.can_write),
    }
