"""Who a commit the service makes is by, and which names a branch may have: the two rules
every writer of git content shares (the contents API, tags, merges, a new repository)."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from chalicelib.errors import InvalidInput

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.gitops.commits import Identity

_BAD_REF = re.compile(r"(^[./-])|(\.\.)|([\x00-\x20~^:?*\[\\\x7f])|(/[./])|(\.lock$)|([./]$)|(@\{)|^@$")


def validate_branch_name(name: str) -> str:
    """git check-ref-format rules for a branch name."""
    if not name or len(name) > 255 or _BAD_REF.search(name):
        raise InvalidInput(f"[DefaultBranch]: invalid branch name {name!r}")
    return name


def identity(user: Account | None) -> Identity:
    """Who an instance-made commit is by: the user, or the instance's signing identity."""
    from chalicelib.gitops.commits import Identity
    from chalicelib.settings import get_settings

    if user is None:
        signing = get_settings().signing
        return Identity(signing.SIGNING_NAME, signing.SIGNING_EMAIL)
    email = user.email or f"{user.lower_name}@{get_settings().no_reply_address}"
    return Identity(user.full_name or user.login, email)
