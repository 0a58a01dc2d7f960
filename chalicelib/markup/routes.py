"""Markdown rendering: ``/markdown``, ``/markdown/raw``, ``/markup`` and the repository
routes ``/repos/{owner}/{repo}/markdown|markdown/raw|markup`` (not in Forgejo's swagger;
the repository supplies the links' context).  Behaviour: webhooks-markdown.md part B.

The renderer (``chalicelib.markup.render``: mistune + nh3) is imported inside the handlers.
"""
from __future__ import annotations

from chalicelib.http.errors import PlainTextError, ValidationFailed
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.markup.options import MarkdownOption, MarkupOption, markup_option
from chalicelib.repos import caller, repo_preload, repo_preload_more
from chalicelib.settings import get_settings

HTML = ("text/html",)
MISC = dict(tag="miscellaneous", scope="misc", signed_in=True, produces=HTML)
IN_REPO_MISC = dict(MISC, in_swagger=False, preload=repo_preload, preload_more=repo_preload_more)
# Commit SHAs looked up per render (each full SHA costs at most one object-store lookup).
MAX_SHA_LOOKUPS = 20


def _html(text: str) -> ApiResponse:
    return ApiResponse.text(text, content_type="text/html; charset=utf-8")


def _mentionable(req: ApiRequest):
    def resolve(names: set[str]) -> set[str]:
        from chalicelib.markup import context as render_context

        return render_context.public_logins(names)
    return resolve


def _commit_resolver(req: ApiRequest, owner: str, repo: str):
    def resolve(shas: set[str]) -> dict[str, str]:
        from chalicelib.markup import context as render_context

        full = sorted(s for s in shas if len(s) == 40)[:MAX_SHA_LOOKUPS]
        found = render_context.existing_commits(caller(req), owner, repo, full)
        return {sha: sha for sha in found}
    return resolve


def _context(req: ApiRequest, mode: str, context: str, wiki: bool, branch_path: str = "",
             repo_path: tuple[str, str] | None = None):
    from chalicelib.markup import render as markup

    app = get_settings().app_url
    if repo_path is not None:
        context = f"{repo_path[0]}/{repo_path[1]}"
    owner, repo = markup.repo_of_context(context, app)
    raw = mode == "markdown"
    return markup.RenderContext(
        mode=mode, base=markup.base_url(context, app), app_url=app,
        wiki=wiki and not raw, branch_path="" if raw else branch_path,
        owner=owner, repo=repo, mentionable=_mentionable(req),
        commits=_commit_resolver(req, owner, repo) if owner else None)


def _render_markdown(req: ApiRequest, repo_path=None) -> ApiResponse:
    from chalicelib.markup import render as markup

    option = markup_option(MarkdownOption, req.json())
    mode = option.Mode if option.Mode in ("comment", "gfm") else "markdown"
    text = option.Text or ""
    if not text:
        return _html("")
    ctx = _context(req, mode, option.Context or "", bool(option.Wiki), repo_path=repo_path)
    return _html(markup.render(text, ctx))


def _render_raw(req: ApiRequest, repo_path=None) -> ApiResponse:
    from chalicelib.markup import render as markup

    try:
        text = req.body.decode("utf-8")
    except UnicodeDecodeError:
        raise ValidationFailed("[Body]: the body must be UTF-8 text") from None
    if not text:
        return _html("")
    ctx = _context(req, "markdown", "", False, repo_path=repo_path)
    return _html(markup.render(text, ctx))


def _render_markup(req: ApiRequest, repo_path=None) -> ApiResponse:
    from chalicelib.markup import render as markup

    option = markup_option(MarkupOption, req.json())
    mode = option.Mode or "markdown"
    if mode not in markup.MODES:
        raise PlainTextError(422, f"Unknown mode: {mode}")
    if mode == "file":
        path = option.FilePath or ""
        name = path.rsplit("/", 1)[-1]
        if "." not in name:
            raise PlainTextError(422, f"path '{path}' does not have an extension")
        ext = "." + name.rsplit(".", 1)[-1].lower()
        if ext not in markup.MARKDOWN_EXTENSIONS:
            raise PlainTextError(422, f"Unsupported render extension: {ext}")
    text = option.Text or ""
    if not text:
        return _html("")
    ctx = _context(req, mode, option.Context or "", bool(option.Wiki), option.BranchPath or "",
                   repo_path=repo_path)
    return _html(markup.render(text, ctx))


@route("POST", "/markdown", "renderMarkdown", summary="Render a markdown document as HTML",
       body="MarkdownOption", responses={422: "validationError"}, **MISC)
def render_markdown(req: ApiRequest) -> ApiResponse:
    return _render_markdown(req)


@route("POST", "/markdown/raw", "renderMarkdownRaw", summary="Render raw markdown as HTML",
       consumes=("text/plain",), responses={422: "validationError"}, **MISC)
def render_markdown_raw(req: ApiRequest) -> ApiResponse:
    return _render_raw(req)


@route("POST", "/markup", "renderMarkup", summary="Render a markup document as HTML",
       body="MarkupOption", responses={422: "validationError"}, **MISC)
def render_markup(req: ApiRequest) -> ApiResponse:
    return _render_markup(req)


def _repo_path(req: ApiRequest) -> tuple[str, str]:
    from chalicelib import repos

    view = repos.find_repo(caller(req), req.params["owner"], req.params["repo"])
    return view.owner.login, view.repo.name


@route("POST", "/repos/{owner}/{repo}/markdown", "repoRenderMarkdown",
       summary="Render a markdown document in a repository's context", **IN_REPO_MISC)
def repo_render_markdown(req: ApiRequest) -> ApiResponse:
    return _render_markdown(req, _repo_path(req))


@route("POST", "/repos/{owner}/{repo}/markdown/raw", "repoRenderMarkdownRaw",
       summary="Render raw markdown in a repository's context", consumes=("text/plain",),
       **IN_REPO_MISC)
def repo_render_markdown_raw(req: ApiRequest) -> ApiResponse:
    return _render_raw(req, _repo_path(req))


@route("POST", "/repos/{owner}/{repo}/markup", "repoRenderMarkup",
       summary="Render a markup document in a repository's context", **IN_REPO_MISC)
def repo_render_markup(req: ApiRequest) -> ApiResponse:
    return _render_markup(req, _repo_path(req))
