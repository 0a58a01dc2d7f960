"""Accounts as other records keep them: a snapshot taken when an issue, comment,
review or event was written, and the account rebuilt from it.

An issue page must render without reading every poster's account (the call budget is
fixed), so issues and comments keep a snapshot of the account taken when written; the
caller's and the owner's accounts, which every request has read anyway, are used fresh.
"""
from __future__ import annotations

import json

from chalicelib.accounts.store import Account, from_snapshot

SNAPSHOT_FIELDS = ("id", "login", "lower_name", "full_name", "email", "keep_email_private",
                   "visibility", "created", "restricted", "location", "website", "description",
                   "pronouns", "language", "login_name", "source_id", "is_admin", "active",
                   "prohibit_login", "last_login", "keep_pronouns_private")


def snapshot(account: Account) -> dict:
    out = {}
    for name in SNAPSHOT_FIELDS:
        value = getattr(account, name)
        out[name] = int(value) if isinstance(value, float) else value
    return out


def account_from(stored: dict | str, fresh: dict[int, Account] | None = None) -> Account:
    """The account a snapshot (``snapshot``, as stored: a dict or its JSON) describes;
    the fresh one when the request has read it."""
    if isinstance(stored, str):
        stored = json.loads(stored or "{}")
    account_id = int(stored.get("id") or 0)
    if fresh and account_id in fresh:
        return fresh[account_id]
    return from_snapshot({k: stored[k] for k in SNAPSHOT_FIELDS if k in stored})
