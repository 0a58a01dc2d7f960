"""Organizations in the browser, at Forgejo's URLs: a new organization
(``GET/POST /org/create``) and an organization's members (``/org/{org}/members``, with
a remove button for owners).  Teams are in ``org_team_pages``, the owners' settings in
``org_settings``; both use the helpers here.

Each page calls the service the API operation calls (``orgs.create_org``: orgCreate,
``orgs.remove_org_member``: orgDeleteMember), so the rules and permission checks are the
API's.  A private organization is the 404 page to whoever the API answers 404
(``orgs.get_org``).

Members are read a page at a time (``org_lists.member_page``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chalicelib import accounts, errors, orgs, repos
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.web.actions_forms import fixable_status, posted, show_form
from chalicelib.web.org_lists import member_page
# A form's fields as the API's option, after the checks the API's edge makes on a JSON
# body; org_settings and org_team_pages take it from here.
from chalicelib.web.settings_common import edge_option
from chalicelib.web.view import Web, page, pager, path_url, redirect, render

CREATE = "org/create.html"
MEMBERS = "org/members.html"
VISIBILITIES = ("public", "limited", "private")
# The fields the API's messages name ("[UserName]: …"), as the create form calls them.
CREATE_FIELDS = {"username": "org_name", "visibility": "visibility"}


@dataclass
class OrgView:
    """An organization as the caller sees it, with the caller's standing in it."""
    org: Any
    record: dict
    is_member: bool
    is_owner: bool

    @property
    def base(self) -> str:
        """The profile's address."""
        return path_url(self.org.login)

    def url(self, *more: str) -> str:
        """An address under ``/org/{org}``."""
        return path_url("org", self.org.login, *more)


def org_view(req: ApiRequest, name: str | None = None) -> OrgView:
    """The organization the path names (the API's 404 when the caller may not see it).
    Membership and ownership both read the caller's one membership item."""
    org = orgs.get_org(req.actor, name or req.params["org"])
    member = orgs.is_org_member(org, req.actor)
    owner = member and repos.is_org_owner(org, req.actor)
    return OrgView(org, orgs.organization_record(org), member, owner)


def owner_view(req: ApiRequest) -> OrgView:
    """Owners' pages: the 404 page for everyone else (a page is not advertised to
    people who cannot use it; the API answers their writes 403)."""
    view = org_view(req)
    if not view.is_owner:
        raise errors.NotFoundError("page does not exist")
    return view


def require_owner(view: OrgView) -> None:
    """The services' owner test (``repos.is_org_owner``) made before a form's input is
    read, so a non-owner gets the API's 403 whatever they typed."""
    if not view.is_owner:
        raise errors.PermissionDenied("Must be an organization owner")


def org_values(view: OrgView, tab: str) -> dict:
    """What ``macros.org_nav`` and the organization's page header read."""
    return {"org": view.record, "org_view": view, "org_base": view.base, "tab": tab,
            "is_member": view.is_member, "is_owner": view.is_owner}


def refusal(err: errors.ServiceError) -> tuple[int, str]:
    """(status, message) of a refusal the page shows (bad input, a conflict); any other
    error goes on up to the error page."""
    status = fixable_status(err)
    if status is None:
        raise err
    return status, getattr(err, "message", "") or str(err)


def user_cards(req: ApiRequest, found: list) -> list[dict]:
    return [accounts.user_record(a, req.actor) for a in found]


# --- a new organization ---------------------------------------------------------------

@page("GET", "/org/create", "webOrgCreateForm", signed_in=True)
def create_form(req: ApiRequest, web: Web) -> ApiResponse:
    return show_form(web, CREATE, title="New organization", visibilities=VISIBILITIES,
                     values={"org_name": "", "visibility": "public"})


@page("POST", "/org/create", "webOrgCreate", signed_in=True)
def create(req: ApiRequest, web: Web) -> ApiResponse:
    form = posted(req)
    values = {"org_name": form.get("org_name", "").strip(),
              "visibility": form.get("visibility", "public")}
    try:
        option = edge_option(orgs.CreateOrgOption, {"username": values["org_name"],
                                                    "visibility": values["visibility"]})
        org = orgs.create_org(req.actor, req.actor, option)
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        # "user already exists [name: x]" names no field; it is about the name.
        message = getattr(err, "message", "") or str(err)
        if "already exists" in message:
            err = errors.InvalidInput(f"[UserName]: the name is taken: {values['org_name']}")
        return show_form(web, CREATE, error=err, title="New organization",
                         visibilities=VISIBILITIES, values=values, fields=CREATE_FIELDS)
    return redirect(path_url(org.login))


# --- members ----------------------------------------------------------------------------

def _members(req: ApiRequest, web: Web, view: OrgView, *, status: int = 200,
             error: str = "") -> ApiResponse:
    page_ = paging.page_of(req)
    found, items, total = member_page(req.actor, view.org, page_.offset, page_.limit)
    shown = [{"user": card, "public": bool(item.public)}
             for card, item in zip(user_cards(req, found), items)]
    return render(web, MEMBERS, status=status, title=f"{view.org.login}: members",
                  members=shown, total=total, pager=pager(req, total),
                  error=error, form_csrf=web.csrf if view.is_owner else "",
                  **org_values(view, "members"))


@page("GET", "/org/{org}/members", "webOrgMembers")
def members(req: ApiRequest, web: Web) -> ApiResponse:
    return _members(req, web, org_view(req))


@page("POST", "/org/{org}/members/action/remove", "webOrgMemberRemove", signed_in=True)
def remove_member(req: ApiRequest, web: Web) -> ApiResponse:
    """orgDeleteMember: out of every team and the organization (the service refuses the
    last owner: shown on the members page)."""
    view = org_view(req)
    require_owner(view)
    name = posted(req).get("user", "")
    try:
        orgs.remove_org_member(req.actor, view.org, accounts.get_user(name))
    except errors.ServiceError as err:
        status, message = refusal(err)
        return _members(req, web, view, status=status, error=message)
    return redirect(view.url("members"))
