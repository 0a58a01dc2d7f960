"""Issues, comments, labels, milestones and tracked times (Forgejo's ``issue`` tag).

Every route reads the repository with the token (first batch), then the caller's
access items together with the repository's tracker item and what the path names (the
issue, a comment's lookup item, a tracked time: second batch): getting an issue costs
those two calls, a page of issues one Query more, and a write one transaction more
(the services commit it once).  Token scope: ``issue``.
"""
from __future__ import annotations

from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, alias, route
from chalicelib.issues import comments, meta
from chalicelib.issues import context as ictx
from chalicelib.issues import records as issue_records
from chalicelib.issues import service as svc
from chalicelib.issues.options import (AddTimeOption, CreateIssueCommentOption, CreateIssueOption,
                                       CreateLabelOption, CreateMilestoneOption,
                                       EditIssueCommentOption, EditIssueOption, EditLabelOption,
                                       EditMilestoneOption, IssueLabelsOption)
from chalicelib.issues.request import ISSUE, Renderer, ctx_of
from chalicelib.repos import PAGE

SIGNED = dict(ISSUE, signed_in=True)
TIME_RANGE = (Param("since", "string", "Only show items updated after the given time "
                                       "(RFC 3339)"),
              Param("before", "string", "Only show items updated before the given time "
                                        "(RFC 3339)"))


def _time_arg(req: ApiRequest, name: str) -> int | None:
    return ictx.parse_time(req.arg(name), name.capitalize())


# Rendering ---------------------------------------------------------------------------------


def _page_response(req: ApiRequest, records_: list, total: int, page) -> ApiResponse:
    return paging.set_headers(ApiResponse.json(records_), req, page, total)


# Comments -----------------------------------------------------------------------------------------

@route("GET", "/repos/{owner}/{repo}/issues/comments", "issueGetRepoComments",
       summary="List all comments in a repository", query=(*TIME_RANGE, *PAGE),
       responses={200: "CommentList", 404: "notFound", 422: "validationError"}, **ISSUE)
