"""A repository's git tags (Forgejo's ``repository`` tag): list, get, create, delete
(services/tags).  Tag names may hold slashes: the routes of one tag take it as a
greedy parameter.  Reads need read access, writes write access.  Token scope:
``repository``.

Each route reads the repository with the token (first batch) and the caller's access
items (second batch, with the tag's release claim on the routes of one tag); a page of
tags adds two batched reads (the page's claims, then their releases) for the archive
download counts.
"""
from __future__ import annotations

from chalicelib.contents import tags
from chalicelib.contents.options import CreateTagOption
from chalicelib.contents.tag_records import tag_record
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.repos import IN_REPO, PAGE, caller, current_repo


def _preload_more(req: ApiRequest, user_id: int | None) -> list:
    return tags.preload_more_keys(req.params["owner"], req.params["repo"], user_id,
                                  tag=req.params.get("tag"))


ONE_TAG = dict(IN_REPO, preload_more=_preload_more)
WRITE = dict(IN_REPO, signed_in=True)


@route("GET", "/repos/{owner}/{repo}/tags", "repoListTags",
       summary="List a repository's tags", query=PAGE,
       responses={200: "TagList", 404: "notFound"}, **IN_REPO)
def list_tags(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    page = paging.page_of(req)
    found = tags.list_tags(view, page.offset, page.limit)
    resp = ApiResponse.json([tag_record(t, view) for t in found.tags])
    return paging.set_headers(resp, req, page, found.total)


@route("GET", "/repos/{owner}/{repo}/tags/{tag:path}", "repoGetTag",
       summary="Get the tag of a repository by tag name",
       responses={200: "Tag", 404: "notFound"}, **ONE_TAG)
def get_tag(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    return ApiResponse.json(tag_record(tags.get_tag(view, req.params["tag"]), view))


@route("POST", "/repos/{owner}/{repo}/tags", "repoCreateTag",
       summary="Create a new git tag in a repository", body="CreateTagOption",
       responses={201: "Tag", 403: "forbidden", 404: "notFound", 405: "empty",
                  409: "conflict", 413: "quotaExceeded", 422: "validationError",
                  423: "error"}, **WRITE)
def create_tag(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    created = tags.create_tag(caller(req), view, req.option(CreateTagOption))
    return ApiResponse.json(tag_record(created, view), status=201)


@route("DELETE", "/repos/{owner}/{repo}/tags/{tag:path}", "repoDeleteTag",
       summary="Delete a repository's tag by name",
       responses={204: "empty", 403: "forbidden", 404: "notFound", 405: "empty",
                  409: "conflict", 422: "validationError", 423: "error"},
       **dict(ONE_TAG, signed_in=True))
def delete_tag(req: ApiRequest) -> ApiResponse:
    tags.delete_tag(caller(req), current_repo(req), req.params["tag"])
    return ApiResponse.empty()
