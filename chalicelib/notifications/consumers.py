"""Who is notified of what: the consumer of the domain events that writes threads.

As Forgejo's notifier does (``services/uinotification``), an event either notifies
everyone who follows the subject — the issue's subscribers, the repository's watchers
(for a pull request whose title starts with a work-in-progress prefix, only the
subscribers), and whoever took part — less the person who acted and those who
unsubscribed from the issue; or it notifies one person whatever they said (someone
mentioned, assigned, or asked for a review):

| event | followers | one person |
|---|---|---|
| issue or pull request opened | yes | each person mentioned in the body |
| closed, reopened, merged | yes | |
| assigned | | each assignee but the actor |
| comment created | yes | each person mentioned in the comment |
| review submitted | yes | |
| review requested | | the reviewer (a team's members, but the author) |
| release published | the repository's watchers and its owner (a user) | |
| a check's final status on a pull request's head | | the pull request's author |

Only people who may read the subject's unit (issues, pull requests, releases) get a
thread.  The poster of an issue, a commenter and a reviewer take part from then on
(a subscription that their own explicit choice overrides).

Each person has one thread per subject: new activity makes it unread again (a pinned
one stays pinned) and carries the newest subject fields.  The thread remembers the
event that last notified it, so a redelivered event (the consumer killed half-way and
retried) changes nobody's thread twice, and nobody gets two threads for one subject
(the subject link is claimed with a conditional put).  Whoever holds a thread but is
not notified still sees the subject's new title, state and latest comment.
"""
from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from chalicelib import accounts, clock, repos
from chalicelib import events as domain_events
from chalicelib.errors import ConditionFailed
from chalicelib.notifications import service, store
from chalicelib.notifications.states import ISSUE, PULL, RELEASE, UNREAD
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.notifications.models import Thread

log = logging.getLogger("nimbus.notifications")

EVENT_TYPES = (domain_events.IssueChanged, domain_events.IssueCommentChanged,
               domain_events.PullReviewChanged, domain_events.ReviewRequestChanged,
               domain_events.ReleaseChanged, domain_events.CommitStatusCreated)
FOLLOWED_ACTIONS = frozenset({"opened", "closed", "reopened", "merged"})
# A check's statuses that tell its outcome (GitHub's "CI activity" notifications; Forgejo
# has none): the author of a pull request hears how the checks of its head ended.
FINAL_STATES = frozenset({"success", "failure", "error"})
# Forgejo's work-in-progress prefixes (``[repository.pull-request] WORK_IN_PROGRESS_PREFIXES``).
WIP_PREFIXES = ("wip:", "[wip]")
MENTION = re.compile(r"(?<![\w.@/`])@([A-Za-z0-9](?:[\w.-]*[A-Za-z0-9_])?)")
UNITS = {ISSUE: "repo.issues", PULL: "repo.pulls", RELEASE: "repo.releases"}
# Why a person was notified (kept on the thread, shown as ``reason``).
SUBSCRIBED, PARTICIPATING, WATCHING = "subscribed", "participating", "watching"
MENTIONED, ASSIGNED, REVIEW_REQUESTED = "mention", "assign", "review_requested"
CHECKS = "ci_activity"


@dataclass
class Plan:
    """What one event does: its subject's fields, whether it goes to the followers,
    who gets it whatever they said (user id -> reason), and who now takes part."""
    source: str
    subject_id: int
    fields: dict
    followers: bool = False
    targeted: dict[int, str] = field(default_factory=dict)
    participant: int | None = None
    repo_watchers_too: bool = True


def wants_event(event: domain_events.Event) -> bool:
    if isinstance(event, domain_events.IssueChanged):
        return event.action in FOLLOWED_ACTIONS or event.action in ("assigned", "edited")
    if isinstance(event, domain_events.IssueCommentChanged):
        return event.action in ("created", "edited")
    if isinstance(event, domain_events.PullReviewChanged):
        return event.action == "submitted"
    if isinstance(event, domain_events.ReviewRequestChanged):
        return event.action == "review_requested"
    if isinstance(event, domain_events.ReleaseChanged):
        return event.action == "published"
    if isinstance(event, domain_events.CommitStatusCreated):
        return event.state in FINAL_STATES
    return False


