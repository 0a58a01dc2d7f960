"""A repository's collaborators in the browser, for its admins:
``/{owner}/{repo}/settings/collaboration`` lists them with their permission, adds one
by user name with read, write or admin, changes a permission and removes one
(``/settings/collaboration/delete``).

Each calls the service the API's route calls (repoListCollaborators,
repoAddCollaborator, repoDeleteCollaborator: ``repos.collaborators``,
``repos.add_collaborator``, ``repos.remove_collaborator``) with AddCollaboratorOption,
so an unknown or inactive user, the owner, a blocked user and a bad permission are
refused by the API's rules; the refusal is shown beside the field it is about and
nothing is written.  Changing a permission is adding again with the new one, as the
API's PUT does.
"""
from __future__ import annotations

from chalicelib import errors, repos
from chalicelib.http import input_rules
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import AddCollaboratorOption
from chalicelib.web.actions_forms import fixable_status, posted
from chalicelib.web.settings_common import admin_view, edge_option, settings_url, show, shown_error
from chalicelib.web.view import Web, page, redirect

TEMPLATE = "settings/collaboration.html"
PERMISSIONS = ("read", "write", "admin")
# Words of the service's messages -> the form field they are about.
COLLABORATOR_FIELDS = {"permission": "permission", "collaborator": "collaborator",
                       "user": "collaborator", "owner": "collaborator",
                       "block": "collaborator"}


def _rows(view) -> list[dict]:
    """Each collaborator with their permission: one Query of the collaboration items
    (which hold the modes) and one batch of accounts, however many there are."""
    return [{"login": account.login, "full_name": account.full_name, "permission": mode}
            for account, mode in repos.collaborators_with_modes(view)]


def _page(req: ApiRequest, web: Web, view, *, error: errors.ServiceError | None = None,
          typed: dict | None = None) -> ApiResponse:
    status, field_errors, message = shown_error(error, COLLABORATOR_FIELDS)
    return show(req, web, view, TEMPLATE, "collaboration", status=status,
                title="Collaborators", collaborators=_rows(view), permissions=PERMISSIONS,
                typed=typed or {"collaborator": "", "permission": "write"},
                field_errors=field_errors, error=message,
                action=settings_url(view, "collaboration"))


@page("GET", "/{owner}/{repo}/settings/collaboration", "webRepoSettingsCollaborators",
      in_repo=True)
def collaborators(req: ApiRequest, web: Web) -> ApiResponse:
    return _page(req, web, admin_view(req))


@page("POST", "/{owner}/{repo}/settings/collaboration", "webRepoSettingsCollaboratorAdd",
      in_repo=True)
def add(req: ApiRequest, web: Web) -> ApiResponse:
    """Adds a collaborator, or changes the permission of one."""
    view = admin_view(req)
    form = posted(req)
    typed = {"collaborator": form.get("collaborator", "").strip(),
             "permission": form.get("permission", "write")}
    try:
        input_rules.check_text(typed["collaborator"], "collaborator", 255, single_line=True)
        option = edge_option(AddCollaboratorOption, {"permission": typed["permission"]})
        repos.add_collaborator(req.actor, view, typed["collaborator"], option)
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _page(req, web, view, error=err, typed=typed)
    return redirect(settings_url(view, "collaboration"))


@page("POST", "/{owner}/{repo}/settings/collaboration/delete",
      "webRepoSettingsCollaboratorDelete", in_repo=True)
def remove(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    name = posted(req).get("collaborator", "")
    try:
        repos.remove_collaborator(req.actor, view, name)
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _page(req, web, view, error=err)
    return redirect(settings_url(view, "collaboration"))
