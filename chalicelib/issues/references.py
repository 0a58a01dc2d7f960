"""Issue references, as Forgejo handles them (``services/issue/commit.go``,
``models/issues/issue_xref.go``, ``services/pull/merge.go``), from the events queue.

- **Commits** of a push (``RepositoryPushed``), oldest first, actor the pusher: each
  issue or pull request a message names gets a ``commit_ref`` if the pusher may read it.
  A close or reopen keyword acts on an issue (never a pull request) when the pusher may
  write its issues or posted it, and the push went to the branch the issue names in its
  ``ref`` or, without one, to the pushed repository's default branch.
- **Issues and pull requests** (``IssueChanged`` opened/edited: title and Markdown
  body) leave an ``issue_ref`` / ``pull_ref`` on each issue they name, **comments**
  (``IssueCommentChanged`` created/edited) a ``comment_ref``.  Within the repository
  the author needs nothing more; elsewhere (and from a comment) read access, and a
  keyword counts only with write access.  Only a pull request's keywords naming an
  issue count at all; nothing references itself.
- **A merged pull request** (``IssueChanged`` merged, actor the merger) closes or
  reopens the issues its title and body name with a keyword, where the merger may
  write issues; its reference is written too if the open/edit event has not yet.

Once each: a reference is keyed by (source, issue) and put only if absent; a close or
reopen is one transaction with the issue (through ``issues.mutate``, the API's own
path, raising ``IssueChanged`` closed/reopened for webhooks) and the reference's
``resolved`` mark, conditional on that mark's absence.  A redelivered event, or a
merge and the merge commit's push both naming an issue, therefore write one reference
per source and close once; an issue already in the wanted state is left alone.
"""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chalicelib import accounts, clock, contents, events, repos
from chalicelib.errors import ConditionFailed, DependenciesLeft
from chalicelib.gitstore import refdb
from chalicelib.issues import reference_parser as parser
from chalicelib.issues import reference_store as store
from chalicelib.issues import service as issues
from chalicelib.issues import store as issue_store
from chalicelib.issues.context import ISSUES_UNIT, PULLS_UNIT, Ctx, snapshot
from chalicelib.repos import Access, Caller, RepoView, repo_access

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.issues.store import Issue
    from chalicelib.repos import Repo

log = logging.getLogger("nimbus.references")
HEADS = "refs/heads/"
# A push's event carries its newest 20 commits; past that the rest are read from git,
# up to this many (Forgejo reads them all; this bounds one event's work).
MAX_PUSH_COMMITS = 500


@dataclass
class Target:
    repo: Repo
    owner: Account
    issue: Issue

    def access(self, actor: Account | None) -> Access:
        unit = PULLS_UNIT if self.issue.is_pull else ISSUES_UNIT
        return repo_access(actor, self.repo, self.owner, unit=unit)


class _Unchanged(Exception):
    """The issue is already in the state a keyword asks for: nothing to write."""


# Entry points (issues/consumers.py) -----------------------------------------------------

def on_push(event: events.RepositoryPushed) -> None:
    if not event.ref.startswith(HEADS) or refdb.is_zero(event.after) or not event.actor_id:
        return
    repo = repos.repo_by_id(int(event.repo_id))
    actor = accounts.account_by_id(int(event.actor_id))
    # A mirror's sync brings someone else's history: Forgejo reads no references from it.
    if repo is None or repo.mirror or actor is None:
        return
    branch = event.ref[len(HEADS):]
    for sha, message in reversed(_pushed(repo, event)):
        _from_commit(repo, actor, branch, sha, message)


def on_text(event: events.IssueChanged) -> None:
    """An issue or pull request was opened, or its title or body edited."""
    source = _source(event)
    if source is None:
        return
    repo, actor, item = source
    is_pull = bool(item.get("is_pull"))
    for target, action in _text_targets(repo, item):
        if int(target.repo.id) != int(repo.id):
            action = _action_allowed(target, actor, action)
            if action is None:
                continue
        _add_text_reference(repo, actor, item, target, action, is_pull)


