"""Reactions to issues and comments (Forgejo's ``issue`` tag; rules in ``reactions``).

Every route reads the repository with the token, then the caller's access items with
the tracker and what the path names (the issue, or a comment's lookup item); a list is
one Query more, a reaction's write one transaction (the reaction and a check that its
target still exists) or, to remove one, one DeleteItem.  Token scope: ``issue``.
"""
from __future__ import annotations

from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import route
from chalicelib.issues import context as ictx
from chalicelib.issues import reaction_records, reactions
from chalicelib.issues.options import EditReactionOption
from chalicelib.issues.reactions import Target
from chalicelib.issues.request import ISSUE, ctx_of
from chalicelib.repos import PAGE

SIGNED = dict(ISSUE, signed_in=True)
ISSUE_PATH = "/repos/{owner}/{repo}/issues/{index}/reactions"
COMMENT_PATH = "/repos/{owner}/{repo}/issues/comments/{id}/reactions"
CHANGE_ANSWERS = {200: "Reaction", 201: "Reaction", 403: "forbidden", 404: "notFound"}
REMOVE_ANSWERS = {200: "empty", 403: "forbidden", 404: "notFound"}


def _records(req: ApiRequest, ctx: ictx.Ctx, found) -> list[dict]:
    fresh = ictx.fresh_accounts(ctx)
    return [reaction_records.reaction(r.content, int(r.created_ms),
                                      ictx.account_from(r.user, fresh), req.actor,
                                      getattr(r, "original_author", None) or "")
            for r in found]


def _page_number(req: ApiRequest) -> int:
    try:
        return int(req.arg("page") or 0)
    except ValueError:
        return 0


def _add(req: ApiRequest, ctx: ictx.Ctx, target: Target) -> ApiResponse:
    content = reactions.content_of(req.option(EditReactionOption, required=False))
    item, added = reactions.add_reaction(ctx, target, content)
    return ApiResponse.json(_records(req, ctx, [item])[0], status=201 if added else 200)


def _remove(req: ApiRequest, ctx: ictx.Ctx, target: Target) -> ApiResponse:
    content = reactions.content_of(req.option(EditReactionOption, required=False))
    reactions.remove_reaction(ctx, target, content)
    return ApiResponse.empty(200)


# An issue's (or pull request's) reactions ----------------------------------------------------

@route("GET", ISSUE_PATH, "issueGetIssueReactions", summary="Get a list reactions of an issue",
       query=PAGE, responses={200: "ReactionList", 403: "forbidden", 404: "notFound"}, **ISSUE)
def issue_reactions(req: ApiRequest) -> ApiResponse:
    """Every reaction unless a page is asked for (Forgejo pages only then); the total
    either way."""
    ctx = ctx_of(req)
    found = reactions.list_reactions(ctx, reactions.issue_target(ctx, req.int_param("index")))
    total = len(found)
    if _page_number(req) > 0:
        found = paging.page_of(req).slice(found)
    resp = ApiResponse.json(_records(req, ctx, found))
    resp.headers["X-Total-Count"] = str(total)
    resp.expose("X-Total-Count")
    return resp


@route("POST", ISSUE_PATH, "issuePostIssueReaction", summary="Add a reaction to an issue",
       body="EditReactionOption", responses=CHANGE_ANSWERS, **SIGNED)
def add_issue_reaction(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    return _add(req, ctx, reactions.issue_target(ctx, req.int_param("index")))


@route("DELETE", ISSUE_PATH, "issueDeleteIssueReaction", summary="Remove a reaction from an issue",
       body="EditReactionOption", responses=REMOVE_ANSWERS, **SIGNED)
def remove_issue_reaction(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    return _remove(req, ctx, reactions.issue_target(ctx, req.int_param("index")))


# A comment's reactions -----------------------------------------------------------------------

@route("GET", COMMENT_PATH, "issueGetCommentReactions",
       summary="Get a list of reactions from a comment of an issue",
       responses={200: "ReactionList", 403: "forbidden", 404: "notFound"}, **ISSUE)
def comment_reactions(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    found = reactions.list_reactions(ctx, reactions.comment_target(ctx, req.int_param("id")))
    return ApiResponse.json(_records(req, ctx, found))


@route("POST", COMMENT_PATH, "issuePostCommentReaction",
       summary="Add a reaction to a comment of an issue", body="EditReactionOption",
       responses=CHANGE_ANSWERS, **SIGNED)
def add_comment_reaction(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    return _add(req, ctx, reactions.comment_target(ctx, req.int_param("id")))


@route("DELETE", COMMENT_PATH, "issueDeleteCommentReaction",
       summary="Remove a reaction from a comment of an issue", body="EditReactionOption",
       responses=REMOVE_ANSWERS, **SIGNED)
def remove_comment_reaction(req: ApiRequest) -> ApiResponse:
    ctx = ctx_of(req)
    return _remove(req, ctx, reactions.comment_target(ctx, req.int_param("id")))
