"""A repository's wiki in the browser, at Forgejo's URLs: ``/{owner}/{repo}/wiki`` (the
home page, or an empty state that offers writers the first page), a page with its
sidebar and footer pages rendered by the repository's markdown renderer (sanitized),
``?action=_pages`` (also ``/wiki/_pages``) the page list, ``/wiki/search?q=`` the
titles that match, ``?action=_new``, ``?action=_edit``, ``?action=_revision`` and the
delete form (``?action=_delete``, POST).

Every form calls the service the API calls (``wiki.create_wiki_page`` …), so who may
write, the names and the refusals are one set of rules; bad input shows the form again
with the message beside its field.
"""
from __future__ import annotations

import dataclasses

from chalicelib import errors, wiki
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import current_repo
from chalicelib.web import present
from chalicelib.web.actions_forms import fixable_status, posted, repo_values, show_form
from chalicelib.web.view import Web, page, path_url, redirect, render

FORM = "wiki/form.html"
# The service's messages that belong beside a field of the form.
FIELD_WORDS = (("emptyTitle", "title"), ("reserved", "title"), ("already exists", "title"))


def _base(view) -> str:
    return path_url(view.owner.login, view.repo.name)


def _wiki_url(view, name=None) -> str:
    return _base(view) + "/wiki" + (f"/{name.web}" if name is not None else "")


def _values(req: ApiRequest, view, **values) -> dict:
    return {**repo_values(req, view, "wiki"), "wiki_base": _wiki_url(view), **values}


def _markdown(req: ApiRequest, view, texts: list[str]) -> list[str]:
    """The texts rendered as the wiki renders pages: links to pages, not files."""
    from chalicelib import markup

    if not any(texts):
        return ["" for _ in texts]
    ctx = dataclasses.replace(present.markdown_context(req, view, mode="gfm"), wiki=True)
    return markup.render_many(texts, ctx)


def _text(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", "replace")


def _show_page(req: ApiRequest, web: Web, view, name) -> ApiResponse:
    try:
        shown = wiki.get_wiki_page(view, name)
    except errors.NotFoundError:
        if name.web == wiki.WIKI_HOME and not wiki.wiki_page_names(view):
            return render(web, "wiki/empty.html", title="Wiki", **_values(req, view))
        raise
    body, sidebar, footer = _markdown(req, view, [_text(shown.content), _text(shown.sidebar),
                                                  _text(shown.footer)])
    return render(web, "wiki/page.html", title=f"{name.title} - Wiki", name=name, body=body,
                  sidebar=sidebar, footer=footer, commit=wiki.wiki_commit_record(shown.last_commit),
                  commit_count=shown.commit_count, page_url=_wiki_url(view, name),
                  **_values(req, view))


def _pages(req: ApiRequest, web: Web, view) -> ApiResponse:
    names = sorted(wiki.wiki_page_names(view), key=lambda n: n.title.lower())
    return render(web, "wiki/pages.html", title="Wiki pages", names=names,
                  **_values(req, view))


def _form(req: ApiRequest, web: Web, view, *, name=None, values=None,
          error: errors.ServiceError | None = None) -> ApiResponse:
    wiki.writable_wiki(view, web.user)
    field = None
    if error is not None:
        message = getattr(error, "message", "") or str(error)
        field = next((f for words, f in FIELD_WORDS if words in message), None)
    action = (_wiki_url(view, name) + "?action=_edit") if name else (_wiki_url(view) + "?action=_new")
    extra = {"field_errors": {field: error.message}} if field else {}
    return show_form(web, FORM, error=None if field else error,
                     status=(fixable_status(error) or 400) if error else 200,
                     title="Edit page" if name else "New page", editing=name, action=action,
                     values=values or {"title": "", "content": "", "message": ""},
                     **extra, **_values(req, view))


@page("GET", "/{owner}/{repo}/wiki", "webWiki", in_repo=True)
def home(req: ApiRequest, web: Web) -> ApiResponse:
    view = wiki.readable_wiki(current_repo(req))
    action = req.arg("action") or ""
    if action == "_pages":
        return _pages(req, web, view)
    if action == "_new":
        return _form(req, web, view)
    return _show_page(req, web, view, wiki.page_from_request(""))


@page("POST", "/{owner}/{repo}/wiki", "webWikiNew", in_repo=True, signed_in=True)
def create(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    form = posted(req)
    values = {k: form.get(k, "") for k in ("title", "content", "message")}
    try:
        name = wiki.create_wiki_page(view, web.user, values["title"],
                                     _normalized(values["content"]), values["message"])
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _form(req, web, view, values=values, error=err)
    return redirect(_wiki_url(view, name))


@page("GET", "/{owner}/{repo}/wiki/_pages", "webWikiPages", in_repo=True)
def pages_list(req: ApiRequest, web: Web) -> ApiResponse:
    return _pages(req, web, wiki.readable_wiki(current_repo(req)))


@page("GET", "/{owner}/{repo}/wiki/search", "webWikiSearch", in_repo=True)
def search(req: ApiRequest, web: Web) -> ApiResponse:
    view = wiki.readable_wiki(current_repo(req))
    keyword = (req.arg("q") or "").strip()
    found = wiki.search_wiki_titles(view, keyword) if keyword else []
    return render(web, "wiki/search.html", title="Search the wiki", keyword=keyword,
                  names=found, **_values(req, view))


@page("GET", "/{owner}/{repo}/wiki/{page:path}", "webWikiPage", in_repo=True)
def show(req: ApiRequest, web: Web) -> ApiResponse:
    view = wiki.readable_wiki(current_repo(req))
    name = wiki.page_from_request(req.params["page"])
    action = req.arg("action") or ""
    if action == "_edit":
        shown = wiki.get_wiki_page(view, name)
        return _form(req, web, view, name=name, values={
            "title": name.title, "content": _text(shown.content), "message": ""})
    if action == "_revision":
        commits, count = wiki.wiki_revisions(view, name, _number(req.arg("page")))
        return render(web, "wiki/revisions.html", title=f"{name.title} - Revisions",
                      name=name, commits=[wiki.wiki_commit_record(c) for c in commits],
                      count=count, page_url=_wiki_url(view, name), **_values(req, view))
    return _show_page(req, web, view, name)


@page("POST", "/{owner}/{repo}/wiki/{page:path}", "webWikiEdit", in_repo=True, signed_in=True)
def edit(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    name = wiki.page_from_request(req.params["page"])
    if (req.arg("action") or "") == "_delete":
        wiki.delete_wiki_page(view, web.user, name)
        return redirect(_wiki_url(view) + "?action=_pages")
    form = posted(req)
    values = {k: form.get(k, "") for k in ("title", "content", "message")}
    try:
        renamed = wiki.edit_wiki_page(view, web.user, name, values["title"] or None,
                                      _normalized(values["content"]), values["message"])
    except errors.ServiceError as err:
        if fixable_status(err) is None:
            raise
        return _form(req, web, view, name=name, values=values, error=err)
    return redirect(_wiki_url(view, renamed))


def _normalized(content: str) -> bytes:
    """A text area's lines as git keeps them: LF (browsers send CR LF)."""
    return content.replace("\r\n", "\n").encode("utf-8")


def _number(raw: str | None) -> int:
    try:
        return max(int(raw or 1), 1)
    except ValueError:
        return 1

