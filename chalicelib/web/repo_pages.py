"""A repository's history and refs: commits of a branch, one commit with its diff,
branches, tags, releases and one release (``/releases/tag/{tag}``, a Release's
``html_url``)."""
from __future__ import annotations

from chalicelib import contents, releases, repos
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.releases import release_ctx_of as release_ctx
from chalicelib.releases import render_release as release_record
from chalicelib.repos import current_repo
from chalicelib.web import present
from chalicelib.web.pages import pager, repo_values, tag_records
from chalicelib.web.view import Web, page, render


def _addresses(view) -> tuple[str, str]:
    return (repos.repo_html_url(view),
            repos.repo_api_url(view.owner.login, view.repo.name))


def _commit_list(req: ApiRequest, web: Web, ref: str, kind: str) -> ApiResponse:
    view = current_repo(req)
    page_ = paging.page_of(req)
    found = contents.list_commits(view.repo, contents.CommitQuery(sha=ref),
                                      page_.offset, page_.limit)
    html, api = _addresses(view)
    shown = [contents.commit_record(c, html, api) for c in found.commits]
    return render(web, "commits.html", title=f"Commits · {ref}", commits=shown, ref=ref,
                  ref_kind=kind, pager=pager(req, found.total), **repo_values(req, view, "code"))


@page("GET", "/{owner}/{repo}/commits/branch/{branch:path}", "webRepoCommits", in_repo=True)
def commits(req: ApiRequest, web: Web) -> ApiResponse:
    return _commit_list(req, web, req.params["branch"], "branch")


@page("GET", "/{owner}/{repo}/commits/tag/{tag:path}", "webRepoCommitsOfTag", in_repo=True)
def commits_of_tag(req: ApiRequest, web: Web) -> ApiResponse:
    return _commit_list(req, web, req.params["tag"], "tag")


@page("GET", "/{owner}/{repo}/commit/{sha}", "webRepoCommit", in_repo=True)
def commit(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    found, git = contents.get_commit(view.repo, req.params["sha"])
    stats, files = contents.stats_and_files(git, found)
    html, api = _addresses(view)
    record = contents.commit_record(found, html, api, stats=stats, files=files)
    sha = record["sha"]
    diff = contents.commit_diff_or_patch(view.repo, sha, "diff").decode("utf-8", "replace")
    title, _, rest = record["commit"]["message"].partition("\n")
    return render(web, "commit.html", title=title, commit=record, subject=title,
                  message_rest=rest.strip(), diff_html=present.diff_html(diff),
                  **repo_values(req, view, "code"))


@page("GET", "/{owner}/{repo}/branches", "webRepoBranches", in_repo=True)
def branch_list(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    found = contents.list_branches(view)
    paged = pager(req, len(found))
    default = view.repo.default_branch
    found.sort(key=lambda b: (b.name != default, b.name))
    shown = found[paged["offset"]:paged["offset"] + paged["limit"]]
    usernames = contents.branch_usernames_for(shown)
    return render(web, "branches.html", title="Branches", default_branch=default,
                  branches=[contents.branch_record(b, view, usernames=usernames) for b in shown],
                  pager=paged, **repo_values(req, view, "branches"))


@page("GET", "/{owner}/{repo}/tags", "webRepoTags", in_repo=True)
def tag_list(req: ApiRequest, web: Web) -> ApiResponse:
    view = current_repo(req)
    page_ = paging.page_of(req)
    shown, total = tag_records(view, page_.offset, page_.limit)
    return render(web, "tags.html", title="Tags", tags=shown, pager=pager(req, total),
                  **repo_values(req, view, "tags"))


def _release_page(req: ApiRequest, web: Web, shown: list, total: int, title: str,
                  ctx) -> ApiResponse:
    view = ctx.view
    notes = present.markdown(req, view, [r.note or "" for r in shown])
    items = [(release_record(req, ctx, r), note) for r, note in zip(shown, notes)]
    return render(web, "releases.html", title=title, releases=items, pager=pager(req, total),
                  **repo_values(req, view, "releases"))


@page("GET", "/{owner}/{repo}/releases", "webRepoReleases", in_repo=True)
def release_list(req: ApiRequest, web: Web) -> ApiResponse:
    ctx = release_ctx(req)
    page_ = paging.page_of(req)
    shown, total = releases.list_releases(ctx, keyword=(req.arg("q") or "").strip(),
                                          offset=page_.offset, limit=page_.limit)
    return _release_page(req, web, shown, total, "Releases", ctx)


@page("GET", "/{owner}/{repo}/releases/tag/{tag:path}", "webRepoRelease", in_repo=True)
def release_one(req: ApiRequest, web: Web) -> ApiResponse:
    ctx = release_ctx(req)
    found = releases.release_by_tag(ctx, req.params["tag"])
    return _release_page(req, web, [found], 1, found.title or found.tag_name, ctx)
