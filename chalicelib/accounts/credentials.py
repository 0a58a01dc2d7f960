"""What the gateway asks of the accounts domain to know who is calling
(``chalicelib.http.auth`` reads this module by name, ``CREDENTIALS_MODULE``): the kernel
sits below every domain, so it names the provider instead of importing it.

Each function is the accounts rule the gateway needs, nothing more: tokens are looked up
by their hash, accounts by id or login name, passwords checked with the login rules, and
an old login name's new owner (``renamed_to``) when an address names nobody.
"""
from __future__ import annotations

from chalicelib.accounts.service import (
                                         account_by_id,
                                         account_key,
                                         check_password_login,
                                         get_user,
)
from chalicelib.accounts.renames import renamed_to
from chalicelib.accounts.tokens import authenticate, lookup, owner_id, preload_keys

__all__ = ["account_by_id", "account_key", "check_password_login", "get_user",
           "authenticate", "lookup", "owner_id", "preload_keys", "renamed_to"]
