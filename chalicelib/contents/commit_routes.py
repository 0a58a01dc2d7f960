"""A repository's commits (Forgejo's ``repository`` tag): the commit list of a ref, one
commit, one commit's diff or patch, a comparison of two refs.  (A commit's pull request,
``repoGetCommitPullRequest``, is the pull requests domain's.)

Each reads the repository with the preload, then the pool's packs from git; the list's
X-Total-Count is counted lazily with a bound (services/commit_views).  Token scope:
``repository``.
"""
from __future__ import annotations

from chalicelib import repos
from chalicelib.contents import commit_records
from chalicelib.contents import commits as commit_views
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.repos import IN_REPO, PAGE, caller, current_repo


def _flag(req: ApiRequest, name: str) -> bool:
    """Forgejo's boolean query options here default to true."""
    return (req.arg(name) or "true").strip().lower() not in ("false", "0")


def _addresses(view) -> tuple[str, str]:
    return (repos.repo_html_url(view),
            repos.repo_api_url(view.owner.login, view.repo.name))


def _record(git, c, html: str, api: str, *, stat: bool, files: bool, accounts: dict) -> dict:
    stats = changed = None
    if stat or files:
        found_stats, found_files = commit_views.stats_and_files(git, c)
        stats = found_stats if stat else None
        changed = found_files if files else None
    return commit_records.commit(c, html, api, stats=stats, files=changed, accounts=accounts)


@route("GET", "/repos/{owner}/{repo}/commits", "repoGetAllCommits",
       summary="Get a list of all commits from a repository",
       query=(Param("sha", "string", "SHA or branch to start listing commits from "
                                     "(usually 'master')"),
              Param("path", "string", "filepath of a file/dir"),
              Param("since", "string", "Only commits after this date will be returned "
                                       "(ISO 8601 format)"),
              Param("until", "string", "Only commits before this date will be returned "
                                       "(ISO 8601 format)"),
              Param("stat", "boolean", "include diff stats for every commit (disable for "
                                       "speedup, default 'true')"),
              Param("verification", "boolean", "include verification for every commit "
                                               "(disable for speedup, default 'true')"),
              Param("files", "boolean", "include a list of affected files for every commit "
                                        "(disable for speedup, default 'true')"),
              *PAGE,
              Param("not", "string", "commits that match the given specifier will not be "
                                     "listed.")),
       responses={200: "CommitList", 404: "notFound", 409: "conflict",
                  422: "validationError"}, **IN_REPO)
def list_commits(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    page = paging.page_of(req)
    query = commit_views.CommitQuery(
        sha=req.arg("sha") or "", path=req.arg("path") or "",
        since=commit_views.parse_time(req.arg("since"), "since"),
        until=commit_views.parse_time(req.arg("until"), "until"),
        not_sha=req.arg("not") or "")
    found = commit_views.list_commits(view.repo, query, page.offset, page.limit)
    html, api = _addresses(view)
    stat, files = _flag(req, "stat"), _flag(req, "files")
    accounts = commit_views.linked_accounts(found.commits)
    body = [_record(found.git, c, html, api, stat=stat, files=files, accounts=accounts)
            for c in found.commits]
    return paging.set_headers(ApiResponse.json(body), req, page, found.total)


@route("GET", "/repos/{owner}/{repo}/git/commits/{sha}.{diffType}",
       "repoDownloadCommitDiffOrPatch", summary="Get a commit's diff or patch",
       produces=("text/plain",), responses={200: "empty", 404: "notFound"}, **IN_REPO)
def commit_diff(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    body = commit_views.diff_or_patch(view.repo, req.params["sha"], req.params["diffType"])
    return ApiResponse(status=200, body=body,
                       headers={"Content-Type": "text/plain; charset=utf-8"})


@route("GET", "/repos/{owner}/{repo}/git/commits/{sha}", "repoGetSingleCommit",
       summary="Get a single commit from a repository",
       query=(Param("stat", "boolean", "include diff stats for every commit (disable for "
                                       "speedup, default 'true')"),
              Param("verification", "boolean", "include verification for every commit "
                                               "(disable for speedup, default 'true')"),
              Param("files", "boolean", "include a list of affected files for every commit "
                                        "(disable for speedup, default 'true')")),
       responses={200: "Commit", 404: "notFound", 422: "validationError"}, **IN_REPO)
def get_commit(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    c, git = commit_views.get_commit(view.repo, req.params["sha"])
    html, api = _addresses(view)
    return ApiResponse.json(_record(git, c, html, api, stat=_flag(req, "stat"),
                                    files=_flag(req, "files"),
                                    accounts=commit_views.linked_accounts([c])))


@route("GET", "/repos/{owner}/{repo}/compare/{basehead:path}", "repoCompareDiff",
       summary="Get commit comparison information", responses={200: "Compare", 404: "notFound"},
       **IN_REPO)
def compare(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    found = commit_views.compare(caller(req), view, req.params["basehead"])
    html, api = _addresses(view)
    files = _flag(req, "files")
    accounts = commit_views.linked_accounts(found.commits)
    listed = [_record(found.git, c, html, api, stat=True, files=files, accounts=accounts)
              for c in found.commits]
    # Forgejo lists every commit's affected files, one commit after another.
    return ApiResponse.json({"total_commits": len(listed), "commits": listed,
                             "files": [f for c in listed for f in c["files"] or []]})
