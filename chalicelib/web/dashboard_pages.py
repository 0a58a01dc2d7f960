"""The signed-in start page, Forgejo's dashboard: what a person comes back to.

``GET /`` (``pages.home``) shows it when someone is signed in; visitors keep the
explore list.  This module registers no route of its own: ``home`` imports it on a
signed-in request only, so the explore page never loads it.

Each section calls the service its API route calls, and reads one page of one index
(never a whole list):

- the user's repositories, newest updated first (``GET /users/{name}/repos``: one
  Query of their own), a few, with a link to the profile for the rest;
- their organizations (``GET /user/orgs``);
- open pull requests asking for their review and open issues assigned to them
  (``GET /repos/issues/search?review_requested=true`` / ``assigned=true``);
- their own activity feed (``GET /users/{name}/activities/feeds``);
- their unread notifications: how many, the newest few (``GET /notifications``).

Sections are short on purpose: each item costs nothing more once its section's page is
read, but every section is at least one more read, so they show few items each.
"""
from __future__ import annotations

import json

from chalicelib import activity, issues, notifications, orgs, repos, search
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import caller
from chalicelib.web.view import Web, render

SHOWN = 5            # items per section
FEED_SHOWN = 10
# Unread threads read at once to count them: one Query page of the person's index
# (the list reads one past the page to know whether more follow, so one page holds
# this many and the one more).  Only more than this asks DynamoDB to count them all.
UNREAD_READ = 49

# Forgejo's feed sentences, by op type: (what the actor did, is the target an issue).
ACTIONS = {
    "create_repo": "created repository", "rename_repo": "renamed repository",
    "transfer_repo": "transferred repository", "star_repo": "starred",
    "watch_repo": "started watching", "commit_repo": "pushed to",
    "push_tag": "pushed tag to", "delete_tag": "deleted tag in",
    "delete_branch": "deleted branch in", "publish_release": "published a release in",
    "create_issue": "opened issue", "create_pull_request": "opened pull request",
    "close_issue": "closed issue", "reopen_issue": "reopened issue",
    "close_pull_request": "closed pull request",
    "reopen_pull_request": "reopened pull request",
    "merge_pull_request": "merged pull request", "comment_issue": "commented on issue",
    "comment_pull": "commented on pull request",
    "approve_pull_request": "approved", "reject_pull_request": "suggested changes for",
}
PULL_OPS = {"create_pull_request", "close_pull_request", "reopen_pull_request",
            "merge_pull_request", "comment_pull", "approve_pull_request",
            "reject_pull_request", "pull_review_dismissed",
            "pull_request_ready_for_review", "auto_merge_pull_request"}


def dashboard(req: ApiRequest, web: Web) -> ApiResponse:
    me, who = web.user, caller(req)
    unread, unread_count = _unread(req, me)
    return render(web, "dashboard.html", title="Dashboard",
                  repos=_repositories(req, who, me), organizations=_organizations(me),
                  review_requests=_issues(req, who, "pulls", "review_requested"),
                  assigned=_issues(req, who, "issues", "assigned"),
                  feed=_feed(req, who, me), unread=unread, unread_count=unread_count)


def _repositories(req: ApiRequest, who, me) -> dict:
    """Their own repositories, newest updated first (the profile lists them all)."""
    views = repos.order_repos(repos.visible_repos_of(who, me), "recentupdate")
    return {"shown": [repos.repository_record(v, req.actor) for v in views[:SHOWN]],
            "more": len(views) > SHOWN, "total": len(views)}


def _organizations(me) -> list[dict]:
    return [orgs.organization_record(org) for org in orgs.orgs_of(me, me)]


def _issues(req: ApiRequest, who, kind: str, mine: str) -> list[dict]:
    """The newest open ones of issueSearchIssues' ``mine`` list, as the API renders them."""
    found, _ = search.search_issues(who, search.IssueSearch(state="open", kind=kind,
                                                            mine=(mine,)), 0, SHOWN)
    renderers: dict[int, object] = {}
    shown = []
    for ctx, issue in found:
        renderer = renderers.setdefault(id(ctx), issues.IssueRenderer(req, ctx))
        shown.append(renderer.issue(issue))
    return shown


def _feed(req: ApiRequest, who, me) -> list[dict]:
    """Their own feed, as they see it (private repositories' activities included)."""
    shown, _ = activity.feed_page(who, activity.FeedQuery(user_id=int(me.id),
                                                          include_private=True),
                                  offset=0, limit=FEED_SHOWN)
    return [_sentence(activity.activity_record(s, req.actor)) for s in shown]


def _sentence(record: dict) -> dict:
    """An activity as one line: who, did what, to which thing of which repository."""
    op, content = record["op_type"], record.get("content") or ""
    repo = record["repo"]
    target_text, target_url, excerpt = "", "", ""
    number, _, rest = content.partition("|")
    if "|" in content and number.isdigit():
        kind = "pulls" if op in PULL_OPS else "issues"
        target_text, target_url = f"{repo['full_name']}#{number}", \
            f"{repo['html_url']}/{kind}/{number}"
        excerpt = rest
    elif op in ("commit_repo", "push_tag", "delete_branch", "delete_tag"):
        ref = record.get("ref_name") or ""
        target_text = ref.removeprefix("refs/heads/").removeprefix("refs/tags/")
        excerpt = _push_message(content) if op == "commit_repo" else ""
    elif op == "publish_release":
        target_text = content or record.get("ref_name") or ""
    return {"actor": record["act_user"], "action": ACTIONS.get(op, op.replace("_", " ")),
            "repo": repo, "target_text": target_text, "target_url": target_url,
            "excerpt": excerpt, "created": record["created"]}


def _push_message(content: str) -> str:
    """The head commit's first line from a push's content (Forgejo's PushCommits JSON)."""
    try:
        head = json.loads(content or "{}").get("HeadCommit") or {}
    except (ValueError, AttributeError):
        return ""
    return str(head.get("Message") or "").split("\n", 1)[0]


def _unread(req: ApiRequest, me) -> tuple[list[dict], int]:
    """The newest few unread threads and how many are unread: one page of the index
    counts them, unless there are more than a page holds."""
    threads, total = notifications.list_threads(
        me, notifications.ThreadQuery(statuses=(notifications.UNREAD,)),
        offset=0, limit=UNREAD_READ)
    count = total if total <= UNREAD_READ else notifications.unread_count(me)
    newest = threads[:SHOWN]
    views = notifications.thread_views(newest) if newest else {}
    return [notifications.thread_record(t, views[int(t.id)], req.actor) for t in newest
            if int(t.id) in views], count
