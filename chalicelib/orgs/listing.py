"""Lists of organizations: everyone's (``orgGetAll``) and the site admin's
(``adminGetAllOrgs``), read from the organization index (``accounts.all_organizations``:
gsi2 ``ORGS``, by lower-case name) a DynamoDB page at a time, never by a scan.

Forgejo's rule (``SearchUsers`` for organizations): anonymous callers and public-only
tokens see public organizations; signed-in users public and limited ones (a restricted
user only those of them they belong to); site admins every one.  A private organization
is listed to nobody else, not even its members: they find it in their own list
(``orgListCurrentUserOrgs``).

As the user lists do (``accounts.search``), the walk stops ``COUNT_AHEAD`` matches past
the page, so a page costs one Query and ``X-Total-Count`` is exact when the matches end
within that, otherwise what was seen (still giving clients a ``next`` link).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from chalicelib import accounts
from chalicelib.store import pages
from chalicelib.errors import PermissionDenied
from chalicelib.orgs import store

if TYPE_CHECKING:
    from chalicelib.accounts import Account

COUNT_AHEAD = 1000


def _visible(viewer: Account | None, public_only: bool) -> Callable[[Account], bool]:
    """Which organizations the caller may see listed (Forgejo's visibility modes)."""
    if viewer is not None and viewer.is_admin and not public_only:
        return lambda org: True
    if viewer is None or public_only:
        return lambda org: org.visibility == "public"
    if viewer.restricted:
        # Read only for restricted users: which organizations they belong to.
        member_of = store.organization_ids_of(int(viewer.id))
        return lambda org: (org.visibility in ("public", "limited")
                            and int(org.id) in member_of)
    return lambda org: org.visibility in ("public", "limited")


def _page(matches: Callable[[Account], bool], offset: int,
          limit: int) -> tuple[list[Account], int]:
    return pages.window((org for org in accounts.all_organizations()
                         if org.account_type == "org" and matches(org)),
                        offset, limit, ahead=COUNT_AHEAD)


def visible_orgs(viewer: Account | None, offset: int, limit: int, *,
                 public_only: bool = False) -> tuple[list[Account], int]:
    """orgGetAll: one page of the organizations the caller may see, by name, and the
    (bounded) total."""
    return _page(_visible(viewer, public_only), offset, limit)


def all_orgs(actor: Account | None, offset: int, limit: int) -> tuple[list[Account], int]:
    """adminGetAllOrgs: one page of every organization, by name (site admins only)."""
    if actor is None or not actor.is_admin:
        raise PermissionDenied("user should be the site admin")
    return _page(lambda org: True, offset, limit)
