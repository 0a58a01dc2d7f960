"""The Branch record (fj:services/convert/convert.go ToBranch), field for field."""
from __future__ import annotations

from urllib.parse import quote

from chalicelib.accounts.records import payload_user
from chalicelib.http.formats import app_url, rfc3339_offset


def _verification(info) -> dict:
    """PayloadCommitVerification of the head commit (no I/O when it is unsigned)."""
    if not info.signature:
        return {"verified": False, "reason": "gpg.error.not_signed_commit",
                "signature": "", "signer": None, "payload": ""}
    from chalicelib.signing import verify as signing_verify

    return signing_verify.for_branch(info)


def branch(info, view, *, usernames: dict[str, str] | None = None) -> dict:
    """A Branch record from a stored BranchInfo; ``usernames`` maps e-mails to logins."""
    usernames = usernames or {}
    html_url = f"{app_url()}{quote(view.owner.login)}/{quote(view.repo.name)}"
    can_write = view.can_write
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
        "protected": False,
        "required_approvals": 0,
        "enable_status_check": False,
        "status_check_contexts": [],
        "user_can_push": can_write,
        "user_can_merge": can_write,
        "effective_branch_protection_name": "",
    }