def on_event(event: domain_events.Event) -> None:
    if isinstance(event, domain_events.CommitStatusCreated):
        plans = _check_plans(event)
    else:
        plans = [plan for plan in (plan_for(event),) if plan is not None]
    for plan in plans:
        deliver(event, plan)


# Plans ---------------------------------------------------------------------------------------

def _issue_fields(issue: dict, is_pull: bool) -> dict:
    state = str(issue.get("state") or "open")
    if is_pull and state == "closed":
        try:
            if json.loads(issue.get("pull") or "{}").get("merged"):
                state = "merged"
        except (TypeError, ValueError):
            pass
    return {"title": str(issue.get("title") or ""), "state": state,
            "number": int(issue.get("number") or 0)}


def _mentioned(text: str, actor_id: int | None) -> dict[int, str]:
    names = {m.group(1).lower() for m in MENTION.finditer(text or "")}
    if not names:
        return {}
    found = accounts.accounts_by_login(names)
    return {int(a.id): MENTIONED for a in found.values()
            if int(a.id) != (actor_id or 0) and not repos.is_org(a)}


def plan_for(event: domain_events.Event) -> Plan | None:
    actor = event.actor_id or 0
    if isinstance(event, (domain_events.IssueChanged, domain_events.IssueCommentChanged)):
        source = PULL if event.is_pull else ISSUE
        fields = _issue_fields(dict(event.issue), event.is_pull)
        plan = Plan(source, int(event.issue_id), fields)
        if isinstance(event, domain_events.IssueCommentChanged):
            plan.fields["latest_comment_id"] = int(event.comment_id)
            if event.action == "created":
                plan.followers, plan.participant = True, actor
                plan.targeted = _mentioned(str(event.comment.get("body") or ""), actor)
            return plan
        if event.action in FOLLOWED_ACTIONS:
            plan.followers = True
        if event.action == "opened":
            plan.participant = actor
            plan.targeted = _mentioned(str(event.issue.get("body") or ""), actor)
            title = fields["title"].lower()
            plan.repo_watchers_too = not (event.is_pull and title.startswith(WIP_PREFIXES))
        elif event.action == "assigned":
            plan.targeted = {int(i): ASSIGNED for i in event.issue.get("assignee_ids") or ()
                             if int(i) != actor}
        return plan
    if isinstance(event, domain_events.PullReviewChanged):
        plan = Plan(PULL, int(event.issue_id), _issue_fields(dict(event.issue), True),
                    followers=True, participant=actor)
        return plan
    if isinstance(event, domain_events.ReviewRequestChanged):
        plan = Plan(PULL, int(event.issue_id), _issue_fields(dict(event.issue), True))
        poster = int(event.issue.get("poster_id") or 0)
        if event.reviewer:
            reviewer = int(event.reviewer.get("id") or 0)
            if reviewer and reviewer != actor:
                plan.targeted = {reviewer: REVIEW_REQUESTED}
        elif event.team:
            from chalicelib import orgs

            members = orgs.list_team_members(int(event.team.get("id") or 0))
            plan.targeted = {int(m.user_id): REVIEW_REQUESTED for m in members
                             if int(m.user_id) not in (actor, poster)}
        return plan
    if isinstance(event, domain_events.ReleaseChanged):
        release = dict(event.release)
        return Plan(RELEASE, int(event.release_id),
                    {"title": str(release.get("title") or event.tag_name),
                     "release_tag": event.tag_name}, followers=True)
    return None


def _check_plans(event: domain_events.CommitStatusCreated) -> list[Plan]:
    """One plan per open pull request whose head the status is for: its author."""
    from chalicelib import pulls

    plans = []
    for issue in pulls.open_pulls_at(int(event.repo_id), event.sha):
        author = int(issue.poster_id)
        if author and author != (event.actor_id or 0):
            plans.append(Plan(PULL, int(issue.id),
                              _issue_fields(domain_events.snapshot(issue), True),
                              targeted={author: CHECKS}))
    return plans


# Delivery -------------------------------------------------------------------------------------

