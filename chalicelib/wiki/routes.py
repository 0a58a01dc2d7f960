"""The wiki API (Forgejo's ``repository`` tag, routers/api/v1/repo/wiki.go): list pages,
read one, its revisions; create, edit (rename with ``title``) and delete pages.

The guards follow Forgejo's router: ``current_repo`` answers 404 to those who cannot
see the repository (and ``has_wiki`` false answers 404 too), writing needs a signed-in
writer with ``write:repository`` (403), an archived repository 423.  Bad input is 400
as Forgejo answers it: an empty or reserved title, a page that exists, content that is
not base64.
"""
from __future__ import annotations

from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.repos import IN_REPO, PAGE, current_repo, repo_html_url
from chalicelib.settings import get_settings
from chalicelib.wiki import names, records, service
from chalicelib.wiki.options import CreateWikiPageOptions

SIGNED_IN_REPO = dict(IN_REPO, signed_in=True)
WRITE_ANSWERS = {400: "error", 403: "forbidden", 404: "notFound", 413: "quotaExceeded",
                 423: "error"}


def _int(raw: str | None) -> int:
    try:
        return int(raw or 0)
    except ValueError:
        return 0


def _page_name(req: ApiRequest) -> names.PageName:
    return names.from_request(req.params["pageName"])


def _total(resp: ApiResponse, total: int) -> ApiResponse:
    resp.headers["X-Total-Count"] = str(total)
    resp.expose("X-Total-Count")
    return resp


def _text(value) -> str:
    return value if isinstance(value, str) else ""


@route("GET", "/repos/{owner}/{repo}/wiki/pages", "repoGetWikiPages",
       summary="Get all wiki pages", query=PAGE,
       responses={200: "WikiPageList", 404: "notFound"}, **IN_REPO)
def list_pages(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    # As Forgejo: page below 1 is the first, a limit below 2 the default.
    page = max(_int(req.arg("page")), 1)
    limit = _int(req.arg("limit"))
    if limit <= 1:
        limit = get_settings().api.DEFAULT_PAGING_NUM
    listing = service.list_pages(view, (page - 1) * limit, limit)
    base = repo_html_url(view)
    body = [records.metadata(name, commit, base) for name, commit in listing.pages]
    return _total(ApiResponse.json(body), listing.total)


@route("GET", "/repos/{owner}/{repo}/wiki/page/{pageName:path}", "repoGetWikiPage",
       summary="Get a wiki page", responses={200: "WikiPage", 404: "notFound"}, **IN_REPO)
def get_page(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    page = service.get_page(view, _page_name(req))
    return ApiResponse.json(records.wiki_page(page, repo_html_url(view)))


@route("GET", "/repos/{owner}/{repo}/wiki/revisions/{pageName:path}",
       "repoGetWikiPageRevisions", summary="Get revisions of a wiki page",
       query=(Param("page", "integer", "page number of results to return (1-based)"),),
       responses={200: "WikiCommitList", 404: "notFound"}, **IN_REPO)
def page_revisions(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    commits, count = service.revisions(view, _page_name(req), _int(req.arg("page")))
    return _total(ApiResponse.json(records.wiki_commit_list(commits, count)), count)


@route("POST", "/repos/{owner}/{repo}/wiki/new", "repoCreateWikiPage",
       summary="Create a wiki page", body="CreateWikiPageOptions",
       responses={201: "WikiPage", **WRITE_ANSWERS}, **SIGNED_IN_REPO)
def create_page(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    option = req.option(CreateWikiPageOptions)
    service.writable(view, req.actor)
    content = service.decode_content(_text(option.content_base64))
    name = service.create_page(view, req.actor, _text(option.title), content,
                               _text(option.message))
    page = service.get_page(view, name)
    return ApiResponse.json(records.wiki_page(page, repo_html_url(view)), status=201)


@route("PATCH", "/repos/{owner}/{repo}/wiki/page/{pageName:path}", "repoEditWikiPage",
       summary="Edit a wiki page", body="CreateWikiPageOptions",
       responses={200: "WikiPage", **WRITE_ANSWERS}, **SIGNED_IN_REPO)
def edit_page(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    option = req.option(CreateWikiPageOptions)
    service.writable(view, req.actor)
    content = service.decode_content(_text(option.content_base64))
    name = service.edit_page(view, req.actor, _page_name(req), _text(option.title) or None,
                             content, _text(option.message))
    page = service.get_page(view, name)
    return ApiResponse.json(records.wiki_page(page, repo_html_url(view)))


@route("DELETE", "/repos/{owner}/{repo}/wiki/page/{pageName:path}", "repoDeleteWikiPage",
       summary="Delete a wiki page",
       responses={204: "empty", 403: "forbidden", 404: "notFound", 423: "error"},
       **SIGNED_IN_REPO)
def delete_page(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    service.delete_page(view, req.actor, _page_name(req))
    return ApiResponse.empty()
