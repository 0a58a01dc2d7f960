"""What the repository settings pages share (``settings_repo``, ``settings_collaborators``,
``settings_hooks``, ``settings_keys``): who may open them, their addresses, reading a
form into the API's option record with the API's own edge checks, and the page frame's
values.

This module registers no routes.  Like ``actions_protection``, the settings pages are
the 404 page to everyone but the repository's admins (the API answers a reader 403; a
settings page is not advertised to people who cannot use it), and a private repository
is the 404 page to whoever cannot see it, as in the API.
"""
from __future__ import annotations

from typing import Any

from chalicelib import errors
from chalicelib.http import input_rules
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.options import decode
from chalicelib.repos import current_repo
from chalicelib.web.actions_forms import fixable_status, repo_values
from chalicelib.web.view import Web, path_url, render


def admin_view(req: ApiRequest):
    """The repository for its admins; the 404 page for everyone else."""
    view = current_repo(req)
    if req.actor is None or not view.is_admin:
        raise errors.NotFoundError("page does not exist")
    return view


def settings_url(view, *more: str) -> str:
    return path_url(view.owner.login, view.repo.name, "settings", *more)


def edge_option(cls: type, body: dict[str, Any]):
    """``body`` as the API's option ``cls``, after the checks the API's edge makes on a
    JSON body (text limits, one-line fields, types): a form is held to what a client
    sending the same fields as JSON is held to."""
    input_rules.check_body(body, cls.__name__)
    return decode(cls, body)


def shown_error(error: errors.ServiceError | None, field_names: dict[str, str],
                ) -> tuple[int, dict[str, str], str]:
    """(status, field errors, form error) for a refusal an admin can fix: a message
    naming a field (``[Title]: …``, or one of ``field_names``' words) goes beside it."""
    if error is None:
        return 200, {}, ""
    status = fixable_status(error) or (403 if isinstance(error, errors.PermissionDenied)
                                       else 400)
    message = getattr(error, "message", "") or str(error) or "Not allowed."
    lowered = message.lower()
    for key, field in field_names.items():
        if lowered.startswith(f"[{key}]") or key in lowered:
            return status, {field: message}, ""
    return status, {}, message


def show(req: ApiRequest, web: Web, view, template: str, current: str, *,
         status: int = 200, **values) -> ApiResponse:
    """A settings page: the repository header (Settings tab), the settings navigation
    (``current`` names the open section) and the page's own values."""
    return render(web, template, status=status, form_csrf=web.csrf, settings_current=current,
                  **repo_values(req, view, "settings"), **values)
