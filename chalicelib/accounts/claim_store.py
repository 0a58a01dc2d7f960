"""Who holds a unique login name, e-mail address or key fingerprint: batched lookups
through the claim items (``LOGIN#``, ``EMAIL#``, ``KEYFP#``; layouts in
docs/data-model.md).  Read-only: the claims are written with what they claim
(``accounts.store``, ``accounts.key_store``, ``repos.access_store``).

Each lookup is two batched reads at most (the claims, then their accounts), both
through the unit of work, so a page of branches or a rendered document costs the same
however many names it mentions.
"""
from __future__ import annotations

from typing import Callable, Iterable

from chalicelib.accounts.models import Account, keys
from chalicelib.store import unit_of_work
from chalicelib.store.table import Claim


def _accounts(names: Iterable[str], key: Callable[[str], tuple[str, str]]) -> dict[str, Account]:
    return _claimed({n.lower(): key(n.lower()) for n in names if n})


def accounts_by_email_or_login(emails: Iterable[str],
                               logins: dict[str, str]) -> dict[str, Account]:
    """Accounts owning these e-mail addresses, or with the login name ``logins`` gives
    for an address (a no-reply address names its user), by lower-case address; still
    two batched reads."""
    wanted = {e.lower(): keys.email(e.lower()) for e in emails if e}
    wanted.update((e.lower(), keys.login(login.lower())) for e, login in logins.items())
    return _claimed(wanted)


def _claimed(wanted: dict[str, tuple[str, str]]) -> dict[str, Account]:
    """name -> the account holding the claim at its key (missing left out)."""
    if not wanted:
        return {}
    unit_of_work.prefetch(wanted[n] for n in sorted(wanted))
    claims = {n: unit_of_work.get(Claim, key) for n, key in wanted.items()}
    unit_of_work.prefetch(keys.account(int(c.owner_id)) for c in claims.values() if c)
    found = {}
    for name, claim in claims.items():
        account = unit_of_work.get(Account, keys.account(int(claim.owner_id))) if claim else None
        if account is not None:
            found[name] = account
    return found


def accounts_by_email(emails: Iterable[str]) -> dict[str, Account]:
    """Accounts owning these e-mail addresses, by lower-case address (missing left out)."""
    return _accounts(emails, keys.email)


def accounts_by_login(names: Iterable[str]) -> dict[str, Account]:
    """Accounts with these login names, by lower-case name (missing left out)."""
    return _accounts(names, keys.login)


def prefetch_emails(emails: Iterable[str]) -> None:
    """Read the claims of these addresses in one batch (before ``accounts_by_email``
    of some of them)."""
    unit_of_work.prefetch(keys.email(e.lower()) for e in emails if e)


def login_holder(name: str) -> int | None:
    """The id of the account holding a login name's claim, without reading the account
    (free when a route preloaded the claim); None when nobody holds it."""
    claim = unit_of_work.get(Claim, keys.login(name.lower()))
    return int(claim.owner_id) if claim is not None else None


def key_holder(fingerprint: str) -> int | None:
    """The owner id of a key fingerprint's claim: an account id, or a repository id
    negated for a deploy key; None when nobody holds it."""
    claim = unit_of_work.get(Claim, keys.key_fingerprint(fingerprint))
    return int(claim.owner_id) if claim is not None else None
