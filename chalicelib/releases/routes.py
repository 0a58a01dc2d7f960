"""Releases (Forgejo's ``repository`` tag, release routes): list, create, get, edit,
delete, latest, by tag.  The seed's paths are Forgejo's modern ones (no aliases needed).

Every route reads the repository with the token (first batch), then the caller's access
items, with the tag's claim for the by-tag routes (second batch); a release with its
attachments is one Query more, and so is a page of releases (every release of the
repository with theirs, sorted and paged in the function): ``repoGetRelease`` and a page
cost three calls.  Token scope: ``repository``.
"""
from __future__ import annotations

from chalicelib.errors import InvalidInput
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.releases import service as releases
from chalicelib.releases.options import CreateReleaseOption, EditReleaseOption
from chalicelib.releases.request import RELEASES, ctx_of, render
from chalicelib.repos import PAGE

SIGNED = dict(RELEASES, signed_in=True)


def _bool_arg(req: ApiRequest, name: str) -> bool | None:
    """Forgejo's ``FormOptionalBool``: absent or empty is "no filter"."""
    raw = (req.arg(name) or "").strip().lower()
    if not raw:
        return None
    if raw in ("true", "1", "t"):
        return True
    if raw in ("false", "0", "f"):
        return False
    raise InvalidInput(f"[{name}]: expected true or false")


@route("GET", "/repos/{owner}/{repo}/releases", "repoListReleases",
       summary="List a repo's releases",
       query=(Param("draft", "boolean", "filter (exclude / include) drafts, if you dont have "
                                        "repo write access none will show"),
              Param("pre-release", "boolean", "filter (exclude / include) pre-releases"),
              Param("q", "string", "Search string"), *PAGE),
       responses={200: "ReleaseList", 404: "notFound", 422: "validationError"}, **RELEASES)
def list_releases(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    page = paging.page_of(req)
    shown, total = releases.list_releases(
        ctx, draft=_bool_arg(req, "draft"), prerelease=_bool_arg(req, "pre-release"),
        keyword=(req.arg("q") or "").strip(), offset=page.offset, limit=page.limit)
    resp = ApiResponse.json([render(req, ctx, r) for r in shown])
    return paging.set_headers(resp, req, page, total)


@route("POST", "/repos/{owner}/{repo}/releases", "repoCreateRelease",
       summary="Create a release", body="CreateReleaseOption",
       responses={201: "Release", 403: "forbidden", 404: "notFound", 409: "error",
                  422: "validationError", 423: "error"}, **SIGNED)
def create_release(req: ApiRequest) -> ApiResponse:
    option = req.option(CreateReleaseOption)
    ctx = ctx_of(req)
    return ApiResponse.json(render(req, ctx, releases.create_release(ctx, option)), status=201)


@route("GET", "/repos/{owner}/{repo}/releases/latest", "repoGetLatestRelease",
       summary="Gets the most recent non-prerelease, non-draft release of a repository, "
               "sorted by created_at",
       responses={200: "Release", 404: "notFound"}, **RELEASES)
def latest_release(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    return ApiResponse.json(render(req, ctx, releases.latest(ctx)))


@route("GET", "/repos/{owner}/{repo}/releases/tags/{tag}", "repoGetReleaseByTag",
       summary="Get a release by tag name", responses={200: "Release", 404: "notFound"},
       **RELEASES)
def release_by_tag(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    return ApiResponse.json(render(req, ctx, releases.by_tag(ctx, req.params["tag"])))


@route("DELETE", "/repos/{owner}/{repo}/releases/tags/{tag}", "repoDeleteReleaseByTag",
       summary="Delete a release by tag name",
       responses={204: "empty", 403: "forbidden", 404: "notFound", 409: "error",
                  422: "validationError", 423: "error"}, **SIGNED)
def delete_by_tag(req: ApiRequest) -> ApiResponse:
    releases.delete_by_tag(ctx_of(req), req.params["tag"])
    return ApiResponse.empty()


@route("GET", "/repos/{owner}/{repo}/releases/{id}", "repoGetRelease",
       summary="Get a release", responses={200: "Release", 404: "notFound"}, **RELEASES)
def get_release(req: ApiRequest) -> ApiResponse:
    release_id = req.int_param("id")
    ctx = ctx_of(req)
    return ApiResponse.json(render(req, ctx, releases.get_release(ctx, release_id)))


@route("PATCH", "/repos/{owner}/{repo}/releases/{id}", "repoEditRelease",
       summary="Update a release", body="EditReleaseOption",
       responses={200: "Release", 403: "forbidden", 404: "notFound", 409: "error",
                  422: "validationError", 423: "error"}, **SIGNED)
def edit_release(req: ApiRequest) -> ApiResponse:
    option = req.option(EditReleaseOption, required=False)
    release_id = req.int_param("id")
    ctx = ctx_of(req)
    return ApiResponse.json(render(req, ctx, releases.edit_release(ctx, release_id, option)))


@route("DELETE", "/repos/{owner}/{repo}/releases/{id}", "repoDeleteRelease",
       summary="Delete a release",
       responses={204: "empty", 403: "forbidden", 404: "notFound", 409: "error",
                  422: "validationError", 423: "error"}, **SIGNED)
def delete_release(req: ApiRequest) -> ApiResponse:
    release_id = req.int_param("id")
    releases.delete_release(ctx_of(req), release_id)
    return ApiResponse.empty()
