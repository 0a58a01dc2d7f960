"""Domain events -> the payloads Forgejo sends its webhooks, field for field.

Forgejo builds one payload per notification (``services/webhook/notifier.go``) from
``modules/structs/hook.go``'s structs; the records inside (User, Repository, Issue,
PullRequest, Comment) are the API's, so they come from the API's own builders
(``records``, ``issue_records``, ``pull_records``) over the records the event's
snapshots describe (``webhooks.sources``).  Who sees what follows Forgejo's
converters: the sender is a User as an anonymous viewer sees it (``ToUser(doer,
nil)``), a repository's owner as a signed-in stranger sees it when the permission
passed is not "none", and ``permissions`` is that permission (the poster's, the
doer's or the owner's, per notification, as Forgejo chooses them).

An event can make several payloads (an edit of title and body: two ``edited``; a fork:
``fork`` to the parent's hooks and ``repository`` to an organization's), or none
(Forgejo has no webhook for it).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from chalicelib import accounts, events, issues, pulls, repos
from chalicelib.http import formats
from chalicelib.repos import Access
from chalicelib.settings import get_settings
from chalicelib.webhooks import review_payloads as webhook_reviews
from chalicelib.webhooks import sources as webhook_sources

ZERO = "0" * 40
HEADS, TAGS = "refs/heads/", "refs/tags/"
# A new branch's push lists the commits before its tip, at most this many (Forgejo's
# CommitsBeforeLimit(10)).
NEW_BRANCH_COMMITS = 10

# HookEventType -> Event(): the X-*-Event header (modules/webhook/type.go).
COARSE = {
    "issue_assign": "issues", "issue_label": "issues", "issue_milestone": "issues",
    "pull_request_comment": "issue_comment", "pull_request_assign": "pull_request",
    "pull_request_label": "pull_request", "pull_request_milestone": "pull_request",
    "pull_request_sync": "pull_request", "pull_request_review_request": "pull_request",
    "pull_request_review_approved": "pull_request_approved",
    "pull_request_review_rejected": "pull_request_rejected",
    "pull_request_review_comment": "pull_request_comment", "package": "",
}

# IssueChanged action -> (event type suffix, whose permission the repository shows).
_ISSUE_ACTIONS = {
    "opened": ("", "poster"), "edited": ("", "poster"), "closed": ("", "poster"),
    "reopened": ("", "poster"), "assigned": ("_assign", "doer"),
    "unassigned": ("_assign", "doer"), "label_updated": ("_label", "poster"),
    "label_cleared": ("_label", "poster"), "milestoned": ("_milestone", "doer"),
    "demilestoned": ("_milestone", "doer"), "synchronized": ("_sync", "owner"),
    "merged": ("", "doer"), "review_requested": ("_review_request", "doer"),
    "review_request_removed": ("_review_request", "doer"),
}


def coarse(event_type: str) -> str:
    return COARSE.get(event_type, event_type)


@dataclass
class Payload:
    event_type: str               # X-Forgejo-Event-Type
    action: str
    data: dict                    # the payload object, fields in Forgejo's order
    repo: Any                     # whose hooks get it: this repository and its owner
    owner: Any
    branch: str | None = None     # the branch filters apply to this (pushes, create, delete)
    commits: int | None = None    # pushes: chat hooks get none without commits
    indent: str = "  "            # RepositoryPayload is written with one space

    @property
    def event(self) -> str:
        return coarse(self.event_type)


class _Builder:
    """Builds one event's payloads; caches what several of them share."""

    def __init__(self, event: events.RepoEvent):
        self.event = event
        self.src = webhook_sources.sources(event.repo, event.actor)
        self._signed = webhook_sources.account({"id": -1, "login": ""})

    # Records -----------------------------------------------------------------------------

    def sender(self) -> dict | None:
        actor = self.src.actor
        return accounts.user_record(actor, None) if actor is not None else None

    def repository(self, access: Access, repo=None, owner=None) -> dict:
        """ToRepo(repo, permission): the owner as a signed-in stranger sees it unless
        the permission is "none"; a fork names its parent."""
        view = self.src.view(access, repo, owner)
        viewer = self._signed if access > Access.NONE else None
        parent = None
        if view.repo.fork and view.repo.parent_id:
            found = webhook_sources.repo_by_id(int(view.repo.parent_id))
            if found is not None:
                parent = repos.repository_record(self.src.view(access, *found), viewer)
        return repos.repository_record(view, viewer, parent)

    def access(self, who: str, poster=None) -> Access:
        if who == "owner":
            return Access.OWNER
        return self.src.access_of(poster if who == "poster" else self.src.actor)

    def issue(self, item) -> dict:
        labels, milestones = self.tracker()
        entries = sorted(((int(i), labels[int(i)]) for i in item.label_ids or ()
                          if int(i) in labels), key=lambda kv: (kv[1].get("name", ""), kv[0]))
        milestone_id = int(item.milestone_id or 0)
        milestone = (milestone_id, milestones[milestone_id]) if milestone_id in milestones \
            else None
        assignees = [webhook_sources.account(a) for a in json.loads(item.assignees or "[]")]
        return issues.issue_record(item, self.src.view(), self.src.actor,
                                   poster=webhook_sources.account(item.poster),
                                   assignees=assignees, labels=entries,
                                   milestone_entry=milestone)

    def tracker(self):
        if not hasattr(self, "_tracker"):
            self._tracker = webhook_sources.tracker_entries(int(self.src.repo.id))
        return self._tracker

    def pull_request(self, item) -> dict:
        """ToAPIPullRequest(pr, doer): base and head repositories as the doer may see."""
        pull = pulls.pull_fields_of(item)
        base = self.repository(self.access("doer"))
        head = base
        if pull.head_repo_id and int(pull.head_repo_id) != int(self.src.repo.id):
            found = webhook_sources.repo_by_id(int(pull.head_repo_id))
            head = (self.repository(self.src.access_of(self.src.actor, *found), *found)
                    if found else None)
        merged_by = None
        if pull.merged and pull.merged_by:
            merged_by = accounts.user_record(webhook_sources.account(pull.merged_by), None)
        asked = pulls.requested_reviewers_record(pull, self.src.owner, None, webhook_sources.account)
        return pulls.pull_request_record(self.issue(item), item, pull,
                                         number=int(item.number), base_repo=base,
                                         head_repo=head, merged_by=merged_by, requested=asked)

    def commit(self, c: events.PushedCommit, names: dict[str, str]) -> dict:
        html = repos.repo_html_url(self.src.view())
        added, removed, modified = webhook_sources.file_status(self.src.repo, c.id)
        return {
            "id": c.id, "message": c.message, "url": f"{html}/commit/{c.id}",
            "author": accounts.payload_user(c.author_name, c.author_email,
                                           names.get(c.author_email.lower(), "")),
            "committer": accounts.payload_user(c.committer_name, c.committer_email,
                                              names.get(c.committer_email.lower(), "")),
            "verification": None,
            "timestamp": formats.rfc3339_offset(c.timestamp, c.tz_offset),
            "added": added, "removed": removed, "modified": modified,
        }

    def payload(self, event_type: str, action: str, body: dict[str, Any], **extra) -> Payload:
        return Payload(event_type, action, body, self.src.repo, self.src.owner, **extra)


