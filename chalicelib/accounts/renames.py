"""Renaming a user or an organization, and the old names that lead to the new ones.

A rename moves the account's login claim and leaves a redirect item on the old name
(``LOGIN#<old>``/``REDIRECT``), so addresses that name the old login — clone URLs, API
paths, profile pages — answer 307 to the same address under the new name, as Forgejo
keeps ``user_redirect`` rows.  The old name is free again at once (Forgejo's default,
no cooldown): whoever claims it next owns it, and its claim hides the redirect.

Everything keyed by the account's id (tokens, keys, memberships, follows) stays as it
is; only the repositories, keyed by their owner's name, move — that is the
repositories domain's work (``repos.move_owned``), done by whoever renames.
"""
from __future__ import annotations

from chalicelib import clock, events
from chalicelib.accounts import store
from chalicelib.accounts.service import actor_of_event, validate_name
from chalicelib.accounts.store import Account
from chalicelib.errors import ConditionFailed, ConflictError, InvalidInput, PermissionDenied
from chalicelib.store import unit_of_work


def rename(actor: Account | None, account: Account, new_name: str, *,
           field: str = "NewName") -> str | None:
    """Give ``account`` the login ``new_name`` and leave its old name pointing at it;
    returns the old login, or None when nothing changed (the same name: Forgejo answers
    204 and does nothing).  A change of letter case only keeps the claim and leaves no
    redirect (the lower-case name, which every lookup uses, is the same).  422 when
    the name is invalid or taken, 409 when the account changed meanwhile."""
    if account.account_type == "user" and actor is not None and not actor.is_admin:
        # A user is renamed by a site admin (or the operator: no actor); an
        # organization's owners are checked by the organizations domain.
        raise PermissionDenied("user should be the site admin")
    validate_name(new_name, field)
    old_login, old_lower = account.login, account.lower_name
    if new_name == old_login:
        return None
    new_lower = new_name.lower()
    account.login, account.lower_name = new_name, new_lower
    store.index_login(account)
    account.updated = clock.seconds()
    try:
        with unit_of_work.writing() as uow:
            store.stage_save(account)       # version compare-and-swap; moves the gsi2 key
            if new_lower != old_lower:
                store.stage_name_move(int(account.id), old_lower, new_lower)
            uow.raise_event(events.AccountRenamed(
                **actor_of_event(actor), account_id=int(account.id),
                account_type=account.account_type, old_login=old_login, new_login=new_name))
    except ConditionFailed as exc:
        account.login, account.lower_name = old_login, old_lower
        if exc.label == store.NAME_TAKEN:
            raise InvalidInput(f"user already exists [name: {new_name}]") from None
        raise ConflictError("the account changed while it was being renamed") from None
    return old_login


def renamed_to(name: str, viewer: Account | None = None) -> Account | None:
    """The account that was called ``name`` before a rename, if no account holds the
    name now and ``viewer`` may see it (Forgejo: a limited or private account's old
    name leads anonymous callers nowhere; the address it leads to decides the rest).  One Query of the name's partition (its
    claim and its redirect together); asked only when an address named nobody."""
    lower = name.lower()
    account_id = store.redirected_to(lower)
    account = store.get_by_id(account_id) if account_id is not None else None
    if account is None or account.lower_name == lower:
        return None
    if account.visibility != "public" and viewer is None:
        return None
    return account
