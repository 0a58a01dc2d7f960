"""What the user settings pages share (``settings_user``, ``settings_account``,
``settings_user_keys``): the form limits the API's edge would apply, and a refusal
shown beside the field it is about.

The API checks a body's text limits (``Option.max_lengths``, ``single_line``) at the
edge, before its service runs; a form's fields never pass that edge, so the pages
apply the same declaration here.  This module registers no routes.
"""
from __future__ import annotations

from chalicelib import errors
from chalicelib.http import input_rules
from chalicelib.http.message import ApiResponse
from chalicelib.web.actions_forms import field_of, fixable_status, show_form
from chalicelib.web.view import Web


def check_limits(values: dict, definition: str) -> None:
    """The limits of the API's body ``definition`` (its option's class name) on the
    form's texts: 422 ``[Field]: MaxSize`` and the like, before anything is written."""
    input_rules.check_body(values, definition)


def refused(web: Web, template: str, err: errors.ServiceError, *, default: str | None,
            fields: dict[str, str] | None = None, **values) -> ApiResponse:
    """The page again with the service's message beside a field: the one the message
    names (``fields``: the API's lower-case field name -> the form's), else ``default``
    (None: above the form).  Refusals a form cannot fix (permission, a missing record)
    stay the error pages."""
    status = fixable_status(err)
    if status is None:
        raise err
    message = getattr(err, "message", "") or str(err)
    field = field_of(message, fields or {}) or default
    if field is None:
        return show_form(web, template, error=err, **values)
    return show_form(web, template, status=status, field_errors={field: message}, **values)
