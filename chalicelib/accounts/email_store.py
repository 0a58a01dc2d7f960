"""Users' e-mail addresses in the table.

| item | pk | sk | gsi2pk / gsi2sk | attributes |
|---|---|---|---|---|
| address | ``A#<user>`` | ``EMAIL#<lower address>`` | ``EMAILS`` / ``<lower address>`` | ``email``, ``user_id``, ``primary``, ``verified``, ``seq`` |
| claim | ``EMAIL#<lower address>`` | ``CLAIM`` | – | ``owner_id`` |

An address belongs to one account on the whole instance, whatever its case: whoever
puts its claim first (a must-not-exist put) holds it, in the same transaction as the
address item (``ConditionFailed(claim_label(address))`` when someone holds it).  The
primary address is the account's ``email``: its claim is written and deleted with the
account (``store``), and its address item only marks it primary.  Any other address
item owns its claim (``EmailAddress.owned_elsewhere``), so deleting the account takes
both.

A user's addresses are one Query of the user's partition; every address of the
instance is gsi2 ``EMAILS`` in address order (Forgejo's default order), read a
DynamoDB page at a time.  Accounts created before addresses had items have none for
their primary; ``addresses_of`` shows it all the same (from the account), the
instance-wide index does not until the address is touched.
"""
from __future__ import annotations

from typing import Iterator

from chalicelib.accounts.models import EmailAddress, keys
from chalicelib.store import unit_of_work
from chalicelib.store.table import Claim, Item

GONE = "email address"          # ConditionFailed label: the address is no longer there
CLAIM_PREFIX = "email:"         # ConditionFailed labels of claims: this, then the address


def claim_label(address: str) -> str:
    return CLAIM_PREFIX + address.lower()


def _item(user_id: int, address: str, *, primary: bool, seq: int) -> EmailAddress:
    lower = address.lower()
    return EmailAddress(*keys.email_address(int(user_id), lower), email=address,
                        user_id=int(user_id), primary=primary, verified=True, seq=seq,
                        gsi2pk=keys.ALL_EMAILS_GSI, gsi2sk=lower)


def addresses_of(user_id: int) -> list[EmailAddress]:
    """The user's address items (consistent: a list right after an add shows it)."""
    found = EmailAddress.query(keys.account_partition(int(user_id)),
                               EmailAddress.sk.startswith(keys.EMAIL_PREFIX),
                               consistent_read=True)
    return list(found)


def every_address(*, after: str | None = None) -> Iterator[EmailAddress]:
    """Every address item of the instance in lower-case address order, lazily (a
    DynamoDB page at a time, only as far as the caller iterates)."""
    condition = Item.gsi2sk > after if after else None
    return EmailAddress.gsi2.query(keys.ALL_EMAILS_GSI, condition)


def new_primary(user_id: int, address: str, seq: int) -> EmailAddress:
    """The item of a primary address (not yet staged), e.g. one a user had none for."""
    return _item(user_id, address, primary=True, seq=seq)


def stage_primary(user_id: int, address: str, seq: int) -> None:
    """The primary address's item, for an account created with it (its claim is the
    account's own)."""
    if address:
        unit_of_work.current().put(new_primary(user_id, address, seq), label=GONE)


def stage_add(user_id: int, address: str, seq: int) -> None:
    """A new address: its claim (``claim_label(address)`` when anyone holds it) and
    its item."""
    uow = unit_of_work.current()
    uow.put(Claim(*keys.email(address.lower()), owner_id=int(user_id)),
            label=claim_label(address), must_not_exist=True)
    uow.put(_item(user_id, address, primary=False, seq=seq), label=GONE)


def stage_remove(item: EmailAddress) -> None:
    """A secondary address and its claim, on condition that it is still there and
    still not primary (``GONE``)."""
    uow = unit_of_work.current()
    uow.delete(EmailAddress(item.pk, item.sk), label=GONE,
               condition=EmailAddress.pk.exists() & (EmailAddress.primary == False))  # noqa: E712
    uow.delete(Claim(*keys.email(item.email.lower())), label=GONE)


def stage_primary_change(user_id: int, old: str, new: str, held: list[EmailAddress],
                         *, taken_label: str, seq: int) -> None:
    """The account's e-mail moves from ``old`` to ``new`` (``held``: the user's
    address items as read).  The old address is let go with its claim, as an edit
    always did; the new one is the user's own secondary made primary (its claim
    stays), or a new claim (``taken_label`` when someone holds it)."""
    uow = unit_of_work.current()
    by_lower = {item.email.lower(): item for item in held}
    if old and old.lower() != new.lower():
        uow.delete(Claim(*keys.email(old.lower())), label=taken_label)
        if old.lower() in by_lower:
            uow.delete(EmailAddress(*keys.email_address(int(user_id), old.lower())),
                       label=GONE)
    if not new:
        return
    mine = by_lower.get(new.lower())
    if mine is not None:
        uow.update(EmailAddress(mine.pk, mine.sk),
                   [EmailAddress.primary.set(True), EmailAddress.email.set(new)],
                   label=GONE, condition=EmailAddress.pk.exists())
        return
    uow.put(Claim(*keys.email(new.lower()), owner_id=int(user_id)), label=taken_label,
            must_not_exist=True)
    uow.put(_item(user_id, new, primary=True, seq=seq), label=GONE)
