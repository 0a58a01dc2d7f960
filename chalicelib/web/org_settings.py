"""An organization's settings for its owners, at Forgejo's URL ``/org/{org}/settings``:
its profile fields and visibility (``orgs.edit_org``, the service orgEdit calls) and
deleting it with its name typed (``orgs.delete_org``: orgDelete).

The page is the 404 page to everyone but the owners (and site admins); a POST from
anyone else reaches the service, which refuses it with the API's 403.  Deleting is
refused while the organization owns repositories, as the API refuses it, and the
refusal is shown beside the name field.
"""
from __future__ import annotations

from chalicelib import errors, orgs
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.web.actions_forms import checked, fixable_status, posted, show_form
from chalicelib.web.org_pages import (VISIBILITIES, OrgView, edge_option, org_values,
                                      org_view, owner_view, refusal, require_owner)
from chalicelib.web.view import Web, page, redirect

TEMPLATE = "org/settings.html"
TEXTS = ("full_name", "description", "website", "location")
# The API's field names in its messages ("[FullName]: MaxSize"), lower-cased, to the form's.
FIELDS = {"fullname": "full_name", "description": "description", "website": "website",
          "location": "location", "visibility": "visibility"}


def _values_of(record: dict) -> dict:
    return {**{name: record.get(name) or "" for name in TEXTS},
            "visibility": record.get("visibility") or "public",
            "repo_admin_change_team_access": bool(record.get("repo_admin_change_team_access")),
            "confirm_name": ""}


def _show(web: Web, view: OrgView, values: dict, *, error=None, delete_error: str = "",
          status: int = 200) -> ApiResponse:
    field_errors = {"confirm_name": delete_error} if delete_error else None
    return show_form(web, TEMPLATE, error=error, status=status, fields=FIELDS,
                     title=f"{view.org.login}: settings", values=values,
                     visibilities=VISIBILITIES, delete_errors=field_errors,
                     repo_count=int(view.org.num_repos or 0), **org_values(view, "settings"))


@page("GET", "/org/{org}/settings", "webOrgSettings", signed_in=True)
def settings(req: ApiRequest, web: Web) -> ApiResponse:
    view = owner_view(req)
    return _show(web, view, _values_of(view.record))


@page("POST", "/org/{org}/settings", "webOrgSettingsSave", signed_in=True)
def save(req: ApiRequest, web: Web) -> ApiResponse:
    """orgEdit with every field of the form (the API keeps what is not sent; the form
    sends them all, so an emptied field is cleared)."""
    view = org_view(req)
    require_owner(view)
    form = posted(req)
    values = {**{name: form.get(name, "") for name in TEXTS},
              "visibility": form.get("visibility", ""),
              "repo_admin_change_team_access": checked(form, "repo_admin_change_team_access"),
              "confirm_name": ""}
    body = {name: values[name] for name in (*TEXTS, "visibility",
                                            "repo_admin_change_team_access")}
    try:
        orgs.edit_org(req.actor, view.org, edge_option(orgs.EditOrgOption, body))
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _show(web, view, values, error=err)
    return redirect(view.url("settings"))


@page("POST", "/org/{org}/settings/delete", "webOrgDelete", signed_in=True)
def delete(req: ApiRequest, web: Web) -> ApiResponse:
    """orgDelete, once the organization's name is typed (a slip of the hand deletes
    nothing); the service refuses an organization that still owns repositories."""
    view = org_view(req)
    typed = posted(req).get("confirm_name", "").strip()
    if typed.lower() != view.org.lower_name:
        require_owner(view)
        return _show(web, view, {**_values_of(view.record), "confirm_name": typed},
                     status=422,
                     delete_error="Type the organization's name to delete it.")
    try:
        orgs.delete_org(req.actor, view.org)
    except errors.ServiceError as err:
        status, message = refusal(err)
        if "repositories" in message:
            message = (f"{view.org.login} still owns {int(view.org.num_repos or 0)} "
                       "repositories: delete or transfer them first.")
        return _show(web, view, {**_values_of(view.record), "confirm_name": typed},
                     status=status, delete_error=message)
    return redirect("/")
