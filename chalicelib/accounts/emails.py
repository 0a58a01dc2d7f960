"""Users' e-mail addresses (Forgejo's ``services/user/email.go`` and the API's
``user/email.go``, ``admin/email.go``): list, add, delete; the site admin's lists.

Forgejo's rules: an address belongs to one account on the instance, whatever its case
("Email address has been used: …", 422, also for the caller's own address); an address
that is not one is 422 (``Email address "…" invalid``); an empty list to add is 422
("Email list empty"); deleting an address the user does not have is 404, the primary
one cannot be deleted (Forgejo answers 500 there; a 422 here).  Nothing is verified by
mail here, so every address is ``verified``.  Adding is all or nothing: every claim in
one transaction (at most ``MAX_AT_ONCE`` addresses, so it stays one).

A user's addresses are listed in the order they were added (Forgejo's id order); the
site admin's lists in address order (Forgejo's default), read from the address index a
DynamoDB page at a time, as user search reads the user index: the walk stops
``COUNT_AHEAD`` matches past the page, so ``X-Total-Count`` is exact when the matches
end within that.  Forgejo's search also matches the owner's name and full name; here
``q`` matches the address only, which the index holds (a name match would read every
account).

The primary address is the account's ``email``; creating a user writes its item and
changing it (adminEditUser) goes through ``email_store.stage_primary_change``: the old
address is let go, the new one is the user's own address made primary or a new claim
(``service``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from chalicelib import clock
from chalicelib.accounts import email_store, store
from chalicelib.accounts.service import get_user, validate_email
from chalicelib.errors import (ConditionFailed, ConflictError, InvalidInput, NotFoundError,
                               PermissionDenied)
from chalicelib.store import pages, unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts.models import EmailAddress
    from chalicelib.accounts.store import Account

MAX_AT_ONCE = 40          # two writes each: one transaction of DynamoDB's 100 at most
COUNT_AHEAD = 1000


@dataclass(frozen=True)
class Address:
    """One address of a user, ready to render (Forgejo's Email)."""
    email: str
    verified: bool
    primary: bool
    user_id: int
    username: str


def _signed_in(actor: Account | None) -> Account:
    if actor is None:
        raise PermissionDenied("only signed in user is allowed")
    return actor


def _require_site_admin(actor: Account | None) -> None:
    if actor is None or not actor.is_admin:
        raise PermissionDenied("user should be the site admin")


def _seq() -> int:
    return clock.seconds() * 1000


def _shown(item: EmailAddress, owner: Account) -> Address:
    # The account decides which address is primary: an item is only its mirror.
    primary = item.email.lower() == (owner.email or "").lower()
    return Address(item.email, bool(item.verified), primary, int(owner.id), owner.login)


def _held(account: Account) -> list[EmailAddress]:
    return email_store.addresses_of(int(account.id))


def addresses(account: Account, held: list[EmailAddress] | None = None) -> list[Address]:
    """The user's addresses in the order they were added; the primary one is shown
    even when no item was ever written for it (accounts made before addresses were)."""
    items = sorted(_held(account) if held is None else held,
                   key=lambda i: (int(i.seq or 0), i.email.lower()))
    found = [_shown(item, account) for item in items]
    if account.email and not any(a.primary for a in found):
        primary = email_store.new_primary(int(account.id), account.email, 0)
        found.insert(0, _shown(primary, account))
    return found


def own_addresses(actor: Account | None) -> list[Address]:
    """userListEmails."""
    return addresses(_signed_in(actor))


def user_addresses(actor: Account | None, name: str) -> list[Address]:
    """adminListUserEmails."""
    _require_site_admin(actor)
    return addresses(get_user(name))


def _wanted(emails: Iterable[str] | None) -> list[str]:
    """The addresses asked for, trimmed, each once (a repeat is Forgejo's "used")."""
    found, seen = [], set()
    for raw in emails or ():
        address = (raw or "").strip()
        try:
            validate_email(address)
        except InvalidInput:
            raise InvalidInput(f'Email address "{address}" invalid') from None
        if address.lower() in seen:
            raise InvalidInput(f"Email address has been used: {address}")
        seen.add(address.lower())
        found.append(address)
    return found


def add_addresses(actor: Account | None, emails: list[str] | None) -> list[Address]:
    """userAddEmail: the added addresses.  One transaction of claims and items; an
    address someone holds fails its claim (no read beforehand), so two users adding
    one address at once cannot both get it."""
    user = _signed_in(actor)
    wanted = _wanted(emails)
    if not wanted:
        raise InvalidInput("Email list empty")
    if len(wanted) > MAX_AT_ONCE:
        raise InvalidInput(f"at most {MAX_AT_ONCE} email addresses can be added at once")
    start = _seq()
    try:
        with unit_of_work.writing():
            for i, address in enumerate(wanted):
                email_store.stage_add(int(user.id), address, start + i)
    except ConditionFailed as failed:
        taken = next((a for a in wanted if email_store.claim_label(a) == failed.label), None)
        if taken is None:
            raise
        raise InvalidInput(f"Email address has been used: {taken}") from None
    return [Address(a, True, False, int(user.id), user.login) for a in wanted]


def _delete(account: Account, emails: list[str] | None) -> None:
    asked = [(e or "").strip() for e in emails or ()]
    if not asked:
        return
    by_lower = {item.email.lower(): item for item in _held(account)}
    doomed = {}
    for address in asked:
        if address.lower() == (account.email or "").lower():
            raise InvalidInput(f"primary email address cannot be deleted [email: {address}]")
        item = by_lower.get(address.lower())
        if item is None:
            raise NotFoundError(f"email address does not exist [email: {address}]")
        doomed[address.lower()] = item
    try:
        with unit_of_work.writing():
            for item in doomed.values():
                email_store.stage_remove(item)
    except ConditionFailed as failed:
        if failed.label != email_store.GONE:
            raise
        raise ConflictError("the email addresses changed while they were being deleted") \
            from None


def delete_own_addresses(actor: Account | None, emails: list[str] | None) -> None:
    """userDeleteEmail: all or nothing."""
    _delete(_signed_in(actor), emails)


def delete_user_addresses(actor: Account | None, name: str, emails: list[str] | None) -> None:
    """adminDeleteUserEmails."""
    _require_site_admin(actor)
    _delete(get_user(name), emails)


def every_address(actor: Account | None, keyword: str, offset: int,
                  limit: int) -> tuple[list[Address], int]:
    """adminGetAllEmails / adminSearchEmails: one page in address order, and the
    (bounded) number of matches."""
    _require_site_admin(actor)
    keyword = keyword.strip().lower()
    page, seen = pages.window((i for i in email_store.every_address()
                               if not keyword or keyword in i.email.lower()),
                              offset, limit, ahead=COUNT_AHEAD)
    owners = {int(a.id): a for a in store.get_many(int(i.user_id) for i in page)}
    return [_shown(i, owners[int(i.user_id)]) for i in page if int(i.user_id) in owners], seen
