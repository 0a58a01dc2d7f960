"""A new repository from a template (Forgejo's ``repository`` tag): 201 with the new
repository, its owner's view.  The rules are ``generation``'s."""
from __future__ import annotations

from chalicelib import repos
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repo_admin import generation
from chalicelib.repo_admin.lifecycle_options import GenerateRepoOption
from chalicelib.repos import REPO, caller, find_repo


def _preload(req: ApiRequest) -> list:
    return repos.repo_preload_keys(req.params["template_owner"], req.params["template_repo"])


@route("POST", "/repos/{template_owner}/{template_repo}/generate", "generateRepo",
       summary="Create a repository using a template", signed_in=True,
       body="GenerateRepoOption", preload=_preload,
       responses={201: "Repository", 403: "forbidden", 404: "notFound", 409: "conflict",
                  413: "quotaExceeded", 422: "validationError"}, **REPO)
def generate_repo(req: ApiRequest) -> ApiResponse:
    who = caller(req)
    template = find_repo(who, req.params["template_owner"], req.params["template_repo"])
    view = generation.generate(who, template, req.option(GenerateRepoOption))
    return ApiResponse.json(repos.repository_record(view, req.actor), status=201)