# Per event ------------------------------------------------------------------------------------

def compare_path(owner: str, name: str, old: str, new: str) -> str:
    from urllib.parse import quote

    return f"{quote(owner, safe='')}/{quote(name, safe='')}/compare/{old}...{new}"


def push_payload(b: _Builder, ref: str, before: str, after: str,
                 listed: list[events.PushedCommit], total: int, compare: str,
                 head: events.PushedCommit | None) -> dict:
    limit = get_settings().webhook.PAYLOAD_COMMIT_LIMIT
    shown = listed[:limit]
    names = webhook_sources.usernames(
        e for c in [*shown, *([head] if head else [])] for e in (c.author_email, c.committer_email))
    commits = [b.commit(c, names) for c in shown]
    head_record = next((r for r in commits if head is not None and r["id"] == head.id), None)
    if head is not None and head_record is None:
        head_record = b.commit(head, names)
    sender = b.sender()
    return {"ref": ref, "before": before, "after": after,
            "compare_url": get_settings().app_url + compare, "commits": commits,
            "total_commits": total, "head_commit": head_record,
            "repository": b.repository(Access.OWNER), "pusher": sender, "sender": sender}


def _push(b: _Builder, e: events.RepositoryPushed) -> list[Payload]:
    repo = b.src.repo
    owner, name = b.src.owner.login, repo.name
    if e.ref.startswith(TAGS):
        if e.after == ZERO:            # a deleted tag: a push without commits (and delete)
            data = push_payload(b, e.ref, e.before, ZERO, [], 0, "", None)
        else:                          # a new tag: its commit as head, no commits
            data = push_payload(b, e.ref, ZERO, e.after, [], 0,
                                compare_path(owner, name, ZERO, e.after),
                                webhook_sources.commit_at(repo, e.after))
        return [b.payload("push", "", data, commits=0)]
    if not e.ref.startswith(HEADS) or e.after == ZERO:
        return []                      # a deleted branch sends delete only
    branch = e.ref[len(HEADS):]
    listed = list(e.commits)
    if e.before == ZERO:               # a new branch: the commits before its tip
        listed, total = listed[:NEW_BRANCH_COMMITS], min(len(listed), NEW_BRANCH_COMMITS)
        old = webhook_sources.first_parent(repo, listed[-1].id) if listed else None
        if old is None and repo.default_branch != branch:
            old = repo.default_branch
        compare = compare_path(owner, name, old, e.after) if old else ""
    else:
        total, compare = e.total_commits, compare_path(owner, name, e.before, e.after)
    head = next((c for c in listed if c.id == e.after), None) or \
        webhook_sources.commit_at(repo, e.after)
    data = push_payload(b, e.ref, e.before, e.after, listed, total, compare, head)
    return [b.payload("push", "", data, branch=branch, commits=len(data["commits"]))]


