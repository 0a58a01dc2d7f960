"""What a webhook payload is made from, for the delivery consumer: the records an
event's snapshots describe (rebuilt, not read), the few current facts a payload needs
that an event does not carry (the repository owner's account, labels and milestones,
the caller's access mode), and what git says about pushed commits (the files each one
added, removed and modified, the parent a compare link starts from).

Everything here runs in the events-queue consumer, never on a request's path: the reads
cost the request nothing.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping

from chalicelib import accounts, issues, repos
from chalicelib.events import PushedCommit
from chalicelib.repos import Access, RepoView, repo_access
from chalicelib.webhooks import snapshots

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.issues import Comment, Issue
    from chalicelib.repos import Repo

ZERO = "0" * 40


@dataclass
class Sources:
    """One event's records: its repository (as the event saw it) and owner, the actor."""
    repo: Repo | None
    owner: Account | None
    actor: Account | None

    def view(self, access: Access = Access.OWNER, repo: Repo | None = None,
             owner: Account | None = None) -> RepoView:
        return RepoView(repo or self.repo, owner or self.owner, access)

    def access_of(self, account: Account | None, repo: Repo | None = None,
                  owner: Account | None = None) -> Access:
        """``account``'s mode on the repository (Forgejo's GetUserRepoPermission)."""
        if account is None:
            return Access.NONE
        return repo_access(account, repo or self.repo, owner or self.owner)


def account(snapshot: Mapping | str | None) -> Account | None:
    """An account from a snapshot (a mapping or, as issues keep them, JSON text)."""
    if isinstance(snapshot, str):
        snapshot = json.loads(snapshot or "{}")
    return snapshots.account(snapshot or {})


def sources(repo_snapshot: Mapping, actor_snapshot: Mapping) -> Sources:
    repo = snapshots.repo(repo_snapshot)
    owner = owner_of(repo) if repo is not None else None
    return Sources(repo, owner, account(actor_snapshot))


def owner_of(repo: Repo) -> Account | None:
    """The owner as stored now (a repository snapshot names it but does not hold it)."""
    owner = accounts.account_by_id(int(repo.owner_id))
    if owner is None:   # deleted meanwhile: what the repository remembers of it
        owner = snapshots.account({"id": int(repo.owner_id), "login": repo.owner_login})
    return owner


def repo_by_id(repo_id: int) -> tuple[Repo, Account] | None:
    repo = repos.repo_by_id(repo_id)
    if repo is None:
        return None
    owner = owner_of(repo)
    return (repo, owner) if owner is not None else None


def repo_from(snapshot: Mapping) -> Repo | None:
    return snapshots.repo(snapshot)


def issue_from(snapshot: Mapping) -> Issue | None:
    return snapshots.issue(snapshot)


def comment_from(snapshot: Mapping) -> Comment | None:
    return snapshots.comment(snapshot)


def tracker_entries(repo_id: int) -> tuple[dict[int, dict], dict[int, dict]]:
    """The repository's labels and milestones as they are now, by id."""
    tracker = issues.get_tracker(repo_id)
    return tracker.labels, tracker.milestones


def usernames(emails: Iterable[str]) -> dict[str, str]:
    """Logins of the accounts owning these e-mail addresses (lower case)."""
    wanted = {e.lower() for e in emails if e}
    return {email: found.login for email, found in accounts.accounts_by_email(wanted).items()}


# --- git ----------------------------------------------------------------------------------

def _git(repo: Repo):
    from chalicelib import contents

    return contents.open_git(repo)


def file_status(repo: Repo, sha: str) -> tuple[list[str], list[str], list[str]]:
    """Files the commit added, removed and modified against its first parent, as
    ``git log --name-status`` lists them (no rename detection)."""
    from chalicelib.gitops.diff import commit_stats

    try:
        stats = commit_stats(_git(repo).object_store, sha)
    except (KeyError, ValueError):
        return [], [], []
    added, removed, modified = [], [], []
    for change in stats.files:
        {"added": added, "deleted": removed}.get(change.status, modified).append(change.path)
    return added, removed, modified


def first_parent(repo: Repo, sha: str) -> str | None:
    try:
        commit = _git(repo).object_store[sha.encode()]
    except KeyError:
        return None
    parents = getattr(commit, "parents", None) or []
    return parents[0].decode() if parents else None


def commit_at(repo: Repo, sha: str) -> PushedCommit | None:
    """The commit ``sha`` names (an annotated tag is peeled), as a push event carries it."""
    from chalicelib.contents import commit_fields

    git = _git(repo)
    try:
        obj = git.object_store[sha.encode()]
        while obj.type_name == b"tag":
            obj = git.object_store[obj.object[1]]
    except KeyError:
        return None
    if obj.type_name != b"commit":
        return None
    f = commit_fields(obj)
    return PushedCommit(id=f["commit_id"], message=f["message"], author_name=f["author_name"],
                        author_email=f["author_email"], committer_name=f["committer_name"],
                        committer_email=f["committer_email"], timestamp=f["author_time"],
                        tz_offset=f["author_tz"])


def head_commit(repo: Repo, branch: str) -> PushedCommit | None:
    """The tip of ``branch`` (the test delivery's commit)."""
    git = _git(repo)
    try:
        sha = git.refs[f"refs/heads/{branch}".encode()].decode()
    except KeyError:
        return None
    return commit_at(repo, sha)


def resolve_ref(repo: Repo, ref: str) -> str | None:
    """A branch, tag or commit id (``?ref=`` of the test delivery) as a commit id."""
    from chalicelib import contents
    from chalicelib.errors import NotFoundError

    try:
        return contents.resolve_ref(_git(repo), repo, ref).decode()
    except NotFoundError:
        return None
