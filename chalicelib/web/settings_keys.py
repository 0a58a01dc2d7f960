"""A repository's deploy keys in the browser, for its admins:
``/{owner}/{repo}/settings/keys`` lists them, adds one (title, public key, write access)
and deletes one (``/settings/keys/delete``).

Each calls the service the API's route calls (repoListKeys, repoCreateKey,
repoDeleteKey: ``repos.deploy_keys``, ``repos.add_deploy_key``,
``repos.delete_deploy_key``) with CreateKeyOption held to the API's edge checks, so a
key that does not parse, one in use elsewhere and a title taken are refused by the
API's rules; the refusal is shown beside the field it is about and nothing is written.
"""
from __future__ import annotations

from chalicelib import errors, repos
from chalicelib.accounts import CreateKeyOption
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.web.actions_forms import checked, fixable_status, posted, posted_id
from chalicelib.web.settings_common import admin_view, edge_option, settings_url, show, shown_error
from chalicelib.web.view import Web, page, redirect

TEMPLATE = "settings/keys.html"
# Words of the service's messages -> the form field they are about: anything about
# the key's text goes beside the key, a title's refusals beside the title.
KEY_FIELDS = {"title": "title", "same name": "title", "key": "key"}


def _page(req: ApiRequest, web: Web, view, *, error: errors.ServiceError | None = None,
          typed: dict | None = None) -> ApiResponse:
    status, field_errors, message = shown_error(error, KEY_FIELDS)
    return show(req, web, view, TEMPLATE, "keys", status=status, title="Deploy keys",
                keys=[repos.deploy_key_record(k, view) for k in repos.deploy_keys(view)],
                typed=typed or {"title": "", "key": "", "write": False},
                field_errors=field_errors, error=message, action=settings_url(view, "keys"))


@page("GET", "/{owner}/{repo}/settings/keys", "webRepoSettingsKeys", in_repo=True)
def keys(req: ApiRequest, web: Web) -> ApiResponse:
    return _page(req, web, admin_view(req))


@page("POST", "/{owner}/{repo}/settings/keys", "webRepoSettingsKeyAdd", in_repo=True)
def add(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    form = posted(req)
    typed = {"title": form.get("title", ""), "key": form.get("key", "").strip(),
             "write": checked(form, "write")}
    try:
        option = edge_option(CreateKeyOption, {"title": typed["title"], "key": typed["key"],
                                               "read_only": not typed["write"]})
        repos.add_deploy_key(req.actor, view, option)
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _page(req, web, view, error=err, typed=typed)
    return redirect(settings_url(view, "keys"))


@page("POST", "/{owner}/{repo}/settings/keys/delete", "webRepoSettingsKeyDelete",
      in_repo=True)
def delete(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    repos.delete_deploy_key(req.actor, view, posted_id(req, "deploy key does not exist"))
    return redirect(settings_url(view, "keys"))
