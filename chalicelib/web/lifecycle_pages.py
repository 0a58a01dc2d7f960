"""A repository's transfer to another owner in the browser: the settings page's danger
zone starts it (``/settings/transfer``: the new owner's name and the repository's name
typed to confirm, as Forgejo asks) or takes a pending one back
(``/settings/transfer/cancel``), and the recipient answers it from the banner on the
repository's page (Forgejo's ``/action/accept_transfer`` and ``/action/reject_transfer``).

Each form calls the service the API's routes call (``repo_admin.start_transfer`` as
``repoTransfer`` does, ``answer_transfer`` as ``acceptRepoTransfer`` and
``rejectRepoTransfer`` do) with the API's TransferRepoOption, so the rules are the
API's: owners start and cancel (an admin who is not an owner gets the API's 403), an
organization the doer may create repositories in, or the doer themself, takes it at
once, anyone else is asked.  A refusal the doer can fix (an owner that does not exist
or that they may not see, a name the new owner already has, a transfer already pending,
a wrong confirmation) shows the settings page again with the message beside the field
and the typed values kept; nothing was written.

Forgejo's "Cancel transfer" (``CancelRepositoryTransfer``) is the owner's: the API has
no route for it, the service's ``withdraw_transfer`` holds its rule.
"""
from __future__ import annotations

from chalicelib import errors, repo_admin
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repo_admin import TransferRepoOption
from chalicelib.repos import Access, caller, current_repo
from chalicelib.web.actions_forms import fixable_status, posted
from chalicelib.web.settings_common import admin_view, edge_option, settings_url
from chalicelib.web.settings_repo import options_page
from chalicelib.web.view import Web, page, path_url, redirect

OWNER_FIELD, CONFIRM_FIELD = "transfer_new_owner", "transfer_repo_name"


def _refusal(err: errors.ServiceError, view) -> int | None:
    """The status to re-show the form with, or None when ``err`` is not the form's to
    show: an owner that cannot be found (404) and a blocked doer (403) are answers about
    the new owner, which the doer fixes by naming another; anyone who is not an owner
    gets the API's 403 page."""
    if isinstance(err, errors.NotFoundError):
        return 422
    if isinstance(err, errors.PermissionDenied):
        return 403 if view.access >= Access.OWNER else None
    return fixable_status(err)


@page("POST", "/{owner}/{repo}/settings/transfer", "webRepoTransfer", in_repo=True)
def transfer(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    form = posted(req)
    typed = {"new_owner": form.get("new_owner_name", "").strip(),
             "repo_name": form.get("repo_name", "").strip()}
    refused: dict = {"typed": typed}
    if typed["repo_name"] != view.repo.name:
        refused.update(status=422, field_errors={CONFIRM_FIELD: (
            "The repository name you typed does not match: type "
            f"{view.repo.name} to transfer it.")})
        return options_page(req, web, view, transfer=refused)
    try:
        option = edge_option(TransferRepoOption, {"new_owner": typed["new_owner"]})
        moved, pending = repo_admin.start_transfer(caller(req), view, option)
    except errors.ServiceError as err:
        status = _refusal(err, view)
        if status is None:
            raise
        message = getattr(err, "message", "") or str(err)
        refused.update(status=status, field_errors={OWNER_FIELD: message})
        return options_page(req, web, view, transfer=refused)
    if pending:
        return redirect(settings_url(view) + "?transfer=started#danger-zone")
    # Moved at once: the repository's page under its new owner.
    return redirect(path_url(moved.owner.login, moved.repo.name))


@page("POST", "/{owner}/{repo}/settings/transfer/cancel", "webRepoTransferCancel", in_repo=True)
def cancel_transfer(req: ApiRequest, web: Web) -> ApiResponse:
    view = admin_view(req)
    repo_admin.withdraw_transfer(caller(req), view)
    return redirect(settings_url(view) + "?transfer=cancelled#danger-zone")


def _answer(req: ApiRequest, *, accept: bool) -> ApiResponse:
    """The recipient's answer; anyone else gets the API's 403 page (the repository's
    page showed them no buttons), a repository they cannot see its 404 page."""
    view = current_repo(req)
    if req.actor is None:
        raise errors.NotFoundError("page does not exist")
    answered = repo_admin.answer_transfer(caller(req), view, accept=accept)
    return redirect(path_url(answered.owner.login, answered.repo.name))


@page("POST", "/{owner}/{repo}/action/accept_transfer", "webRepoTransferAccept", in_repo=True)
def accept_transfer(req: ApiRequest, web: Web) -> ApiResponse:
    return _answer(req, accept=True)


@page("POST", "/{owner}/{repo}/action/reject_transfer", "webRepoTransferReject", in_repo=True)
def reject_transfer(req: ApiRequest, web: Web) -> ApiResponse:
    return _answer(req, accept=False)
