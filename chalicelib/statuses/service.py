"""Commit statuses: create, list, and the combined status of a commit (Forgejo's rules).

Who may do what (Forgejo's ``reqRepoReader``/``reqRepoWriter`` on the code unit): whoever
can read the repository's code lists statuses and reads the combined status; posting one
needs write access (403 for readers, 404 for callers who cannot see the repository).

Which commit a path names:

- create (``/statuses/{sha}``): any revision that resolves to a commit of the repository
  (a full or abbreviated commit id, a branch, a tag), stored under the full id; one that
  does not resolve is a 422 (Forgejo answers 500);
- list (``/statuses/{sha}``): a full-length id is used as given (no git read); anything
  else is resolved through git and, when that fails, lists nothing (Forgejo's
  ``MustConvertToSHA1``);
- combined (``/commits/{ref}/status(es)``): a branch (its record, read with the
  request's preload), then a full-length id as given, then a tag (its ref item), then
  what git resolves.  An unknown ref is not an error: it has no statuses (Forgejo's
  ``ResolveRefOrSha``, which also looks for a tag named like a full id).

The combined state (Forgejo's ``ToCombinedStatus``): the worst state of the latest status
of each context shown, by the priority error < failure < warning < pending < success <
skipped (``structs.CommitStatusState.NoBetterThan``: the lower wins); then ``error`` is
reported as ``failure``, as GitHub defines the combined state.  No statuses: ``""``.
"""
from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, get_args

from chalicelib import clock, contents, events, repos
from chalicelib.accounts import account_from, account_snapshot
from chalicelib.errors import (ConditionFailed, ConflictError, InvalidInput, NotFoundError,
                               PermissionDenied)
from chalicelib.http import input_rules
from chalicelib.repos import Caller, RepoView, access_keys, strip_git
from chalicelib.statuses import store
from chalicelib.statuses.options import CreateStatusOption, State
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.repos import Repo
    from chalicelib.statuses.store import Status, Summary

# Forgejo's states; ``skipped`` came with Forgejo Actions and is in Forgejo 16's description.
STATES = get_args(State)
# The ``state`` filter of the list takes these; any other value filters nothing (Forgejo).
FILTER_STATES = ("pending", "success", "error", "failure", "warning")
# structs.commitStatusPriorities: the lower, the worse; the worst state wins.
PRIORITY = {"error": 0, "failure": 1, "warning": 2, "pending": 3, "success": 4, "skipped": 5}
SORTS = ("oldest", "recentupdate", "leastupdate", "leastindex", "highestindex")

# The summary item holds the latest status of every context of a commit; DynamoDB items
# stop at 400 KB, so a commit takes new contexts while its entries fit this many bytes
# (a few hundred contexts at typical sizes).  Text limits: input_rules (CreateStatusOption).
MAX_SUMMARY_BYTES = 350_000

# Statuses of one commit posted at once race for its next index; each lost race means
# another status landed, so this bounds how many may be posted at once, not the odds.
RETRIES = 64
MAX_BACKOFF = 0.5                   # seconds


@dataclass(frozen=True)
class Shown:
    """A status with its creator's account, ready to render."""
    status: Status
    creator: Account


@dataclass(frozen=True)
class Combined:
    """The combined status of one page of contexts (``shown``: oldest first)."""
    sha: str
    state: str
    shown: list[Shown]
    total: int                      # contexts of the commit, all pages


# Rules --------------------------------------------------------------------------------------

def no_better_than(state: str, other: str) -> bool:
    """Forgejo's ``CommitStatusState.NoBetterThan``: False when either state is unknown."""
    if state not in PRIORITY or other not in PRIORITY:
        return False
    return PRIORITY[state] <= PRIORITY[other]


def combine(states) -> str:
    """The combined state of the latest statuses of some contexts: the worst one (the
    first state, then any state no better than the one so far), ``error`` reported as
    ``failure``; ``""`` for none."""
    result = ""
    for state in states:
        if result == "" or no_better_than(state, result):
            result = state
    return "failure" if result == "error" else result


# Commit ids ---------------------------------------------------------------------------------

def _id_length(repo: Repo) -> int:
    return 64 if (repo.object_format or "sha1") == "sha256" else 40


