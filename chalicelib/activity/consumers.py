"""What goes in the feeds: the consumer of the domain events that writes activities.

As Forgejo's feed notifier does (``services/feed``), an event becomes one activity
with its op type, copied into the actor's feed and the repository owner's (the user's
or the organization's; once when they are the same); the owner's copy is also the
repository's feed, and an organization's activity is copied once more into the feed
of each team covering the repository (``covering_teams``).  The actor's contributions
are counted on their heatmap.

| event | op type | content |
|---|---|---|
| repository created, forked, migrated | ``create_repo`` | |
| push to a branch | ``commit_repo`` | Forgejo's push commits JSON |
| tag pushed | ``push_tag`` | the same, no commits |
| branch or tag deleted | ``delete_branch``, ``delete_tag`` | |
| issue or pull request opened | ``create_issue``, ``create_pull_request`` | ``<index>|<title>`` |
| closed, reopened | ``close_*``, ``reopen_*`` | ``<index>|`` |
| pull request merged | ``merge_pull_request`` | ``<index>|<title>`` |
| comment created | ``comment_issue``, ``comment_pull`` | ``<index>|<first 200 bytes>`` |
| release published | ``publish_release`` | the release's title |
| star, watch | ``star_repo``, ``watch_repo`` | |

Once each: the copies (the teams' too) are keyed by the event and put only if absent,
in one transaction with the heatmap count, so a redelivered event writes nothing.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass

from chalicelib import events as domain_events
from chalicelib.activity import states, store
from chalicelib.errors import ConditionFailed
from chalicelib.store import unit_of_work

log = logging.getLogger("nimbus.activity")

EVENT_TYPES = (domain_events.RepositoryCreated, domain_events.RepositoryForked,
               domain_events.RepositoryMigrated, domain_events.RepositoryPushed,
               domain_events.IssueChanged, domain_events.IssueCommentChanged,
               domain_events.ReleaseChanged, domain_events.RepoAccessChanged)
ZERO = "0" * 40
ISSUE_OPS = {("opened", False): states.CREATE_ISSUE,
             ("opened", True): states.CREATE_PULL_REQUEST,
             ("closed", False): states.CLOSE_ISSUE, ("closed", True): states.CLOSE_PULL_REQUEST,
             ("reopened", False): states.REOPEN_ISSUE,
             ("reopened", True): states.REOPEN_PULL_REQUEST,
             ("merged", True): states.MERGE_PULL_REQUEST}
ACCESS_OPS = {"star": states.STAR_REPO, "watch": states.WATCH_REPO}
# Forgejo's ``[ui] FEED_MAX_COMMIT_NUM`` and the length of a comment's excerpt.
FEED_MAX_COMMIT_NUM = 5
COMMENT_EXCERPT_BYTES = 200


@dataclass(frozen=True)
class Act:
    """What one event records."""
    op_type: str
    ref_name: str = ""
    content: str = ""
    comment_id: int = 0
    comment: str = ""
    is_pull: bool = False


def wants_event(event: domain_events.Event) -> bool:
    if isinstance(event, (domain_events.IssueChanged,)):
        return (event.action, bool(event.is_pull)) in ISSUE_OPS
    if isinstance(event, domain_events.IssueCommentChanged):
        return event.action == "created"
    if isinstance(event, domain_events.ReleaseChanged):
        return event.action == "published"
    if isinstance(event, domain_events.RepoAccessChanged):
        return event.kind in ACCESS_OPS and event.action == "added"
    if isinstance(event, domain_events.RepositoryPushed):
        return event.ref.startswith(("refs/heads/", "refs/tags/"))
    return isinstance(event, EVENT_TYPES)


def on_event(event: domain_events.Event) -> None:
    act = act_for(event)
    if act is not None:
        record(event, act)


# What an event records --------------------------------------------------------------------

def _index_title(issue: dict, title: bool = True) -> str:
    shown = str(issue.get("title") or "") if title else ""
    return f"{int(issue.get('number') or 0)}|{shown}"


def _excerpt(body: str) -> str:
    raw = body.encode("utf-8")
    if len(raw) <= COMMENT_EXCERPT_BYTES:
        return body
    return raw[:COMMENT_EXCERPT_BYTES].decode("utf-8", "ignore") + "…"


def act_for(event: domain_events.Event) -> Act | None:
    if not wants_event(event):
        return None
    if isinstance(event, (domain_events.RepositoryCreated, domain_events.RepositoryForked,
                          domain_events.RepositoryMigrated)):
        return Act(states.CREATE_REPO)
    if isinstance(event, domain_events.RepositoryPushed):
        return _push_act(event)
    if isinstance(event, domain_events.IssueChanged):
        op = ISSUE_OPS[(event.action, bool(event.is_pull))]
        issue = dict(event.issue)
        return Act(op, content=_index_title(issue, event.action in ("opened", "merged")),
                   is_pull=bool(event.is_pull))
    if isinstance(event, domain_events.IssueCommentChanged):
        comment = dict(event.comment)
        op = states.COMMENT_PULL if event.is_pull else states.COMMENT_ISSUE
        content = f"{int(event.number or dict(event.issue).get('number') or 0)}|" \
                  f"{_excerpt(str(comment.get('body') or ''))}"
        return Act(op, content=content, comment_id=int(event.comment_id),
                   comment=json.dumps(comment, sort_keys=True), is_pull=bool(event.is_pull))
    if isinstance(event, domain_events.ReleaseChanged):
        release = dict(event.release)
        return Act(states.PUBLISH_RELEASE, ref_name=event.tag_name,
                   content=str(release.get("title") or ""))
    if isinstance(event, domain_events.RepoAccessChanged):
        return Act(ACCESS_OPS[event.kind])
    return None


def _push_act(event: "domain_events.RepositoryPushed") -> Act:
    tag = event.ref.startswith("refs/tags/")
    if event.after == ZERO:
        return Act(states.DELETE_TAG if tag else states.DELETE_BRANCH, ref_name=event.ref)
    return Act(states.PUSH_TAG if tag else states.COMMIT_REPO, ref_name=event.ref,
               content=push_content(event, [] if tag else list(event.commits)))


def _push_commit(commit) -> dict:
    from chalicelib.http import formats

    return {"Sha1": commit.id, "Message": commit.message, "AuthorEmail": commit.author_email,
            "AuthorName": commit.author_name, "CommitterEmail": commit.committer_email,
            "CommitterName": commit.committer_name,
            "Timestamp": formats.rfc3339_offset(commit.timestamp, commit.tz_offset)}


def push_content(event: "domain_events.RepositoryPushed", commits: list) -> str:
    """Forgejo's PushCommits as JSON: the newest commits (at most FEED_MAX_COMMIT_NUM),
    the head commit, the compare path and how many commits the push brought."""
    from urllib.parse import quote

    repo = dict(event.repo)
    shown = [_push_commit(c) for c in commits[:FEED_MAX_COMMIT_NUM]]
    compare = ""
    if commits and event.before != ZERO:
        compare = (f"{quote(str(repo.get('owner_login') or ''), safe='')}/"
                   f"{quote(str(repo.get('name') or ''), safe='')}/compare/"
                   f"{event.before}...{event.after}")
    return json.dumps({"Commits": shown, "HeadCommit": shown[0] if shown else None,
                       "CompareURL": compare,
                       "Len": int(event.total_commits or len(commits))},
                      separators=(",", ":"), ensure_ascii=False)


# Recording -----------------------------------------------------------------------------------

def record(event: domain_events.RepoEvent, act: Act) -> None:
    repo = dict(event.repo)
    actor, owner = int(event.actor_id or 0), int(repo.get("owner_id") or 0)
    private = bool(repo.get("private"))
    activity_id = store.new_activity_id()
    when = float(event.occurred_at)
    values = dict(id=activity_id, op_type=act.op_type, act_user_id=actor,
                  repo_id=int(event.repo_id), owner_id=owner,
                  repo_owner=str(repo.get("owner_login") or ""),
                  repo_name=str(repo.get("name") or ""), ref_name=act.ref_name,
                  content=act.content, comment_id=act.comment_id, comment=act.comment,
                  is_pull=act.is_pull, is_private=private, created=when)
    copies = []
    if owner:
        copies.append(store.new_copy(event.event_id, owner, repo_feed=True, **values))
    if actor and actor != owner:
        copies.append(store.new_copy(event.event_id, actor, repo_feed=False, **values))
    heat = (actor, when, not private) if actor else None
    team_copies = [store.new_team_copy(event.event_id, team_id, user_id=owner, **values)
                   for team_id in covering_teams(owner, repo)] if owner else []
    try:
        with unit_of_work.writing():
            store.stage_recorded(copies, heat, event.event_id, team_copies)
    except ConditionFailed as failed:
        if failed.label != store.RECORDED:
            raise
        log.info("activity of event %s already recorded", event.event_id)


def covering_teams(owner_id: int, repo: dict) -> list[int]:
    """The teams whose feed shows an activity of the repository (Forgejo's team feed: the
    organization's activities in the team's repositories): those given the repository
    when it happened (its snapshot's ``team_ids``) and those that include every
    repository.  Written when the event is recorded: unlike Forgejo, which reads the
    team's repositories when it lists the feed, a repository given to the team later
    does not bring its earlier activities (the feed reads back only what the team still
    covers, ``service.team_covers``).  One Query of the owner's teams (a user's finds
    none); at most the organization's team count of copies, a handful in practice
    (Forgejo sets no limit; past DynamoDB's 100 items a transaction, see
    ``store.stage_recorded``)."""
    from chalicelib import orgs

    given = {int(team_id) for team_id in repo.get("team_ids") or ()}
    return sorted(int(team.id) for team in orgs.list_teams(int(owner_id))
                  if team.includes_all_repositories or int(team.id) in given)
