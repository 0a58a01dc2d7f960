"""A repository's commits (Forgejo's ``repoGetAllCommits``, ``repoGetSingleCommit`` and
``repoDownloadCommitDiffOrPatch``), read from the object store.

Counting (X-Total-Count): Forgejo counts the whole history (``git rev-list --count``).
Walking a 10,000-commit history for the first page would cost far more than the page
itself, so the count is lazy and bounded: the walk goes on past the page for at most
COUNT_AHEAD more commits.  When the history ends within that, the total is exact;
otherwise the total is what was seen (the page's end plus COUNT_AHEAD), so clients
still get a ``next`` link and the count grows as they page on.  The walk reads packs
the request has already fetched, so it costs no AWS calls, only CPU time bounded by
``offset + limit + COUNT_AHEAD`` commits.  (The alternative, a commit count stored on
the branch record at push time, would need every ref update to count commits, and
would not serve ``path``/``since``/``until`` filters or tags and commit ids.)
"""
from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from chalicelib.contents import files as repo_files
from chalicelib.errors import ConflictError, InvalidInput, NotFoundError

if TYPE_CHECKING:
    from chalicelib.repos import Caller, Repo, RepoView

COUNT_AHEAD = 1000


@dataclass(frozen=True)
class CommitQuery:
    sha: str = ""            # branch, tag or commit id; the default branch if empty
    path: str = ""           # only commits touching this path
    since: int | None = None  # unix seconds (committer time), inclusive
    until: int | None = None  # unix seconds (committer time), inclusive
    not_sha: str = ""        # leave out commits reachable from this ref (``git log --not``)


@dataclass(frozen=True)
class CommitPage:
    commits: list
    total: int
    git: object


def parse_time(raw: str | None, what: str) -> int | None:
    """An RFC 3339 time (Forgejo's ``since``/``until``) as unix seconds."""
    if not raw:
        return None
    try:
        return int(datetime.fromisoformat(raw.replace("Z", "+00:00")).timestamp())
    except ValueError:
        raise InvalidInput(f"{what}: invalid time {raw!r}") from None


def list_commits(repo: Repo, query: CommitQuery, offset: int, limit: int, *,
                 git=None) -> CommitPage:
    """The commits reachable from the query's ref, newest first (a page of them), and
    the bounded total described above.  ``git``: the repository the caller opened."""
    from dulwich.walk import Walker

    if repo.empty:
        raise ConflictError("Git Repository is empty")    # Forgejo answers 409 here
    head, git = get_commit(repo, query.sha or None, git=git)
    head = head.id
    paths = [query.path.strip("/").encode()] if query.path.strip("/") else None
    exclude = [_commit_in(git, repo, query.not_sha).id] if query.not_sha else None
    walker = Walker(git.object_store, include=[head], exclude=exclude, paths=paths,
                    since=query.since, until=query.until,
                    max_entries=offset + limit + COUNT_AHEAD)
    found, seen = [], 0
    for entry in walker:
        if offset <= seen < offset + limit:
            found.append(entry.commit)
        seen += 1
    return CommitPage(found, seen, git)


def get_commit(repo: Repo, sha: str | None, *, git=None):
    """(the commit a ref or (short) id names, the open repository)."""
    git = git if git is not None else repo_files.open_git(repo)
    return _commit_in(git, repo, sha), git


def count_commits(git, head: str, limit: int = COUNT_AHEAD) -> tuple[int, bool]:
    """How many commits ``head`` (a commit id) reaches, counting at most ``limit``:
    (the count, whether the history goes on past it).  Reads packs already loaded."""
    from dulwich.walk import Walker

    seen = sum(1 for _ in Walker(git.object_store, include=[head.encode()],
                                 max_entries=limit + 1))
    return min(seen, limit), seen > limit


def _commit_in(git, repo: Repo, sha: str | None):
    from dulwich.objects import Commit

    found = git[repo_files.resolve(git, repo, sha)]
    if not isinstance(found, Commit):
        raise NotFoundError(f"object {sha} is not a commit")
    return found


def identity_email(raw: bytes) -> str:
    """The lower-case e-mail of a git identity ``Name <email>``."""
    _, _, email = raw.decode("utf-8", "replace").partition("<")
    return email.rstrip(">").strip().lower()