def full_id(repo: Repo, text: str) -> str | None:
    """``text`` as a full-length commit id of the repository's format, else None."""
    if len(text) == _id_length(repo) and re.fullmatch(r"[0-9a-fA-F]+", text):
        return text.lower()
    return None


def _commit_through_git(repo: Repo, text: str, *, full_given: bool = False) -> str | None:
    """The commit ``text`` names (full or abbreviated id, branch, tag), read from git;
    None when it names none."""
    from dulwich.objects import Commit, Tag

    if repo.empty:
        return None
    git = contents.open_git(repo)
    try:
        sha = text.encode() if full_given else contents.resolve_ref(git, repo, text)
        obj = git[sha]
        while isinstance(obj, Tag):
            obj = git[obj.object[1]]
    except (KeyError, NotFoundError, ValueError):
        return None
    return obj.id.decode() if isinstance(obj, Commit) else None


def _as_commit_id(repo: Repo, text: str) -> str | None:
    """Forgejo's ``MustConvertToSHA1``: a full id as given, else what git resolves."""
    return full_id(repo, text) or _commit_through_git(repo, text)


def _tag_commit(repo: Repo, name: str) -> str | None:
    """The commit a tag points at, from its ref item (peeled when the tag is annotated)."""
    from chalicelib.gitstore import refdb

    if repo.empty:
        return None
    found = refdb.load_refs(int(repo.id)).get(f"refs/tags/{name}")
    if found is None or not found.sha:
        return None
    if found.peeled:
        return found.peeled
    return _commit_through_git(repo, found.sha, full_given=True)


def _ref_commit(repo: Repo, ref: str) -> str | None:
    """Forgejo's ``ResolveRefOrSha``: a branch, then a tag, then a commit id.  A
    full-length id is not looked up among the tags (git itself warns about such tag
    names), so its combined status needs no read beyond the preload."""
    branch = contents.branch_info(int(repo.id), ref)
    if branch is not None:
        return branch.commit_id
    full = full_id(repo, ref)
    if full is not None:
        return full
    return _tag_commit(repo, ref) or _as_commit_id(repo, ref)


# Preload ------------------------------------------------------------------------------------

def preload_more_keys(owner_name: str, repo_name: str, user_id: int | None, *,
                      sha: str | None = None, ref: str | None = None) -> list:
    """The second preload batch of a status route: the caller's access items, and the
    summary of the commit the path names when it is a full id (``sha``), or the branch
    record and summary a ``ref`` may name."""
    repo = repos.repo_by_name(owner_name, strip_git(repo_name))
    if repo is None:
        return []
    found = access_keys(repo, user_id)
    text = sha if sha is not None else ref
    if text is not None:
        full = full_id(repo, text)
        if full is not None:
            found.append(store.summary_key(int(repo.id), full))
        if ref is not None:
            found.append(contents.branch_key(int(repo.id), ref))
    return found


# Reads --------------------------------------------------------------------------------------

def _fresh(view: RepoView, caller: Caller) -> dict[int, Account]:
    """Accounts every request has read anyway, shown fresh instead of their snapshots."""
    found = {int(view.owner.id): view.owner}
    if caller.user is not None:
        found[int(caller.user.id)] = caller.user
    return found


def _shown(statuses: list[Status], fresh: dict[int, Account]) -> list[Shown]:
    return [Shown(s, account_from(s.creator, fresh)) for s in statuses]


def _sorted(statuses: list[Status], sort: str) -> list[Status]:
    """Forgejo's ``CommitStatusOptions`` orders (updated = created: statuses never change).
    ``leastindex`` puts the highest index first and ``highestindex`` the lowest, as
    Forgejo does (its names are the wrong way round; clients see that order).  Ties of
    the time orders go by index, the same way."""
    by_index = sorted(statuses, key=lambda s: s.index)
    if sort in ("oldest", "leastupdate"):
        return sorted(by_index, key=lambda s: s.created)
    if sort == "highestindex":
        return by_index
    if sort == "leastindex":
        return by_index[::-1]
    return sorted(by_index, key=lambda s: s.created)[::-1]   # newest first


