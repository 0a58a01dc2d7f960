"""A repository's history and refs: commits of a branch (and of one path of it), one
commit with its diff and statuses, branches, tags, releases and one release
(``/releases/tag/{tag}``, a Release's ``html_url``)."""
from __future__ import annotations

from chalicelib import contents, releases, repos, statuses
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.releases import release_ctx_of as release_ctx
from chalicelib.releases import render_release as release_record
from chalicelib.repos import current_repo
from chalicelib.store import unit_of_work
from chalicelib.web import code_view, diff_table, present
from chalicelib.web.actions_forms import repo_values
from chalicelib.web.pages import tag_records
from chalicelib.web.view import pager
from chalicelib.web.view import Web, page, render


def _addresses(view) -> tuple[str, str]:
    return (repos.repo_html_url(view),
            repos.repo_api_url(view.owner.login, view.repo.name))


def _commit_list(req: ApiRequest, web: Web, rest: str, kind: str) -> ApiResponse:
    """A ref's commits, or with a path after the ref those touching it (the file
    history: ``/commits/branch/{branch}/{path}``).  A branch name may hold slashes:
    the shortest prefix of ``rest`` naming a ref of ``kind`` is the ref, as ``/src``
    resolves it."""
    view = current_repo(req)
    page_ = paging.page_of(req)
    git = contents.open_git(view.repo)
    ref, path = _ref_and_path(git, kind, rest)
    found = contents.list_commits(view.repo, contents.CommitQuery(sha=ref, path=path),
                                  page_.offset, page_.limit, git=git)
    html, api = _addresses(view)
    shown = [contents.commit_record(c, html, api) for c in found.commits]
    states = _combined_states(view, [c["sha"] for c in shown])
    title = f"History of {path} · {ref}" if path else f"Commits · {ref}"
    return render(web, "commits.html", title=title, commits=shown, ref=ref, ref_kind=kind,
                  path=path, states=states, stamp=code_view.stamp,
                  pager=pager(req, found.total), **repo_values(req, view, "code"))


def _ref_and_path(git, kind: str, rest: str) -> tuple[str, str]:
    parts = [p for p in rest.split("/") if p]
    prefix = "refs/heads/" if kind == "branch" else "refs/tags/"
    names = {n.decode("utf-8", "replace") for n in git.refs.allkeys()}
    for n in range(1, len(parts) + 1):
        if prefix + "/".join(parts[:n]) in names:
            return "/".join(parts[:n]), "/".join(parts[n:])
    return rest.strip("/"), ""          # no such ref: the list answers its 404


def _combined_states(view, shas: list[str]) -> dict[str, str]:
    """Each commit's combined status: every summary in one batched read."""
    if not shas:
        return {}
    repo_id = int(view.repo.id)
    unit_of_work.prefetch([statuses.status_summary_key(repo_id, sha) for sha in shas])
    return {sha: statuses.combined_state(repo_id, sha) for sha in shas}


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
    diff = contents.commit_diff_or_patch(view.repo, sha, "diff", git=git)
    title, _, rest = record["commit"]["message"].partition("\n")
    summary = statuses.status_summary(int(view.repo.id), sha)
    checks = [{"status": s.state, "context": s.context, "description": s.description,
               "target_url": s.target_url}
              for s in sorted(summary.latest.values(), key=lambda s: s.index)]
    return render(web, "commit.html", title=title, commit=record, subject=title,
                  message_rest=rest.strip(), stamp=code_view.stamp,
                  diff=diff_table.parse(diff.decode("utf-8", "replace")[:present.MAX_SHOWN]),
                  split=req.arg("style") == "split", diff_url=f"{html}/commit/{sha}.diff",
                  checks=checks, state=statuses.combined_state(int(view.repo.id), sha),
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
