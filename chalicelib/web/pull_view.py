"""What a pull request's three pages show: the heading and the tabs they share
(Conversation, Commits, Files changed, each with its count, as Forgejo's), and each
tab's values.

- the conversation: the description, the timeline with the reviews and comments, the
  review panel, the head's commit statuses, the mergeability and the merge form, and
  the sidebar (the edit forms, the reviewers form);
- the commits: the commits the pull request brings;
- the files changed: the diff with the code comments under their lines and the review
  forms (``review_view``).

No routes here: ``pull_pages`` registers the pages, and ``actions_reviews`` shows the
conversation again when a review request is refused.

What each costs: the issue and the tracker come with the caller's access
(``conversation_view.tracker_page``); the branch tips the record is checked against
and, on the conversation, the head's status summary are one consistent batch; then one
Query each for what the tab lists.  The counts cost nothing more: the comments from the
issue's counter, the commits and changed files from what the pull request's last
examination counted, the reviews from the list every tab reads (the conversation and
files show them; the commits page counts them).
"""
from __future__ import annotations

from dataclasses import dataclass

from chalicelib import contents, issues, pulls, repos, reviews, statuses
from chalicelib.errors import NotFoundError
from chalicelib.http.message import ApiRequest
from chalicelib.pulls import PullRenderer
from chalicelib.repos import caller, is_org
from chalicelib.store import unit_of_work
from chalicelib.web import conversation_view, present, review_view
from chalicelib.web.actions_forms import repo_values
from chalicelib.web.view import Web, path_url

MERGE_STYLES = (("merge", "Create merge commit"), ("rebase", "Rebase and fast-forward"),
                ("rebase-merge", "Rebase and create merge commit"),
                ("squash", "Squash and merge"), ("fast-forward-only", "Fast-forward only"))
TABS = (("conversation", "Conversation", ""), ("commits", "Commits", "commits"),
        ("files", "Files changed", "files"))
HIDDEN = (review_view.PENDING, review_view.REQUEST_REVIEW)


@dataclass
class PullRead:
    """A pull request as every tab reads it: its item, record and reviews."""
    ctx: object
    item: object
    record: dict
    listed: list


def read_pull(req: ApiRequest, view, number: int, *, head_statuses: bool = False) -> PullRead:
    """The pull request, its record and its reviews.  The branch tips its record is
    checked against (``PullRenderer``) are read here in one consistent batch, with the
    head commit's status summary when ``head_statuses`` (the conversation shows it)."""
    ctx = pulls.pull_context(caller(req), view)
    item = pulls.get_pull(ctx, number)
    pull = pulls.pull_fields_of(item)
    keys = []
    if item.is_open and not pull.merged:
        keys.append(contents.branch_key(ctx.repo_id, pull.base_branch))
        if pull.head_branch and not pull.head_gone:
            keys.append(contents.branch_key(pull.head_repo_id, pull.head_branch))
    if head_statuses and pull.head_sha:
        # What combined_status reads for a full id: whether a branch has that name
        # (none has), and the commit's summary.
        keys += [contents.branch_key(ctx.repo_id, pull.head_sha),
                 statuses.status_summary_key(ctx.repo_id, pull.head_sha)]
    unit_of_work.prefetch(keys, consistent=True)
    record = PullRenderer(req, ctx).pull(item)
    return PullRead(ctx, item, record, reviews.list_reviews(ctx, number))


def shown_reviews(listed: list) -> int:
    """The reviews the conversation shows (submitted ones, not requests or drafts)."""
    return sum(1 for r in listed if r.state not in HIDDEN)


def tab_values(view, read: PullRead, current: str) -> dict:
    """The heading's tabs, the same on each page: [(key, label, count, url)]."""
    record = read.record
    fields = pulls.pull_fields_of(read.item)     # counted when the branches were examined
    base = path_url(view.owner.login, view.repo.name, "pulls", str(record["number"]))
    counts = {"conversation": int(record.get("comments") or 0) + shown_reviews(read.listed),
              "commits": int(fields.commits), "files": int(fields.changed_files)}
    return {"pull_tabs": [(key, label, counts[key], f"{base}/{tail}" if tail else base)
                          for key, label, tail in TABS],
            "pull_tab": current, "pull": record}