def _action_allowed(target, actor, action):
    """What ``actor`` may do to ``target`` of ``action``: nothing (None) without read
    access, a plain reference (``parser.NONE``) without write access (Forgejo's rule)."""
    access = target.access(actor)
    if access < Access.READ:
        return None
    return action if access >= Access.WRITE else parser.NONE


def on_merged(event: events.IssueChanged) -> None:
    source = _source(event)
    if source is None:
        return
    repo, actor, item = source
    for target, action in _text_targets(repo, item):
        action = _action_allowed(target, actor, action)
        if action is None:
            continue
        _add_text_reference(repo, actor, item, target, action, True)
        if action != parser.NONE:
            _act(target, actor, store.issue_source(int(repo.id), int(item["id"])), action,
                 commit_sha=_merge_commit(item))


def on_comment(event: events.IssueCommentChanged) -> None:
    source = _source(event)
    if source is None:
        return
    repo, actor, item = source
    comment = dict(event.comment or {})
    if not comment.get("id"):
        return
    is_pull = bool(item.get("is_pull"))
    for ref in parser.find_in_markdown(str(comment.get("body") or "")):
        target = _resolve(repo, ref)
        if target is None or int(target.issue.id) == int(item["id"]):
            continue
        access = target.access(actor)
        if access < Access.READ:
            continue
        acts = is_pull and not target.issue.is_pull and access >= Access.WRITE
        _add(target, store.comment_source(int(repo.id), int(comment["id"])), actor,
             comment_type="comment_ref", ref_repo_id=int(repo.id),
             ref_issue_id=int(item["id"]), ref_issue_number=int(item["number"]),
             ref_comment_id=int(comment["id"]), ref_is_pull=is_pull,
             ref_action=ref.action if acts else parser.NONE)


# Commits ------------------------------------------------------------------------------------

def _pushed(repo: Repo, event: events.RepositoryPushed) -> list[tuple[str, str]]:
    """(sha, message) of the push's new commits, newest first."""
    listed = [(c.id, c.message) for c in event.commits]
    if event.total_commits <= len(listed):
        return listed
    git = contents.open_git(repo)
    exclude = [] if refdb.is_zero(event.before) else [event.before.encode()]
    walker = git.get_walker(include=[event.after.encode()], exclude=exclude,
                            max_entries=MAX_PUSH_COMMITS)
    return [(entry.commit.id.decode(), entry.commit.message.decode("utf-8", "replace"))
            for entry in walker]


def _from_commit(repo: Repo, actor: Account, branch: str, sha: str, message: str) -> None:
    seen: set[tuple[int, str]] = set()
    for ref in parser.find(message):
        target = _resolve(repo, ref)
        if target is None or (int(target.issue.id), ref.action) in seen:
            continue
        seen.add((int(target.issue.id), ref.action))
        access = target.access(actor)
        can_close = access >= Access.WRITE or int(target.issue.poster_id) == int(actor.id)
        if not can_close and access < Access.READ:
            continue
        source = store.commit_source(sha)
        _add(target, source, actor, comment_type="commit_ref", ref_repo_id=int(repo.id),
             ref_action=ref.action, commit_sha=sha, content=message.split("\n", 1)[0])
        if target.issue.is_pull or not can_close or ref.action == parser.NONE:
            continue
        if _closes_from(repo, branch, target.issue):
            _act(target, actor, source, ref.action, commit_sha=sha)


def _closes_from(repo: Repo, branch: str, issue: Issue) -> bool:
    """An issue that names a branch is closed from that branch only; others from the
    pushed repository's default branch."""
    if issue.ref:
        return branch == issue.ref.removeprefix(HEADS)
    return branch == repo.default_branch


# Issues and pull requests -------------------------------------------------------------------

def _source(event) -> tuple[Repo, Account | None, dict] | None:
    repo = repos.repo_by_id(int(event.repo_id))
    item = dict(event.issue or {})
    if repo is None or not item.get("id"):
        return None
    actor = accounts.account_by_id(int(event.actor_id)) if event.actor_id else None
    return repo, actor, item