def _ref(b: _Builder, e, created: bool) -> list[Payload]:
    full = (HEADS if e.ref_type == "branch" else TAGS) + e.ref
    branch = e.ref if e.ref_type == "branch" else None
    if created:
        data = {"sha": e.sha, "ref": full, "ref_type": e.ref_type,
                "repository": b.repository(Access.NONE), "sender": b.sender()}
        return [b.payload("create", "", data, branch=branch)]
    data = {"ref": full, "ref_type": e.ref_type, "pusher_type": "user",
            "repository": b.repository(Access.OWNER), "sender": b.sender()}
    return [b.payload("delete", "", data, branch=branch)]


def _repository(b: _Builder, action: str) -> Payload:
    data = {"action": action, "repository": b.repository(Access.OWNER),
            "organization": accounts.user_record(b.src.owner, None), "sender": b.sender()}
    return b.payload("repository", action, data, indent=" ")


def _fork(b: _Builder, e: events.RepositoryForked) -> list[Payload]:
    parent = webhook_sources.repo_from(e.parent)
    found = webhook_sources.repo_by_id(int(e.parent_id)) if e.parent_id else None
    parent_owner = found[1] if found else None
    made: list[Payload] = []
    if parent is not None and parent_owner is not None:
        data = {"forkee": b.repository(b.src.access_of(b.src.actor, parent, parent_owner),
                                       parent, parent_owner),
                "repository": b.repository(b.access("doer")), "sender": b.sender()}
        made.append(Payload("fork", "", data, parent, parent_owner))
    if b.src.owner is not None and b.src.owner.account_type == "org":
        made.append(_repository(b, "created"))
    return made


def _changes(e: events.IssueChanged) -> list[dict | None]:
    """One ``changes`` per field an edit changed (Forgejo notifies each separately)."""
    if e.action != "edited":
        return [None]
    return [{name: {"from": before or ""}} for name, before in e.changes
            if name in ("title", "body", "ref")]


def _issue(b: _Builder, e: events.IssueChanged) -> list[Payload]:
    spec = _ISSUE_ACTIONS.get(e.action)
    item = webhook_sources.issue_from(e.issue)
    if spec is None or item is None or (e.action == "merged" and not e.is_pull):
        return []
    suffix, who = spec
    poster = webhook_sources.account(item.poster)
    access = b.access(who, poster)
    if e.is_pull and e.action == "label_updated":
        access = Access.OWNER       # Forgejo passes the owner's mode here, for pulls only
    action = "closed" if e.action == "merged" else e.action
    made = []
    for changes in _changes(e):
        if e.is_pull:
            data = {"action": action, "number": int(item.number)}
            if changes:
                data["changes"] = changes
            data.update({"pull_request": b.pull_request(item), "requested_reviewer": None,
                         "repository": b.repository(access), "sender": b.sender(),
                         "commit_id": "", "review": None})
            made.append(b.payload("pull_request" + suffix, action, data))
        else:
            data = {"action": action, "number": int(item.number)}
            if changes:
                data["changes"] = changes
            data.update({"issue": b.issue(item), "repository": b.repository(access),
                         "sender": b.sender(), "commit_id": ""})
            # HookEventIssues is "issues"; its finer kinds are "issue_label", ...
            made.append(b.payload("issue" + suffix if suffix else "issues", action, data))
    return made


