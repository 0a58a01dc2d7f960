"""Lists of users: the site admin's (``adminSearchUsers``) and everyone's search
(``userSearch``), read from the user index (``accounts.store.users``: gsi2 ``USERS``,
by lower-case name) a DynamoDB page at a time, never by a scan.

Forgejo filters and counts in SQL.  Here the index is read in name order (or reversed)
and filtered as it goes; the walk stops ``COUNT_AHEAD`` matches past the page, so the
first page of a long list costs one Query, and ``X-Total-Count`` is exact when the
matches end within that and otherwise what was seen (the page's end plus
``COUNT_AHEAD``), so clients still get a ``next`` link, as the commit list counts
(``services/commit_views``).  The orders by time (``oldest``, ``newest``,
``recentupdate``, ``leastupdate``) cannot be read from a name index: they sort the
first ``SORTED_AT_MOST`` matches in name order, so a request never reads more than that
however many users the instance has; past it the order holds within those matches only
(a time-ordered index would lift this; docs/compatibility.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from chalicelib.accounts import store
from chalicelib.accounts.service import can_see
from chalicelib.store import pages

if TYPE_CHECKING:
    from chalicelib.accounts.store import Account

COUNT_AHEAD = 1000
# The matches a time order sorts: a bound on what one request reads.
SORTED_AT_MOST = 1000

# Forgejo's SearchOrderBy values by their query names: (key, descending); None for the
# name orders the index serves directly.
_TIME_ORDERS: dict[str, tuple[Callable[[Account], int], bool]] = {
    "oldest": (lambda a: int(a.id), False),
    "newest": (lambda a: int(a.id), True),
    "recentupdate": (lambda a: int(a.updated), True),
    "leastupdate": (lambda a: int(a.updated), False),
}


@dataclass(frozen=True)
class UserQuery:
    keyword: str = ""              # in the name, full name or a visible e-mail
    uid: int = 0                   # only the user with this id
    login_name: str = ""           # exact (the name at the login source)
    source_id: int = 0             # the login source (0: any)
    two_factor: bool | None = None  # is_2fa_enabled: no user has 2FA here
    sort: str = ""                 # alphabetically (default) and Forgejo's others


def _matches(query: UserQuery, viewer: Account | None) -> Callable[[Account], bool]:
    keyword = query.keyword.strip().lower()

    def email_searchable(account: Account) -> bool:
        # Forgejo matches an e-mail only where the viewer may see it.
        return viewer is not None and (viewer.is_admin or viewer.id == account.id
                                       or not account.keep_email_private)

    def matches(account: Account) -> bool:
        if account.account_type != "user" or not can_see(viewer, account):
            return False
        if query.uid and int(account.id) != query.uid:
            return False
        if query.login_name and account.login_name != query.login_name:
            return False
        if query.source_id > 0 and int(account.source_id) != query.source_id:
            return False
        if query.two_factor:
            return False
        if keyword and keyword not in account.lower_name \
                and keyword not in account.full_name.lower() \
                and not (email_searchable(account) and keyword in account.email.lower()):
            return False
        return True
    return matches


def _candidates(query: UserQuery, descending: bool) -> Iterable[Account]:
    if query.uid:
        found = store.get_by_id(query.uid)     # one GetItem instead of the index
        return [found] if found is not None else []
    return store.users(descending=descending)


def _indexed(viewer: Account | None, query: UserQuery) -> list[Account] | None:
    """The users holding a keyword of two or more letters, from the search domain's
    account index (the accounts holding one piece of it, not every account), in name
    order; None when the name index serves the query."""
    from chalicelib import search as search_index   # above: it indexes the accounts

    if query.uid or len(query.keyword.strip()) < 2:
        return None
    ids = search_index.account_ids_matching(viewer, query.keyword)
    if ids is None:
        return None
    found = {int(a.id): a for a in store.get_many(ids)}
    return [found[i] for i in ids if i in found]


def search(viewer: Account | None, query: UserQuery, offset: int,
           limit: int) -> tuple[list[Account], int]:
    """One page of the users ``viewer`` may see that match, and the total (exact with
    a keyword of two or more letters, else bounded)."""
    matches = _matches(query, viewer)
    timed = _TIME_ORDERS.get(query.sort)
    indexed = _indexed(viewer, query)
    if indexed is not None:
        # Every match is in hand (re-checked on the accounts as they are now).
        found = [a for a in indexed if matches(a)]
        if timed is not None:
            found.sort(key=timed[0], reverse=timed[1])
        elif query.sort == "reversealphabetically":
            found.reverse()
        return found[offset:offset + limit], len(found)
    if timed is not None:
        key, descending = timed
        found = []
        for account in _candidates(query, False):
            if matches(account):
                found.append(account)
                if len(found) >= SORTED_AT_MOST:
                    break
        found.sort(key=key, reverse=descending)
        return found[offset:offset + limit], len(found)
    found = (a for a in _candidates(query, query.sort == "reversealphabetically") if matches(a))
    return pages.window(found, offset, limit, ahead=COUNT_AHEAD)


def site_admin_exists() -> bool:
    """Whether any user is a site admin (walks the user index up to the first one)."""
    return any(account.is_admin for account in store.users())
