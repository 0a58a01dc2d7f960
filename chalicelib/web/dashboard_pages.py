"""The signed-in start page, Forgejo's dashboard: what a person comes back to.

``GET /`` (``pages.home``) shows it when someone is signed in; visitors keep the
explore list.  This module registers no route of its own: ``home`` imports it on a
signed-in request only, so the explore page never loads it.

Each section calls the service its API route calls and reads one page of one list:

- open pull requests asking for their review and open issues assigned to them
  (``GET /repos/issues/search?review_requested=true`` / ``assigned=true``: their own
  lists, each entry kept when the read rule keeps it);
- their own activity feed (``GET /users/{name}/activities/feeds``);
- their repositories, newest updated first (``GET /users/{name}/repos``), a few, with a
  link to the profile for the rest and for their organizations.

Every list is one Query; everything the sections then read (the issues, their
repositories and the caller's access to them, the feed's repositories and actors) is
one BatchGetItem, so the page costs the same whatever the person belongs to.  Unread
notifications have their own page (linked at the top): their count and threads would
be two reads more.
"""
from __future__ import annotations

import json
from itertools import islice
from types import SimpleNamespace

from chalicelib import accounts, activity, issues, repos, search
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.repos import caller
from chalicelib.web.view import Web, render

SHOWN = 5            # items per section
FEED_SHOWN = 10

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
    # The lists first (one Query each), then one batch for every section's items.
    copies = list(islice(activity.feed_copies(user_id=int(me.id), page_size=FEED_SHOWN),
                         FEED_SHOWN))
    owned = repos.repos_owned_by(int(me.id))
    (reviews, more_reviews), (assigned, more_assigned) = search.search_issues_many(who, [
        (_mine("pulls", "review_requested"), 0, SHOWN),
        (_mine("issues", "assigned"), 0, SHOWN)], also=_feed_keys(copies, int(me.id)))
    return render(web, "dashboard.html", title="Dashboard",
                  repos=_repositories(req, who, owned),
                  review_requests=_issue_records(req, reviews),
                  more_reviews=more_reviews > SHOWN,
                  assigned=_issue_records(req, assigned), more_assigned=more_assigned > SHOWN,
                  feed=_feed(req, who, me, copies))


def _mine(kind: str, mine: str):
    return search.IssueSearch(state="open", kind=kind, mine=(mine,))


def _repositories(req: ApiRequest, who, owned: list) -> dict:
    """Their own repositories, newest updated first (the profile lists them all)."""
    views = repos.order_repos(repos.list_visible(who, owned), "recentupdate")
    return {"shown": [repos.repository_record(v, req.actor) for v in views[:SHOWN]],
            "more": len(views) > SHOWN, "total": len(views)}


def _issue_records(req: ApiRequest, found: list) -> list[dict]:
    """Issues as the API renders them (one renderer per tracker)."""
    renderers: dict[int, object] = {}
    shown = []
    for ctx, issue in found:
        renderer = renderers.setdefault(id(ctx), issues.IssueRenderer(req, ctx))
        shown.append(renderer.issue(issue))
    return shown


def _feed_keys(copies: list, user_id: int) -> list:
    """What deciding the feed's copies reads (the activity domain's page batch: the
    repositories where the copies saw them, the caller's access, the actors), to read
    with the other sections' items.  A key missed here is read by the feed itself."""
    found = []
    for copy in copies:
        if copy.repo_owner:
            found += repos.repo_preload_keys(copy.repo_owner, copy.repo_name)
        found += repos.access_keys(SimpleNamespace(id=int(copy.repo_id),
                                                   owner_id=int(copy.owner_id)), user_id)
        if copy.act_user_id:
            found.append(accounts.account_key(int(copy.act_user_id)))
    return found


def _feed(req: ApiRequest, who, me, copies: list) -> list[dict]:
    """Their own feed, as they see it (private repositories' activities included)."""
    query = activity.FeedQuery(user_id=int(me.id), include_private=True)
    return [_sentence(activity.activity_record(s, req.actor))
            for s in activity.visible_activities(who, query, copies)]


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
