"""What the gateway asks of the accounts domain to know who is calling
(``chalicelib.http.auth`` reads this module by name, ``CREDENTIALS_MODULE``): the kernel
sits below every domain, so it names the provider instead of importing it.

Each function is the accounts rule the gateway needs, nothing more: tokens are looked up
by their hash, accounts by id or login name, passwords checked with the login rules (a
Basic password through ``basic_sign_in``: throttled, and the second factor asked), and
an old login name's new owner (``renamed_to``) when an address names nobody.
"""
from __future__ import annotations

from chalicelib.accounts.renames import renamed_to
from chalicelib.accounts.service import (
    account_by_id,
    account_key,
    check_password_login,
    get_user,
)
from chalicelib.accounts.tokens import (
    authenticate,
    looks_like,
    lookup,
    owner_id,
    preload_keys,
)

__all__ = [
    "account_by_id",
    "account_key",
    "authenticate",
    "basic_sign_in",
    "check_password_login",
    "get_user",
    "lookup",
    "owner_id",
    "password_keys",
    "preload_keys",
    "renamed_to",
]


def password_keys(name: str, secret: str, address: str) -> list[tuple[str, str]]:
    """The sign-in failure counters a Basic password from ``address`` reads, for the
    request's first batched read.  A secret that may be a token reads none up front: a
    token must cost what it did (the counters are read only if it turns out not to be)."""
    if looks_like(secret):
        return []
    # Imported here: the throttle's modules stay off a token request's path.
    from chalicelib.accounts.login_throttle import preload_keys as counter_keys

    return counter_keys(name, address)


def basic_sign_in(name: str, password: str, *, address: str, otp: str = "",
                  git: bool = False):
    """A Basic password sign-in, throttled, with the second factor as Forgejo asks it
    (``accounts.sign_in``)."""
    from chalicelib.accounts.sign_in import basic_sign_in as sign_in

    return sign_in(name, password, address=address, otp=otp, git=git)