def list_statuses(view: RepoView, caller: Caller, sha: str, *, sort: str = "", state: str = "",
                  offset: int = 0, limit: int = 30,
                  by_ref: bool = False) -> tuple[list[Shown], int]:
    """repoListStatuses: one page and the number of statuses that match; ``by_ref``:
    Forgejo's repoListStatusesByRef, ``sha`` resolved as a branch, tag or commit id."""
    commit = (_ref_commit if by_ref else _as_commit_id)(view.repo, sha)
    if commit is None:
        return [], 0
    found = store.history(int(view.repo.id), commit)
    if state in FILTER_STATES:
        found = [s for s in found if s.state == state]
    page = _sorted(found, sort)[offset:offset + limit]
    return _shown(page, _fresh(view, caller)), len(found)


def combined_status(view: RepoView, caller: Caller, ref: str, *, offset: int = 0,
                    limit: int = 30) -> Combined:
    """repoGetCombinedStatusByRef: the latest status of each context (a page of contexts,
    the most recently updated first, shown oldest first), and their combined state."""
    commit = _ref_commit(view.repo, ref)
    if commit is None:
        return Combined("", "", [], 0)
    latest = list(store.get_summary(int(view.repo.id), commit).latest.values())
    latest.sort(key=lambda s: s.index, reverse=True)
    page = sorted(latest[offset:offset + limit], key=lambda s: s.index)
    return Combined(commit, combine(s.state for s in page), _shown(page, _fresh(view, caller)),
                    len(latest))


def combined_state(repo_id: int, sha: str) -> str:
    """The combined state of every context of a commit (full id), ``""`` when it has no
    statuses: for pull requests (one GetItem, or none when preloaded)."""
    summary = store.get_summary(int(repo_id), sha)
    return combine(s.state for s in sorted(summary.latest.values(), key=lambda s: s.index))


# Create -------------------------------------------------------------------------------------


def create_status(view: RepoView, caller: Caller, sha: str,
                  option: CreateStatusOption) -> Shown:
    """repoCreateStatus.  One transaction: the status, the commit's summary (conditional
    on its count as read) and the event."""
    user = caller.user
    if user is None or not view.can_write:
        raise PermissionDenied("user should have a permission to write to a repo")
    state = option.state
    context = (option.context or "").strip()
    description = (option.description or "").strip()
    # Forgejo takes any text here and neutralises it when rendering; refused instead, so
    # an API client learns at once that its link would not be one.
    target_url = input_rules.check_url((option.target_url or "").strip(), "target_url",
                                       "TargetURL")
    full = full_id(view.repo, sha)
    commit = _commit_through_git(view.repo, full or sha, full_given=full is not None)
    if commit is None:
        raise InvalidInput(f"No commit found for SHA: {sha}")
    repo_id, created, creator = int(view.repo.id), clock.seconds(), account_snapshot(user)

    for attempt in range(RETRIES):
        summary = store.get_summary(repo_id, commit, consistent=attempt > 0)
        status = store.new_status(commit, summary.count + 1, state=state, context=context,
                                  description=description, target_url=target_url,
                                  creator_id=int(user.id), creator=creator, created=created)
        _check_room(summary, status)
        try:
            with unit_of_work.writing() as uow:
                store.stage_create(view.repo, summary, status)
                uow.raise_event(events.CommitStatusCreated(
                    actor_id=int(user.id), actor=events.snapshot(user), repo_id=repo_id,
                    repo=events.snapshot(view.repo), sha=commit, status_id=status.index,
                    state=state, context=context, description=description,
                    target_url=target_url))
        except ConditionFailed as failed:
            if failed.label == store.REPO:
                raise NotFoundError("repository does not exist") from None
            if failed.label != store.SUMMARY:
                raise
            # Writers racing for one commit spread out instead of colliding in step.
            time.sleep(random.uniform(0, min(MAX_BACKOFF, 0.005 * 2 ** attempt)))
            continue
        return Shown(status, user)
    raise ConflictError("too many statuses are being posted for this commit at once; try again")


def _check_room(summary: Summary, status: Status) -> None:
    replaced = next((s for s in summary.latest.values() if s.context == status.context), None)
    size = summary.size + store.entry_size(status) - \
        (store.entry_size(replaced) if replaced is not None else 0)
    if size > MAX_SUMMARY_BYTES:
        raise InvalidInput("too many status contexts for this commit")
