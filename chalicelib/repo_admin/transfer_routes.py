"""A repository's transfer to another owner (Forgejo's ``repository`` tag): start it,
and the recipient's accept or reject.  The rules are ``transfers``'; the answers are
Forgejo's: 202 with the repository where it is now, 201 while the recipient has yet to
answer (the record's ``repo_transfer`` says to whom), 200 after a rejection."""
from __future__ import annotations

from chalicelib import repos
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repo_admin import transfers
from chalicelib.repo_admin.lifecycle_options import TransferRepoOption
from chalicelib.repos import (
    IN_REPO,
    Access,
    RepoView,
    caller,
    current_repo,
    repo_record,
)


@route("POST", "/repos/{owner}/{repo}/transfer", "repoTransfer",
       summary="Transfer a repo ownership", signed_in=True, body="TransferRepoOption",
       responses={201: "Repository", 202: "Repository", 403: "forbidden", 404: "notFound",
                  409: "conflict", 413: "quotaExceeded", 422: "validationError"}, **IN_REPO)
def repo_transfer(req: ApiRequest) -> ApiResponse:
    view, pending = transfers.start(caller(req), current_repo(req), req.option(TransferRepoOption))
    # As Forgejo: the record with an admin's permissions, whoever asked.
    shown = RepoView(view.repo, view.owner, Access.ADMIN)
    return ApiResponse.json(repos.repository_record(shown, req.actor),
                            status=201 if pending else 202)


@route("POST", "/repos/{owner}/{repo}/transfer/accept", "acceptRepoTransfer",
       summary="Accept a repo transfer", signed_in=True,
       responses={202: "Repository", 403: "forbidden", 404: "notFound", 409: "conflict",
                  413: "quotaExceeded", 422: "validationError"}, **IN_REPO)
def accept_repo_transfer(req: ApiRequest) -> ApiResponse:
    who = caller(req)
    view = transfers.answer(who, current_repo(req), accept=True)
    return ApiResponse.json(repo_record(req, repos.view_of(view.repo, who, view.owner)),
                            status=202)


@route("POST", "/repos/{owner}/{repo}/transfer/reject", "rejectRepoTransfer",
       summary="Reject a repo transfer", signed_in=True,
       responses={200: "Repository", 403: "forbidden", 404: "notFound", 409: "conflict"},
       **IN_REPO)
def reject_repo_transfer(req: ApiRequest) -> ApiResponse:
    view = transfers.answer(caller(req), current_repo(req), accept=False)
    return ApiResponse.json(repo_record(req, view))
