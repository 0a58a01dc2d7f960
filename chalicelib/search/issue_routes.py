"""Issue search (Forgejo's ``issue`` tag): issueSearchIssues through the issue index."""
from __future__ import annotations

from chalicelib import issues, repos
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.search import issue_search
from chalicelib.search.routes import bool_arg

# Forgejo's default page for this list is the web's issue page (it serves the web too).
DEFAULT_LIMIT = 20


def _names(req: ApiRequest, name: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(s.strip() for s in (req.arg(name) or "").split(",") if s.strip()))


def search_query(req: ApiRequest) -> issue_search.IssueSearch:
    """issueSearchIssues' parameters as Forgejo reads them: an unknown state is open,
    an unknown type both kinds, a keyword holding NUL none."""
    state = (req.arg("state") or "open").lower()
    kind = (req.arg("type") or "").lower()
    keyword = (req.arg("q") or "").strip()
    return issue_search.IssueSearch(
        state=state if state in ("open", "closed", "all") else "open",
        kind=kind if kind in issue_search.KINDS else "",
        keyword="" if "\x00" in keyword else keyword,
        labels=_names(req, "labels"), milestones=_names(req, "milestones"),
        since=issues.parse_time(req.arg("since"), "Since"),
        before=issues.parse_time(req.arg("before"), "Before"),
        owner=(req.arg("owner") or "").strip(), team=(req.arg("team") or "").strip(),
        mine=tuple(name for name in issue_search.MINE_LISTS if bool_arg(req, name)))


@route("GET", "/repos/issues/search", "issueSearchIssues",
       summary="Search for issues across the repositories that the user has access to",
       query=(Param("state", "string", "State of the issue"),
              Param("labels", "string", "Comma-separated list of label names (any of them)"),
              Param("milestones", "string", "Comma-separated list of milestone names"),
              Param("q", "string", "Search string"),
              Param("priority_repo_id", "integer", "Repository ID to prioritize in the results"),
              Param("type", "string", "Filter by issue type"),
              Param("since", "string", "Only show issues updated after the given time"),
              Param("before", "string", "Only show issues updated before the given time"),
              Param("assigned", "boolean", "Filter issues or pulls assigned to the caller"),
              Param("created", "boolean", "Filter issues or pulls created by the caller"),
              Param("mentioned", "boolean", "Filter issues or pulls mentioning the caller"),
              Param("review_requested", "boolean",
                    "Filter pull requests where the caller's review was requested"),
              Param("reviewed", "boolean", "Filter pull requests reviewed by the caller"),
              Param("owner", "string", "Filter by repository owner"),
              Param("team", "string", "Filter by team (requires organization owner parameter)"),
              Param("sort", "string", "Type of sort"), *repos.PAGE),
       responses={200: "IssueList", 400: "error", 422: "validationError"},
       tag="issue", scope="issue")
def search_issues_route(req: ApiRequest) -> ApiResponse:
    query = search_query(req)
    page = paging.page_of(req)
    if not req.arg("limit"):
        page = paging.Page(page=page.page, limit=DEFAULT_LIMIT)
    found, total = issue_search.search_issues(repos.caller(req), query, page.offset,
                                              page.limit)
    renderers: dict[int, object] = {}
    records = []
    for ctx, issue in found:
        renderer = renderers.setdefault(id(ctx), issues.IssueRenderer(req, ctx))
        records.append(renderer.issue(issue))
    return paging.set_headers(ApiResponse.json(records), req, page, total)
