"""Pinned issues: pin, unpin and move (Forgejo's ``issue`` tag), the pinned issues and
whether one more may be pinned (``repository`` tag).  The pinned pull requests are
listed by ``chalicelib.pulls.pin_routes`` (PullRequest records).

Registered before the issue routes: ``/issues/pinned`` would read as an issue number.
A pin change reads the two batches of every issue route, the pinned items (one
BatchGetItem) and writes the tracker's list once (``pins.py``).
"""
from __future__ import annotations

from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.issues import pins
from chalicelib.issues import tracking_records as records
from chalicelib.issues.request import ISSUE, Renderer, ctx_of

SIGNED = dict(ISSUE, signed_in=True)
REPOSITORY = dict(ISSUE, tag="repository", scope="repository")
CHANGE_RESPONSES = {204: "empty", 403: "forbidden", 404: "notFound"}


@route("GET", "/repos/{owner}/{repo}/issues/pinned", "repoListPinnedIssues",
       summary="List a repo's pinned issues",
       responses={200: "IssueList", 404: "notFound"}, **REPOSITORY)
def pinned_issues(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    render = Renderer(req, ctx)
    return ApiResponse.json([render.issue(item) for item in pins.pinned(ctx, is_pull=False)])


@route("GET", "/repos/{owner}/{repo}/new_pin_allowed", "repoNewPinAllowed",
       summary="Returns if new Issue Pins are allowed",
       responses={200: "NewIssuePinsAllowed", 404: "notFound"}, **REPOSITORY)
def new_pin_allowed(req: ApiRequest) -> ApiResponse:
    issues, pulls = pins.new_pin_allowed(ctx_of(req))
    return ApiResponse.json(records.pins_allowed(issues, pulls))


@route("POST", "/repos/{owner}/{repo}/issues/{index}/pin", "pinIssue", summary="Pin an Issue",
       responses={**CHANGE_RESPONSES, 400: "error"}, **SIGNED)
def pin_issue(req: ApiRequest) -> ApiResponse:
    pins.pin(ctx_of(req), req.int_param("index"))
    return ApiResponse.empty()


@route("DELETE", "/repos/{owner}/{repo}/issues/{index}/pin", "unpinIssue",
       summary="Unpin an Issue", responses=CHANGE_RESPONSES, **SIGNED)
def unpin_issue(req: ApiRequest) -> ApiResponse:
    pins.unpin(ctx_of(req), req.int_param("index"))
    return ApiResponse.empty()


@route("PATCH", "/repos/{owner}/{repo}/issues/{index}/pin/{position}", "moveIssuePin",
       summary="Moves the Pin to the given Position",
       responses={**CHANGE_RESPONSES, 422: "validationError"}, **SIGNED)
def move_pin(req: ApiRequest) -> ApiResponse:
    pins.move(ctx_of(req), req.int_param("index"), req.int_param("position"))
    return ApiResponse.empty()