def _statuses(req: ApiRequest, view, sha: str) -> dict | None:
    if not sha:
        return None
    combined = statuses.combined_status(view, caller(req), sha)
    if not combined.shown:
        return None
    return statuses.combined_status_record(combined, view,
                                           repos.repository_record(view, req.actor))


def _merge_values(web: Web, view, record: dict) -> dict:
    """The merge form's styles (those the repository allows), for writers of an open
    pull request."""
    base_repo = record["base"].get("repo") or {}
    settings = {**repos.MERGE_DEFAULTS,
                **{k: v for k, v in base_repo.items() if k in repos.MERGE_DEFAULTS}}
    styles = [(style, label) for style, label in MERGE_STYLES
              if settings.get(repos.MERGE_STYLE_SWITCH.get(style, ""), False)]
    can_merge = bool(view.can_write) and record["state"] == "open" and not record["merged"]
    return {"merge_styles": styles if can_merge else [],
            "default_style": settings.get("default_merge_style", "merge"),
            "form_csrf": web.csrf if can_merge else ""}


def reviewer_values(web: Web, read: PullRead, view) -> dict:
    """The reviewers form: for whoever may change the requests (the poster, the owner,
    collaborators, the organization's members who reach the pull requests; the rule
    behind repoCreatePullReviewRequests), teams on an organization's repository."""
    may = web.user is not None and reviews.can_change_review_requests(read.ctx, read.item)
    return {"can_request_reviews": may, "team_requests": is_org(view.owner),
            "reviewer_form": {}}


def conversation_values(req: ApiRequest, web: Web, view, number: int) -> dict:
    """Everything ``pull.html`` shows."""
    read = read_pull(req, view, number, head_statuses=True)
    record = read.record
    issue_ctx = issues.issue_context(caller(req), view)
    body_html, timeline, comments = conversation_view.conversation(
        req, issue_ctx, view, number, record, True, conversation_view.review_entries(read.listed))
    return {"title": f"{record['title']} #{record['number']}", "issue": record,
            "body_html": body_html, "comments": comments, "timeline": timeline,
            "reactions": conversation_view.reaction_badges(issue_ctx, number),
            "checks": _statuses(req, view, record["head"]["sha"]),
            **conversation_view.edit_values(web, issue_ctx, read.item, record),
            **reviewer_values(web, read, view), **_merge_values(web, view, record),
            **review_view.review_values(req, web, read.ctx, view, record, found=read.listed),
            **tab_values(view, read, "conversation"), **repo_values(req, view, "pulls")}


def commits_values(req: ApiRequest, web: Web, view, number: int) -> dict:
    """What ``pull_commits.html`` shows: the commits, oldest first."""
    read = read_pull(req, view, number)
    html = repos.repo_html_url(view)
    api = repos.repo_api_url(view.owner.login, view.repo.name)
    try:
        found = [contents.commit_record(c, html, api) for c in pulls.pull_commits(read.ctx,
                                                                                 read.item)]
    except NotFoundError:       # the head is unknown: nothing to list
        found = []
    return {"title": f"Commits · {read.record['title']} #{number}", "commits": found,
            **tab_values(view, read, "commits"), **repo_values(req, view, "pulls")}


def files_values(req: ApiRequest, web: Web, view, number: int, chosen: tuple) -> dict:
    """What ``pull_files.html`` shows: the diff with its code comments, the line
    ``chosen`` (path, signed line) with the comment form, the review panel."""
    read = read_pull(req, view, number)
    try:
        diff = pulls.pull_diff_or_patch(read.ctx, read.item, "diff").decode("utf-8", "replace")
    except NotFoundError:
        diff = ""
    return {"title": f"Files changed · {read.record['title']} #{number}", "chosen": chosen,
            **review_view.review_values(req, web, read.ctx, view, read.record,
                                        diff_text=diff[:present.MAX_SHOWN], found=read.listed),
            **tab_values(view, read, "files"), **repo_values(req, view, "pulls")}