def _comment(b: _Builder, e: events.IssueCommentChanged) -> list[Payload]:
    item, comment = webhook_sources.issue_from(e.issue), webhook_sources.comment_from(e.comment)
    if item is None or comment is None or e.action not in ("created", "edited", "deleted"):
        return []
    data: dict = {"action": e.action, "issue": b.issue(item)}
    if e.is_pull:
        data["pull_request"] = b.pull_request(item)
    data["comment"] = issues.comment_record(comment, b.src.view(), None,
                                            poster=webhook_sources.account(comment.poster),
                                            is_pull=e.is_pull)
    if e.action == "edited":
        data["changes"] = {"body": {"from": e.body_before}}
    data.update({"repository": b.repository(b.access("doer")), "sender": b.sender(),
                 "is_pull": bool(e.is_pull)})
    return [b.payload("pull_request_comment" if e.is_pull else "issue_comment", e.action, data)]


def _status(b: _Builder, e: events.CommitStatusCreated) -> list[Payload]:
    """Gitea's CommitStatusPayload (Forgejo sends none): only hooks that subscribe to
    ``status`` receive it."""
    commit = webhook_sources.commit_at(b.src.repo, e.sha)
    names = webhook_sources.usernames([commit.author_email, commit.committer_email]) \
        if commit else {}
    created = formats.rfc3339(e.occurred_at)
    data = {"commit": b.commit(commit, names) if commit else None, "context": e.context,
            "created_at": created, "description": e.description, "id": int(e.status_id),
            "repository": b.repository(Access.OWNER), "sender": b.sender(), "sha": e.sha,
            "state": e.state, "target_url": e.target_url, "updated_at": created}
    return [b.payload("status", e.state, data)]


def _release(b: _Builder, e) -> list[Payload]:
    from chalicelib.webhooks import release_payloads as webhook_releases

    release = webhook_releases.release_record(e, b.src.view())
    data = {"action": e.action, "release": release,
            "repository": b.repository(b.access("doer")), "sender": b.sender()}
    return [b.payload("release", e.action, data)]


def payloads(event: events.Event) -> list[Payload]:
    """The webhook payloads ``event`` makes (none for events Forgejo sends no hook for)."""
    if not isinstance(event, events.RepoEvent) or not event.repo:
        return []
    b = _Builder(event)
    if b.src.repo is None or b.src.owner is None:
        return []
    if isinstance(event, events.RepositoryPushed):
        return _push(b, event)
    if isinstance(event, events.RefCreated):
        return _ref(b, event, True)
    if isinstance(event, events.RefDeleted):
        return _ref(b, event, False)
    if isinstance(event, events.RepositoryForked):
        return _fork(b, event)
    if isinstance(event, (events.RepositoryCreated, events.RepositoryMigrated)):
        return [_repository(b, "created")]
    if isinstance(event, events.RepositoryDeleted):
        return [_repository(b, "deleted")]
    if isinstance(event, events.IssueChanged):
        return _issue(b, event)
    if isinstance(event, events.IssueCommentChanged):
        return _comment(b, event)
    if isinstance(event, events.CommitStatusCreated):
        return _status(b, event)
    if type(event).__name__ == "ReleaseChanged":
        return _release(b, event)
    if isinstance(event, events.PullReviewChanged):
        return webhook_reviews.review_payloads(b, event)
    if isinstance(event, events.ReviewRequestChanged):
        return webhook_reviews.request_payloads(b, event)
    return []


def test_push(repo_snapshot: dict, actor_snapshot: dict, ref: str,
              commit: events.PushedCommit) -> Payload:
    """repoTestHook's payload: a push of one commit (Forgejo's PrepareTestWebhook):
    ``before`` and ``after`` both the commit, ``commits`` and ``head_commit`` it, file
    lists null, and the repository with "none" permissions."""
    b = _Builder(events.RepoEvent(actor_id=None, actor=actor_snapshot, repo=repo_snapshot))
    owner, name = b.src.owner.login, b.src.repo.name
    names = webhook_sources.usernames([commit.author_email, commit.committer_email])
    record = b.commit(commit, names)
    record.update(added=None, removed=None, modified=None)
    sender = b.sender()
    data = {"ref": ref, "before": commit.id, "after": commit.id,
            "compare_url": get_settings().app_url + compare_path(owner, name, commit.id,
                                                                 commit.id),
            "commits": [record], "total_commits": 1, "head_commit": record,
            "repository": b.repository(Access.NONE), "pusher": sender, "sender": sender}
    return b.payload("push", "", data, commits=1)