def repo_comments(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    page = paging.page_of(req)
    found, total = comments.repo_comments(ctx, page.offset, page.limit,
                                          _time_arg(req, "since"), _time_arg(req, "before"))
    render = Renderer(req, ctx)
    return _page_response(req, [render.comment(c) for c in found], total, page)


@route("GET", "/repos/{owner}/{repo}/issues/comments/{id}", "issueGetComment",
       summary="Get a comment", responses={200: "Comment", 403: "forbidden", 404: "notFound"},
       **ISSUE)
def get_comment(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    return ApiResponse.json(Renderer(req, ctx).comment(
        comments.get_comment(ctx, req.int_param("id"))))


@route("PATCH", "/repos/{owner}/{repo}/issues/comments/{id}", "issueEditComment",
       summary="Edit a comment", body="EditIssueCommentOption",
       responses={200: "Comment", 403: "forbidden", 404: "notFound"}, **SIGNED)
def edit_comment(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    found = comments.edit_comment(ctx, req.int_param("id"),
                                 req.option(EditIssueCommentOption, required=False))
    return ApiResponse.json(Renderer(req, ctx).comment(found))


@route("DELETE", "/repos/{owner}/{repo}/issues/comments/{id}", "issueDeleteComment",
       summary="Delete a comment", responses={204: "empty", 403: "forbidden", 404: "notFound"},
       **SIGNED)
def delete_comment(req: ApiRequest) -> ApiResponse:
    comments.delete_comment(ctx_of(req), req.int_param("id"))
    return ApiResponse.empty()


# Issues ----------------------------------------------------------------------------------------

@route("GET", "/repos/{owner}/{repo}/issues", "issueListIssues",
       summary="List a repository's issues",
       query=(Param("state", "string", "whether issue is open or closed"),
              Param("labels", "string", "comma separated list of labels"),
              Param("q", "string", "search string"),
              Param("type", "string", "filter by type (issues / pulls) if set"),
              Param("milestones", "string", "comma separated list of milestone names or ids"),
              *TIME_RANGE,
              Param("created_by", "string", "Only show items which were created by the given user"),
              Param("assigned_by", "string", "Only show items for which the given user is assigned"),
              Param("mentioned_by", "string", "Only show items in which the given user was mentioned"),
              *PAGE),
       responses={200: "IssueList", 404: "notFound", 422: "validationError"}, **ISSUE)
def list_issues(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    state = (req.arg("state") or "open").lower()
    kind = (req.arg("type") or "").lower()
    split = lambda name: [s.strip() for s in (req.arg(name) or "").split(",") if s.strip()]  # noqa: E731
    query = svc.IssueQuery(
        state=state if state in ("open", "closed", "all") else "open",
        kind=kind if kind in ("issues", "pulls") else "", keyword=req.arg("q", "") or "",
        labels=split("labels"), milestones=split("milestones"),
        created_by=req.arg("created_by", "") or "", assigned_by=req.arg("assigned_by", "") or "",
        mentioned_by=req.arg("mentioned_by", "") or "",
        since=_time_arg(req, "since"), before=_time_arg(req, "before"))
    page = paging.page_of(req)
    items, total = svc.list_issues(ctx, query, page.offset, page.limit)
    render = Renderer(req, ctx)
    return _page_response(req, [render.issue(i) for i in items], total, page)


@route("POST", "/repos/{owner}/{repo}/issues", "issueCreateIssue",
       summary="Create an issue. If using deadline only the date will be taken into account, "
               "and time of day ignored.", body="CreateIssueOption",
       responses={201: "Issue", 403: "forbidden", 404: "notFound", 422: "validationError"},
       **SIGNED)
def create_issue(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    issue = svc.create_issue(ctx, req.option(CreateIssueOption))
    return ApiResponse.json(Renderer(req, ctx).issue(issue), status=201)


@route("GET", "/repos/{owner}/{repo}/issues/{index}", "issueGetIssue",
       summary="Get an issue", responses={200: "Issue", 404: "notFound"}, **ISSUE)
def get_issue(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    issue = svc.get_issue(ctx, req.int_param("index"))
    return ApiResponse.json(Renderer(req, ctx).issue(issue))


@route("PATCH", "/repos/{owner}/{repo}/issues/{index}", "issueEditIssue",
       summary="Edit an issue. If using deadline only the date will be taken into account, "
               "and time of day ignored.", body="EditIssueOption",
       responses={201: "Issue", 403: "forbidden", 404: "notFound", 412: "error"}, **SIGNED)
def edit_issue(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    issue = svc.edit_issue(ctx, req.int_param("index"),
                           req.option(EditIssueOption, required=False))
    return ApiResponse.json(Renderer(req, ctx).issue(issue), status=201)


@route("DELETE", "/repos/{owner}/{repo}/issues/{index}", "issueDelete",
       summary="Delete an issue", responses={204: "empty", 403: "forbidden", 404: "notFound"},
       **SIGNED)
def delete_issue(req: ApiRequest) -> ApiResponse:
    svc.delete_issue(ctx_of(req), req.int_param("index"))
    return ApiResponse.empty()


@route("GET", "/repos/{owner}/{repo}/issues/{index}/comments", "issueGetComments",
       summary="List all comments on an issue", query=TIME_RANGE,
       responses={200: "CommentList", 404: "notFound", 422: "validationError"}, **ISSUE)
def issue_comments(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    number = req.int_param("index")
    issue = svc.get_issue(ctx, number)
    found = comments.issue_comments(ctx, number, _time_arg(req, "since"), _time_arg(req, "before"))
    render = Renderer(req, ctx)
    resp = ApiResponse.json([render.comment(c, bool(issue.is_pull)) for c in found])
    resp.headers["X-Total-Count"] = str(len(found))
    resp.expose("X-Total-Count")
    return resp


@route("POST", "/repos/{owner}/{repo}/issues/{index}/comments", "issueCreateComment",
       summary="Add a comment to an issue", body="CreateIssueCommentOption",
       responses={201: "Comment", 403: "forbidden", 404: "notFound", 422: "validationError"},
       **SIGNED)
def create_comment(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    found, issue = comments.create_comment(ctx, req.int_param("index"),
                                          req.option(CreateIssueCommentOption))
    return ApiResponse.json(Renderer(req, ctx).comment(found, bool(issue.is_pull)), status=201)


alias("PATCH", "/repos/{owner}/{repo}/issues/{index}/comments/{id}", "issueEditCommentDeprecated",
      same_as="issueEditComment", deprecated=True)
alias("DELETE", "/repos/{owner}/{repo}/issues/{index}/comments/{id}",
      "issueDeleteCommentDeprecated", same_as="issueDeleteComment", deprecated=True)


# Labels of an issue ---------------------------------------------------------------------------------

@route("GET", "/repos/{owner}/{repo}/issues/{index}/labels", "issueGetLabels",
       summary="Get an issue's labels", responses={200: "LabelList", 404: "notFound"}, **ISSUE)
def issue_labels(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    ids, _ = svc.issue_labels(ctx, req.int_param("index"))
    return ApiResponse.json(Renderer(req, ctx).labels(ids))


def _labels_answer(req: ApiRequest, ctx: ictx.Ctx, issue) -> ApiResponse:
    return ApiResponse.json(Renderer(req, ctx).labels(issue.label_ids))


@route("POST", "/repos/{owner}/{repo}/issues/{index}/labels", "issueAddLabel",
       summary="Add a label to an issue", body="IssueLabelsOption",
       responses={200: "LabelList", 403: "forbidden", 404: "notFound"}, **SIGNED)
def add_labels(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    return _labels_answer(req, ctx, svc.add_labels(ctx, req.int_param("index"),
                                                   req.option(IssueLabelsOption)))


@route("PUT", "/repos/{owner}/{repo}/issues/{index}/labels", "issueReplaceLabels",
       summary="Replace an issue's labels", body="IssueLabelsOption",
       responses={200: "LabelList", 403: "forbidden", 404: "notFound"}, **SIGNED)
def replace_labels(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    return _labels_answer(req, ctx, svc.replace_labels(ctx, req.int_param("index"),
                                                       req.option(IssueLabelsOption)))


@route("DELETE", "/repos/{owner}/{repo}/issues/{index}/labels", "issueClearLabels",
       summary="Remove all labels from an issue",
       responses={204: "empty", 403: "forbidden", 404: "notFound"}, **SIGNED)
def clear_labels(req: ApiRequest) -> ApiResponse:
    svc.clear_labels(ctx_of(req), req.int_param("index"))
    return ApiResponse.empty()


@route("DELETE", "/repos/{owner}/{repo}/issues/{index}/labels/{id}", "issueRemoveLabel",
       summary="Remove a label from an issue",
       responses={204: "empty", 403: "forbidden", 404: "notFound", 422: "validationError"},
       **SIGNED)
def remove_label(req: ApiRequest) -> ApiResponse:
    svc.remove_label(ctx_of(req), req.int_param("index"), req.params["id"])
    return ApiResponse.empty()


# Tracked times ----------------------------------------------------------------------------------------

@route("GET", "/repos/{owner}/{repo}/issues/{index}/times", "issueTrackedTimes",
       summary="List an issue's tracked times",
       query=(Param("user", "string", "optional filter by user (available for issue managers)"),
              *TIME_RANGE, *PAGE),
       responses={200: "TrackedTimeList", 403: "forbidden", 404: "notFound",
                  422: "validationError"}, **SIGNED)
def tracked_times(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    found, issue = comments.list_times(ctx, req.int_param("index"), req.arg("user", "") or "",
                                       _time_arg(req, "since"), _time_arg(req, "before"))
    issue_record = Renderer(req, ctx).issue(issue)
    page = paging.page_of(req)
    return _page_response(req, [issue_records.tracked_time(t, issue_record) for t in page.slice(found)],
                          len(found), page)


@route("POST", "/repos/{owner}/{repo}/issues/{index}/times", "issueAddTime",
       summary="Add tracked time to a issue", body="AddTimeOption",
       responses={200: "TrackedTime", 400: "error", 403: "forbidden", 404: "notFound"}, **SIGNED)
def add_time(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    item, issue = comments.add_time(ctx, req.int_param("index"), req.option(AddTimeOption))
    return ApiResponse.json(issue_records.tracked_time(item, Renderer(req, ctx).issue(issue)))


@route("DELETE", "/repos/{owner}/{repo}/issues/{index}/times", "issueResetTime",
       summary="Reset a tracked time of an issue",
       responses={204: "empty", 400: "error", 403: "forbidden", 404: "notFound"}, **SIGNED)
def reset_time(req: ApiRequest) -> ApiResponse:
    comments.reset_time(ctx_of(req), req.int_param("index"))
    return ApiResponse.empty()


@route("DELETE", "/repos/{owner}/{repo}/issues/{index}/times/{id}", "issueDeleteTime",
       summary="Delete specific tracked time",
       responses={204: "empty", 400: "error", 403: "forbidden", 404: "notFound"}, **SIGNED)
def delete_time(req: ApiRequest) -> ApiResponse:
    comments.delete_time(ctx_of(req), req.int_param("index"), req.int_param("id"))
    return ApiResponse.empty()


# Labels -----------------------------------------------------------------------------------------------

@route("GET", "/repos/{owner}/{repo}/labels", "issueListLabels",
       summary="Get all of a repository's labels", query=PAGE,
       responses={200: "LabelList", 404: "notFound"}, **ISSUE)
def list_labels(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    return paging.paged_json(req, meta.list_labels(ctx),
                             lambda kv: issue_records.label(kv[0], kv[1], ctx.view))


@route("POST", "/repos/{owner}/{repo}/labels", "issueCreateLabel",
       summary="Create a label", body="CreateLabelOption",
       responses={201: "Label", 403: "forbidden", 404: "notFound", 422: "validationError"},
       **SIGNED)
def create_label(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    label_id, label = meta.create_label(ctx, req.option(CreateLabelOption))
    return ApiResponse.json(issue_records.label(label_id, label, ctx.view), status=201)


@route("GET", "/repos/{owner}/{repo}/labels/{id}", "issueGetLabel", summary="Get a single label",
       responses={200: "Label", 404: "notFound"}, **ISSUE)
def get_label(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    label_id = req.int_param("id")
    return ApiResponse.json(issue_records.label(label_id, meta.get_label(ctx, label_id), ctx.view))


@route("PATCH", "/repos/{owner}/{repo}/labels/{id}", "issueEditLabel", summary="Update a label",
       body="EditLabelOption",
       responses={200: "Label", 403: "forbidden", 404: "notFound", 422: "validationError"},
       **SIGNED)
def edit_label(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    label_id = req.int_param("id")
    label = meta.edit_label(ctx, label_id, req.option(EditLabelOption, required=False))
    return ApiResponse.json(issue_records.label(label_id, label, ctx.view))


@route("DELETE", "/repos/{owner}/{repo}/labels/{id}", "issueDeleteLabel",
       summary="Delete a label", responses={204: "empty", 403: "forbidden", 404: "notFound"},
       **SIGNED)
def delete_label(req: ApiRequest) -> ApiResponse:
    meta.delete_label(ctx_of(req), req.int_param("id"))
    return ApiResponse.empty()


# Milestones -------------------------------------------------------------------------------------------

@route("GET", "/repos/{owner}/{repo}/milestones", "issueGetMilestonesList",
       summary="Get all of a repository's opened milestones",
       query=(Param("state", "string", "Milestone state, Recognized values are open, closed "
                                       "and all. Defaults to \"open\""),
              Param("name", "string", "filter by milestone name"), *PAGE),
       responses={200: "MilestoneList", 404: "notFound"}, **ISSUE)
def list_milestones(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    found = meta.list_milestones(ctx, req.arg("state", "open") or "open", req.arg("name", "") or "")
    return paging.paged_json(req, found, lambda kv: issue_records.milestone(*kv))


@route("POST", "/repos/{owner}/{repo}/milestones", "issueCreateMilestone",
       summary="Create a milestone", body="CreateMilestoneOption",
       responses={201: "Milestone", 403: "forbidden", 404: "notFound", 422: "validationError"},
       **SIGNED)
def create_milestone(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    created = meta.create_milestone(ctx, req.option(CreateMilestoneOption))
    return ApiResponse.json(issue_records.milestone(*created), status=201)


@route("GET", "/repos/{owner}/{repo}/milestones/{id}", "issueGetMilestone",
       summary="Get a milestone", responses={200: "Milestone", 404: "notFound"}, **ISSUE)
def get_milestone(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    return ApiResponse.json(issue_records.milestone(*meta.find_milestone(ctx, req.params["id"])))


@route("PATCH", "/repos/{owner}/{repo}/milestones/{id}", "issueEditMilestone",
       summary="Update a milestone", body="EditMilestoneOption",
       responses={200: "Milestone", 403: "forbidden", 404: "notFound", 422: "validationError"},
       **SIGNED)
def edit_milestone(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    return ApiResponse.json(issue_records.milestone(*meta.edit_milestone(
        ctx, req.params["id"], req.option(EditMilestoneOption, required=False))))


@route("DELETE", "/repos/{owner}/{repo}/milestones/{id}", "issueDeleteMilestone",
       summary="Delete a milestone", responses={204: "empty", 403: "forbidden", 404: "notFound"},
       **SIGNED)
def delete_milestone(req: ApiRequest) -> ApiResponse:
    meta.delete_milestone(ctx_of(req), req.params["id"])
    return ApiResponse.empty()

