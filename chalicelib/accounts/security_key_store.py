"""Users' security keys (WebAuthn credentials) and the challenges of their ceremonies,
in the table.

Access patterns (all in the user's partition, so deleting the account takes them along,
and each key's credential-id claim with it):
- the keys: one Query of the ``TWOFA#KEY#`` prefix (a sign-in's options and its answer);
  the settings page reads them in the Query of every second factor
  (``two_factor_store.with_codes``);
- a key by name: GetItem ``A#<user>/TWOFA#KEY#<digest of the lower-case name>``;
- a key added: put on condition that the name is free (``NAME_TAKEN``) with the claim of
  its credential id (``CREDENTIAL_TAKEN``: registered to an account already) and the
  account's ``security_keys`` count and version moved by ADD, in one transaction;
- a key used: UpdateItem of ``sign_count`` (and ``last_used``) on condition that the
  stored count is below the new one, or both are 0 for an authenticator that keeps no
  count (``COUNT_MOVED``: a clone, a replay, or a sign-in that raced this one);
- a challenge: put with its expiry (the table's TTL removes it later); answering it is
  a DeleteItem on condition that it exists, serves that purpose (and that name) and has
  not expired (``CHALLENGE_SPENT``), so each serves one answer.

Writes are staged in the current unit of work; the caller commits.
"""
from __future__ import annotations

import hashlib

from chalicelib.accounts.models import Account, SecurityKey, SecurityKeyChallenge, keys
from chalicelib.store import unit_of_work
from chalicelib.store.table import Claim, Item

__all__ = [
    "CHALLENGE_SPENT",
    "COUNT_MOVED",
    "CREDENTIAL_TAKEN",
    "KEY_ABSENT",
    "NAME_TAKEN",
    "SecurityKey",
    "by_id",
    "by_name",
    "key_id",
    "list_keys",
    "new_key",
    "stage_add",
    "stage_challenge",
    "stage_remove",
    "stage_sign_count",
    "stage_spend_challenge",
]

# Labels of staged operations, as a failed commit names them (ConditionFailed.label).
NAME_TAKEN = "security key name taken"
CREDENTIAL_TAKEN = "security key registered"
KEY_ABSENT = "security key absent"
COUNT_MOVED = "security key count moved"
CHALLENGE_SPENT = "challenge spent"


def key_id(name: str) -> str:
    """A key's id in addresses and forms: the digest of its lower-case name."""
    return hashlib.sha256(name.strip().lower().encode()).hexdigest()[:32]


def by_name(user_id: int, name: str) -> SecurityKey | None:
    return unit_of_work.get(SecurityKey, keys.security_key(user_id, key_id(name)),
                            consistent=True)


def by_id(user_id: int, digest: str) -> SecurityKey | None:
    return unit_of_work.get(SecurityKey, keys.security_key(user_id, digest), consistent=True)


def list_keys(user_id: int) -> list[SecurityKey]:
    """The user's keys, oldest first (one consistent Query)."""
    found = Item.query(keys.account(user_id)[0], Item.sk.startswith(keys.SECURITY_KEY_PREFIX),
                       consistent_read=True)
    return sorted((item for item in found if isinstance(item, SecurityKey)),
                  key=lambda item: (int(item.created), item.name))


def _count(user_id: int, delta: int, version: bool = True) -> None:
    actions = [Account.security_keys.add(delta)] + ([Account.version.add(1)] if version else [])
    unit_of_work.current().update(Account(*keys.account(user_id)), actions,
                                  label=KEY_ABSENT, condition=Account.pk.exists())


def stage_add(user_id: int, key: SecurityKey) -> None:
    """A new key (``key`` built with ``new_key``), its credential id's claim and the
    account's count."""
    uow = unit_of_work.current()
    uow.put(key, label=NAME_TAKEN, must_not_exist=True)
    uow.put(Claim(*keys.security_key_claim(key.credential_id), owner_id=user_id),
            label=CREDENTIAL_TAKEN, must_not_exist=True)
    _count(user_id, 1)


def new_key(user_id: int, *, name: str, credential_id: str, public_key: str,
            sign_count: int, aaguid: str, created: int) -> SecurityKey:
    return SecurityKey(*keys.security_key(user_id, key_id(name)), name=name,
                       credential_id=credential_id, public_key=public_key,
                       sign_count=sign_count, aaguid=aaguid, created=created)


def stage_remove(user_id: int, removed: list[SecurityKey], *, version: bool = True) -> None:
    """Keys gone (each on condition that it is still there: ``KEY_ABSENT``), with their
    claims and the account's count; ``version`` False when another update staged in
    this transaction moves the account's version (one action per attribute)."""
    if not removed:
        return
    uow = unit_of_work.current()
    for key in removed:
        uow.delete(key, label=KEY_ABSENT, condition=SecurityKey.pk.exists())
        uow.delete(Claim(*keys.security_key_claim(key.credential_id)), label="key claim")
    _count(user_id, -len(removed), version)


def stage_sign_count(key: SecurityKey, new_count: int, used: int) -> None:
    """The count an accepted sign-in reported: ``COUNT_MOVED`` unless it is past the
    stored one (or both stay 0), whatever sign-in read the key meanwhile."""
    if new_count > 0:
        moved = SecurityKey.sign_count < new_count
    else:
        moved = SecurityKey.sign_count == 0
    unit_of_work.current().update(
        SecurityKey(key.pk, key.sk),
        [SecurityKey.sign_count.set(new_count), SecurityKey.last_used.set(used)],
        label=COUNT_MOVED, condition=SecurityKey.pk.exists() & moved)


def stage_challenge(user_id: int, challenge: str, purpose: str, expires: int,
                    name: str = "") -> None:
    unit_of_work.current().put(
        SecurityKeyChallenge(*keys.security_key_challenge(user_id, challenge),
                             purpose=purpose, name=name, expires=expires),
        label="challenge")


def stage_spend_challenge(user_id: int, challenge: str, purpose: str, now: int,
                          name: str | None = None) -> None:
    """Use up a challenge: ``CHALLENGE_SPENT`` when it is not this user's for this
    purpose (and name), has expired, or was answered already."""
    condition = SecurityKeyChallenge.pk.exists() & (SecurityKeyChallenge.purpose == purpose) \
        & (SecurityKeyChallenge.expires >= now)
    if name is not None:
        condition = condition & (SecurityKeyChallenge.name == name)
    unit_of_work.current().delete(
        SecurityKeyChallenge(*keys.security_key_challenge(user_id, challenge)),
        label=CHALLENGE_SPENT, condition=condition)
