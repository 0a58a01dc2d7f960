"""Pages of an organization's members, shared by the organization's profile
(``pages.profile``) and its members page (``org_pages``); this module registers no
routes, so the profile's module imports no organization page.

orgListMembers shows members everyone to the organization's members (and site admins)
and the public members to everyone else (``orgs.shown_memberships``); its service reads
every member's account.  A page reads the membership items in one Query (the profile's
in the Query that reads the teams too: ``orgs.people_of``) and the accounts of only the
shown page in one batch, so an organization of thousands of members costs what one of
twenty does.  They come in the order people joined (the membership items' order): an
order by name would need every member's account first.
"""
from __future__ import annotations

from chalicelib import orgs


def member_page(viewer, org, offset: int, limit: int) -> tuple[list, list, int]:
    """(accounts, their membership items, how many ``viewer`` may see) of one page."""
    return page_of(orgs.shown_memberships(viewer, org, orgs.org_members(org)), offset, limit)


def page_of(items: list, offset: int, limit: int) -> tuple[list, list, int]:
    """``member_page`` of membership items already filtered for the viewer."""
    shown = items[offset:offset + limit]
    by_id = {int(a.id): a for a in orgs.member_accounts(shown)}
    pairs = [(by_id.get(int(item.user_id)), item) for item in shown]
    pairs = [(account, item) for account, item in pairs if account is not None]
    return [a for a, _ in pairs], [i for _, i in pairs], len(items)