def deliver(event: domain_events.RepoEvent, plan: Plan) -> None:
    repo_id, actor = int(event.repo_id), event.actor_id or 0
    if plan.participant and plan.source in (ISSUE, PULL):
        service.take_part(plan.subject_id, repo_id, plan.participant)
    recipients = _followers(event, plan) if plan.followers else {}
    recipients.update(plan.targeted)
    recipients.pop(actor, None)
    recipients = _who_may_read(event, plan.source, recipients)
    repo = dict(event.repo)
    plan.fields.update(owner_id=int(repo.get("owner_id") or 0),
                       repo_owner=str(repo.get("owner_login") or ""),
                       repo_name=str(repo.get("name") or ""))
    links = {int(link.user_id): int(link.thread_id)
             for link in store.links_of(plan.source, plan.subject_id)}
    threads = {int(t.user_id): t for t in store.threads_by_id(links.values())}
    now = clock.now()
    for user_id, reason in sorted(recipients.items()):
        _notify(event, plan, user_id, reason, threads.get(user_id), now)
    for user_id, thread in threads.items():
        if user_id not in recipients:
            _refresh(thread, plan.fields)


def _followers(event: domain_events.RepoEvent, plan: Plan) -> dict[int, str]:
    repo_id = int(event.repo_id)
    if plan.source == RELEASE:
        found = {i: WATCHING for i in repos.repo_watcher_ids(repo_id)}
        owner = dict(event.repo).get("owner_id")
        owner_account = accounts.account_by_id(int(owner)) if owner else None
        if owner_account is not None and not repos.is_org(owner_account):
            found.setdefault(int(owner), WATCHING)
        return found
    said = store.subscriptions_of(plan.subject_id)
    found = {i: WATCHING for i in repos.repo_watcher_ids(repo_id)} \
        if plan.repo_watchers_too else {}
    for subscription in said:
        if subscription.watching:
            found[int(subscription.user_id)] = \
                PARTICIPATING if subscription.auto else SUBSCRIBED
    for subscription in said:
        if not subscription.watching:
            found.pop(int(subscription.user_id), None)
    return found


def _who_may_read(event: domain_events.RepoEvent, source: str,
                  recipients: dict[int, str]) -> dict[int, str]:
    if not recipients:
        return {}
    repo = repos.repo_by_id(int(event.repo_id))
    owner = accounts.account_by_id(int(repo.owner_id)) if repo is not None else None
    if repo is None or owner is None:
        return {}       # the repository is gone: nothing to read
    people = {int(a.id): a for a in accounts.accounts_by_ids(recipients)}
    unit = UNITS.get(source, "repo.code")
    return {user_id: reason for user_id, reason in recipients.items()
            if user_id in people and repos.repo_access(people[user_id], repo, owner, unit=unit)
            >= repos.Access.READ}


def _notify(event: domain_events.RepoEvent, plan: Plan, user_id: int, reason: str,
            thread: "Thread | None", now: float) -> None:
    for _ in range(3):              # a thread made meanwhile: notify that one instead
        try:
            with unit_of_work.writing():
                if thread is None:
                    store.stage_new(_new_thread(event, plan, user_id, reason, now))
                else:
                    store.stage_notify(thread, now=now, actor_id=event.actor_id or 0,
                                       reason=reason, event_id=event.event_id,
                                       fields=plan.fields)
            return
        except ConditionFailed as failed:
            if failed.label == store.NOTIFIED:
                return              # this event already did it (a redelivery)
            if failed.label != store.THREAD:
                raise
        link = store.link_of(plan.source, plan.subject_id, user_id)
        thread = store.thread_by_id(int(link.thread_id)) if link is not None else None
    log.warning("notification for user %s on %s %s not written after retries", user_id,
                plan.source, plan.subject_id)


def _new_thread(event: domain_events.RepoEvent, plan: Plan, user_id: int, reason: str,
                now: float) -> "Thread":
    return store.new_thread(user_id=user_id, repo_id=int(event.repo_id), source=plan.source,
                            subject_id=plan.subject_id, status=UNREAD, updated=now,
                            updated_by=event.actor_id or 0, reason=reason,
                            last_event=event.event_id, **plan.fields)


def _refresh(thread: "Thread", fields: dict) -> None:
    changed = {name: value for name, value in fields.items()
               if getattr(thread, name) != value}
    if changed:
        with unit_of_work.writing():
            store.stage_refresh(int(thread.id), changed)
