"""What every action form shares: the signed-in check, reading a posted form, the
repository header's values and re-showing a form with the service's message.

This module registers no routes, and the ``actions_*`` modules import none of the
reading pages' modules: the route table is first-match in registration order, and the
actions' literal paths (``/repo/create``, ``/{owner}/{repo}/issues/new``) must be
registered before the pages' ``/{owner}/{repo}`` and ``/{owner}/{repo}/issues/{index}``.
"""
from __future__ import annotations

import re

from chalicelib import errors
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import repo_record
from chalicelib.web.view import Web, path_url, render

# Refusals a form can fix by changing its input: shown on the form itself.  Permission
# and visibility errors are not among them; they stay the 403/404 pages the API's
# status codes give.
FIXABLE = ((errors.InvalidInput, 422), (errors.BadInput, 400), (errors.AlreadyExists, 422),
           (errors.ConflictError, 409), (errors.NotAllowed, 405),
           (errors.ArchivedRepository, 423), (errors.QuotaExceeded, 413),
           (errors.TooLarge, 413))


def fixable_status(err: errors.ServiceError) -> int | None:
    return next((code for kind, code in FIXABLE if isinstance(err, kind)), None)


def posted(req: ApiRequest) -> dict[str, str]:
    """The form's fields, the last value of each (the CSRF field included)."""
    return {name: values[-1] for name, values in req.form().items()}


def checked(form: dict[str, str], name: str) -> bool:
    """An HTML checkbox: sent (as "on" or its value) when ticked, absent otherwise."""
    return form.get(name, "").lower() not in ("", "off", "false", "0")


def posted_id(req: ApiRequest, missing: str) -> int:
    """The posted ``id`` field (of a delete button) as a number; the 404 page with
    ``missing`` when it is not one, as the API answers an id that names nothing."""
    raw = posted(req).get("id", "")
    if not raw.isdigit():
        raise errors.NotFoundError(missing)
    return int(raw)


def issue_number(req: ApiRequest, kind: str = "issue") -> int:
    """The ``{index}`` of an issue or pull request address; the 404 page if not a number."""
    raw = req.params["index"]
    if not raw.isdigit():
        raise errors.NotFoundError(f"{kind} does not exist [index: {raw}]")
    return int(raw)


def issue_path(view, item) -> str:
    """The page of an issue or pull request (``item``: its stored record)."""
    kind = "pulls" if item.is_pull else "issues"
    return path_url(view.owner.login, view.repo.name, kind, str(int(item.number)))


def repo_values(req: ApiRequest, view, tab: str) -> dict:
    """The values ``macros.repo_header`` reads."""
    return {"repo": repo_record(req, view), "view": view, "tab": tab,
            "base": path_url(view.owner.login, view.repo.name)}


# The services name the field they refuse as the API's binding errors do ("[Title]:
# cannot be empty"); the form shows that message beside the field of that name.
_FIELD = re.compile(r"^\[(\w+)\]")


def field_of(message: str, fields: dict[str, str]) -> str | None:
    """The form field a service message names: ``fields`` maps the API's field names
    (lowercase) to the form's, as a form may call ``body`` ``content``."""
    found = _FIELD.match(message)
    return fields.get(found.group(1).lower()) if found else None


def show_form(web: Web, template: str, *, error: errors.ServiceError | None = None,
              status: int = 200, fields: dict[str, str] | None = None,
              **values) -> ApiResponse:
    """The form page; with ``error`` its message and the status the API would give.

    A message that names one of ``fields`` goes beside that field (``field_errors``,
    read by ``macros.field_error``); any other is the form's ``error`` above it."""
    if error is not None:
        status = fixable_status(error) or 400
        message = getattr(error, "message", "") or str(error) or "Not allowed."
        field = field_of(message, fields or {})
        if field:
            values["field_errors"] = {field: message}
        else:
            values["error"] = message
    return render(web, template, status=status, form_csrf=web.csrf, **values)


def site_path(html_url: str) -> str:
    """The path of a record's ``html_url`` (redirects stay on the host that was asked)."""
    from chalicelib.settings import get_settings

    root = get_settings().app_url
    return "/" + html_url[len(root):] if html_url.startswith(root) else html_url