def linked_accounts(commits) -> dict:
    """The users owning the author and committer e-mails of these commits, by lower-case
    address: the e-mail claims in one batched read and their accounts in another, for a
    whole page (Forgejo links a commit's users by e-mail).  Organizations' addresses
    link nobody, as in Forgejo, whose e-mail table holds users' addresses only; a
    no-reply address (``login@<[service] NO_REPLY_ADDRESS>``) links its user."""
    from chalicelib import accounts
    from chalicelib.settings import get_settings

    emails = {identity_email(raw) for c in commits for raw in (c.author, c.committer)}
    suffix = "@" + get_settings().no_reply_address.lower()
    logins = {e: e[:-len(suffix)] for e in emails if e.endswith(suffix) and len(e) > len(suffix)}
    found = accounts.accounts_by_email_or_login(emails - logins.keys(), logins)
    return {email: account for email, account in found.items()
            if account.account_type == "user"}


def stats_and_files(git, commit) -> tuple[dict, list[dict]]:
    """A commit's CommitStats and CommitAffectedFiles fields against its first parent."""
    from chalicelib.gitops import diff

    stats = diff.commit_stats(git.object_store, commit.id)
    files = [{"filename": f.path, "status": f.status} for f in stats.files]
    return {"total": stats.total, "additions": stats.additions,
            "deletions": stats.deletions}, files


def diff_or_patch(repo: Repo, sha: str, kind: str, *, git=None) -> bytes:
    """``git diff <sha>^ <sha>`` (diff) or ``git format-patch -1 <sha>`` (patch)."""
    from dulwich.patch import write_tree_diff

    if kind not in ("diff", "patch"):
        raise NotFoundError(f"unknown diff type {kind!r}")
    commit, git = get_commit(repo, sha, git=git)
    store = git.object_store
    parent_tree = store[commit.parents[0]].tree if commit.parents else None
    body = io.BytesIO()
    write_tree_diff(body, store, parent_tree, commit.tree)
    if kind == "diff":
        return body.getvalue()
    return patch_mail(commit, body.getvalue(), 1, 1)


def patch_mail(commit, diff: bytes, number: int, total: int) -> bytes:
    """One commit as ``git format-patch`` writes it: ``[PATCH]`` when it is the only one,
    ``[PATCH n/m]`` in a longer series, dated by its author (dulwich's writer numbers a
    lone patch 1/1 and dates every patch with the current time)."""
    from dulwich import __version__ as dulwich_version

    when = datetime.fromtimestamp(int(commit.author_time),
                                  timezone(timedelta(seconds=int(commit.author_timezone))))
    date = f"{when:%a}, {when.day} {when:%b %Y %H:%M:%S %z}".encode()
    subject, _, body = commit.message.partition(b"\n\n")
    subject = subject.replace(b"\n", b" ").strip()
    prefix = b"[PATCH]" if total == 1 else b"[PATCH %d/%d]" % (number, total)
    parts = [b"From %s Mon Sep 17 00:00:00 2001\n" % commit.id,   # git's fixed mbox date
             b"From: " + commit.author + b"\n", b"Date: " + date + b"\n",
             b"Subject: " + prefix + b" " + subject + b"\n\n"]
    if body:
        parts.append(body if body.endswith(b"\n") else body + b"\n")
    parts += [b"---\n", diff, b"-- \n", b"Dulwich %d.%d.%d\n" % dulwich_version[:3]]
    return b"".join(parts)


# Compare and the pull request of a commit ----------------------------------------------

MAX_COMPARE_COMMITS = 250     # as a pull request's commit list (services/pull_views)


@dataclass(frozen=True)
class Comparison:
    commits: list             # newest first, at most MAX_COMPARE_COMMITS
    git: object


def compare(caller: Caller, view: RepoView, basehead: str) -> Comparison:
    """``base...head`` (or ``base..head``): the commits of head that base lacks (``git
    log base..head``).  The head may be in another repository of the fork network
    (``owner:branch``, ``owner/repo:branch``) that the caller can read; the network
    shares one object pool, so both commits are in the base's object store."""
    from dulwich.walk import Walker

    from chalicelib import repos

    base, sep, head = basehead.partition("...")
    if not sep:
        base, sep, head = basehead.partition("..")
    if not sep or not base or not head or ":" in base:
        raise NotFoundError(f"unsupported comparison {basehead!r}")
    repo = view.repo
    if repo.empty:
        raise NotFoundError("repository is empty")
    head_view, head_ref = repos.locate_branch(caller, view, head)
    if not head_view.can_read or head_view.repo.empty:
        raise NotFoundError(f"head repository of {head!r} not found")
    base_commit, git = get_commit(repo, base)
    if head_view.repo.id == repo.id:
        head_commit = _commit_in(git, repo, head_ref)
    else:
        head_commit = _commit_in(repo_files.open_git(head_view.repo), head_view.repo, head_ref)
    walker = Walker(git.object_store, include=[head_commit.id], exclude=[base_commit.id],
                    max_entries=MAX_COMPARE_COMMITS)
    return Comparison([entry.commit for entry in walker], git)