def _text_targets(repo: Repo, item: dict) -> list[tuple[Target, str]]:
    """What a title and body name, one entry per issue (a later keyword wins over an
    earlier plain mention), itself left out; keywords count from a pull request to an
    issue only."""
    refs = parser.find(str(item.get("title") or "")) + \
        parser.find_in_markdown(str(item.get("body") or ""))
    found: dict[int, tuple[Target, str]] = {}
    for ref in refs[:parser.MAX_REFERENCES]:
        target = _resolve(repo, ref)
        if target is None or int(target.issue.id) == int(item["id"]):
            continue
        action = ref.action if item.get("is_pull") and not target.issue.is_pull \
            else parser.NONE
        known = found.get(int(target.issue.id))
        if known is None or action != parser.NONE:
            found[int(target.issue.id)] = (target, action)
    return list(found.values())


def _add_text_reference(repo: Repo, actor: Account | None, item: dict, target: Target,
                        action: str, is_pull: bool) -> None:
    _add(target, store.issue_source(int(repo.id), int(item["id"])), actor,
         comment_type="pull_ref" if is_pull else "issue_ref", ref_repo_id=int(repo.id),
         ref_issue_id=int(item["id"]), ref_issue_number=int(item["number"]),
         ref_is_pull=is_pull, ref_action=action)


# Shared ---------------------------------------------------------------------------------------

def _resolve(repo: Repo, ref: parser.Reference) -> Target | None:
    target_repo = repo if ref.is_local else repos.repo_by_name(ref.owner, ref.name)
    if target_repo is None:
        return None
    owner = accounts.account_by_id(int(target_repo.owner_id))
    issue = issue_store.get_issue(int(target_repo.id), ref.number, consistent=True)
    if owner is None or issue is None:
        return None
    return Target(target_repo, owner, issue)


def _add(target: Target, source: str, actor: Account | None, **fields) -> None:
    repo_id, number = int(target.repo.id), int(target.issue.number)
    if store.get(repo_id, number, source) is not None:
        return      # read first: a redelivery costs a read, not an id and a refused write
    store.add(store.new_reference(
        target.issue, source, clock.seconds(), poster_id=int(actor.id) if actor else 0,
        poster=issue_store.dumps(snapshot(actor)) if actor else "{}", **fields))


def _merge_commit(item: dict) -> str:
    """The merge commit of a merged pull request's snapshot: the commit its close names."""
    try:
        return str(json.loads(item.get("pull") or "{}").get("merge_commit_sha") or "")
    except (TypeError, ValueError):
        return ""


def _act(target: Target, actor: Account, source: str, action: str, *,
         commit_sha: str = "") -> bool:
    """Close or reopen the issue for ``source``, once; False when nothing was written.
    The issue's timeline gets its ``close`` naming ``commit_sha`` in the same transaction."""
    wanted = "closed" if action == parser.CLOSES else "open"
    if target.issue.state == wanted:
        return False
    ctx = Ctx(RepoView(target.repo, target.owner, repo_access(actor, target.repo, target.owner)),
              Caller(actor), target.access(actor))
    edit = issues.IssueEdit(state=wanted)
    repo_id, number = int(target.repo.id), int(target.issue.number)

    def change(old: Issue, new: Issue, tracker) -> None:
        if old.state == wanted:
            raise _Unchanged()
        edit.apply(old, new, tracker)
        store.stage_resolve(repo_id, number, source, action, clock.seconds())

    try:
        issues.mutate(ctx, number, change, lambda old, new: issues.edit_events(ctx, old, new),
                      commit_sha=commit_sha if action == parser.CLOSES else "")
    except _Unchanged:
        return False
    except DependenciesLeft:
        # Forgejo leaves an issue with open dependencies open, whatever closes it.
        log.info("reference %s cannot close issue %s#%s: open dependencies", source, repo_id,
                 number)
        return False
    except ConditionFailed as failed:
        if failed.label != store.LABEL:
            raise
        log.info("reference %s already %s issue %s#%s", source, action, repo_id, number)
        return False
    return True

