"""Grants, refresh-token families, authorization codes and refresh tokens in the table
(the layouts: ``models``).

Every write that could race is conditional: a code is used by flipping ``used`` on
condition that it was not; a family rotates on condition that it is still at the
generation its refresh token was issued for; a grant is created on condition that none
exists.  So two requests presenting the same code or the same refresh token never both
get tokens.
"""
from __future__ import annotations

from chalicelib import accounts
from chalicelib.oauth2.models import (
    OAuthCode,
    OAuthFamily,
    OAuthGrant,
    OAuthGrantLink,
    OAuthRefresh,
    keys,
)
from chalicelib.store import unit_of_work
from chalicelib.store.table import Item

__all__ = [
    "CODE_USED",
    "FAMILY_MOVED",
    "GRANT_EXISTS",
    "OAuthCode",
    "OAuthFamily",
    "OAuthGrant",
    "OAuthRefresh",
    "get_code",
    "get_family",
    "get_grant",
    "get_refresh",
    "grant_user_ids",
    "grant_with_families",
    "list_grants",
    "new_grant",
    "stage_code",
    "stage_create_grant",
    "stage_family",
    "stage_refresh",
    "stage_revoke",
    "stage_rotate",
    "stage_save_grant",
    "stage_use_code",
]

# Labels of the staged writes that fail when another request got there first.
CODE_USED = "authorization code"
FAMILY_MOVED = "refresh token"
GRANT_EXISTS = "grant"


# --- grants ----------------------------------------------------------------------------

def get_grant(user_id: int, app_id: int, *, consistent: bool = False) -> OAuthGrant | None:
    return unit_of_work.get(OAuthGrant, keys.grant(user_id, app_id), consistent=consistent)


def list_grants(user_id: int) -> list[OAuthGrant]:
    found = Item.query(keys.account_partition(user_id), Item.sk.startswith(keys.GRANT_PREFIX))
    return [item for item in found if type(item) is OAuthGrant]


def grant_with_families(user_id: int, app_id: int) -> list[Item]:
    """The grant and every family of it: one query of the user's partition."""
    pk, prefix = keys.grant_partition(user_id, app_id)
    return [item for item in Item.query(pk, Item.sk.startswith(prefix), consistent_read=True)
            if type(item) in (OAuthGrant, OAuthFamily)]


def grant_user_ids(app_id: int) -> list[int]:
    """Users who granted the application access (its partition of links)."""
    return [int(link.user_id) for link in Item.query(keys.app_links(app_id))
            if type(link) is OAuthGrantLink]


def stage_create_grant(grant: OAuthGrant) -> None:
    uow = unit_of_work.current()
    uow.put(grant, label=GRANT_EXISTS, must_not_exist=True)
    uow.put(OAuthGrantLink(*keys.grant_link(int(grant.app_id), int(grant.user_id)),
                           user_id=int(grant.user_id)), label="grant link")


def new_grant(**values) -> OAuthGrant:
    return OAuthGrant(*keys.grant(int(values["user_id"]), int(values["app_id"])), **values)


def stage_save_grant(grant: OAuthGrant) -> None:
    unit_of_work.current().put(grant, label=GRANT_EXISTS,
                               condition=OAuthGrant.pk.exists())


def stage_revoke(items: list[Item]) -> None:
    """Delete a grant and its families (``grant_with_families``) with everything they
    own: the application's link, the families' access and refresh tokens."""
    uow = unit_of_work.current()
    for item in items:
        uow.delete(item, label="grant")
        for owned in item.owned_elsewhere():
            uow.delete(owned, label="grant")


# --- authorization codes -----------------------------------------------------------------

def get_code(code_hash: str) -> OAuthCode | None:
    return unit_of_work.get(OAuthCode, keys.code(code_hash), consistent=True)


def stage_code(code_hash: str, **values) -> None:
    unit_of_work.current().put(OAuthCode(*keys.code(code_hash), **values), label="code",
                               must_not_exist=True)


def stage_use_code(code: OAuthCode, family: str) -> None:
    unit_of_work.current().update(
        code, [OAuthCode.used.set(True), OAuthCode.family.set(family)], label=CODE_USED,
        condition=(OAuthCode.used == False) & OAuthCode.pk.exists())


# --- families and refresh tokens -----------------------------------------------------------

def get_family(user_id: int, app_id: int, family: str) -> OAuthFamily | None:
    return unit_of_work.get(OAuthFamily, keys.family(user_id, app_id, family), consistent=True)


def stage_family(user_id: int, family: str, **values) -> OAuthFamily:
    """A new family (``values`` name its application, ``app_id``)."""
    made = OAuthFamily(*keys.family(user_id, int(values["app_id"]), family), **values)
    unit_of_work.current().put(made, label=FAMILY_MOVED, must_not_exist=True)
    return made


def stage_rotate(family: OAuthFamily, *, generation: int, access_hash: str,
                 refresh_hash: str, updated: int, expires: int) -> None:
    """Move the family on from ``generation`` (the one its refresh token was issued for);
    fails with ``FAMILY_MOVED`` when another request moved it first."""
    unit_of_work.current().update(family, [
        OAuthFamily.generation.set(generation + 1), OAuthFamily.access_hash.set(access_hash),
        OAuthFamily.refresh_hash.set(refresh_hash), OAuthFamily.updated.set(updated),
        OAuthFamily.expires.set(expires)], label=FAMILY_MOVED,
        condition=OAuthFamily.generation == generation)
    if family.access_hash:
        accounts.stage_drop_token(family.access_hash)


def get_refresh(refresh_hash: str) -> OAuthRefresh | None:
    return unit_of_work.get(OAuthRefresh, keys.refresh(refresh_hash), consistent=True)


def stage_refresh(refresh_hash: str, **values) -> None:
    unit_of_work.current().put(OAuthRefresh(*keys.refresh(refresh_hash), **values),
                               label="refresh token", must_not_exist=True)
