"""Commit statuses in the table: a history per commit and one summary item per commit.

Everything lives in the repository's partition ``R#<repo id>`` (deleting a repository
removes it with the rest of that partition).

| item | pk | sk | attributes |
|---|---|---|---|
| status (history) | ``R#<repo>`` | ``STATUS#<sha>#<index, 15 digits>`` | ``index``, ``sha``, ``state``, ``context``, ``description``, ``target_url``, ``creator_id``, ``creator`` (JSON snapshot), ``created`` |
| summary (one per commit) | ``R#<repo>`` | ``STATUSES#<sha>`` | ``sha``, ``count`` (the last index given out), ``latest``: {sha1 of the context: the latest status of that context, as JSON} |

``index`` is Forgejo's per-commit status index (1, 2, …), which its API shows as the
status ``id``; the history's sort key orders a commit's statuses by it.  A write takes
the index after the summary's ``count`` as read, conditional on ``count`` being
unchanged, and in the same transaction puts the history item and sets the context's
entry of ``latest`` (``ConditionFailed("statuses")`` on a lost race: the caller re-reads
and retries).  So statuses of one commit are totally ordered, two writers never share
an index, and ``latest`` always ends with the status committed last for each context:
the combined status of a commit is one GetItem at any number of contexts.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from pynamodb.attributes import MapAttribute
from pynamodb.expressions.operand import Path, Value

from chalicelib import repos
from chalicelib.repos import Repo
from chalicelib.statuses.models import CommitStatusItem, StatusSummary
from chalicelib.store import unit_of_work

INDEX_DIGITS = 15
SUMMARY = "statuses"     # ConditionFailed label: the summary changed since read
REPO = "repo"            # ConditionFailed label: the repository is gone


class skeys:  # noqa: N801 - key builders of this module
    STATUS_PREFIX = "STATUS#"

    @staticmethod
    def partition(repo_id: int) -> str:
        return f"R#{repo_id}"

    @staticmethod
    def status(repo_id: int, sha: str, index: int) -> tuple[str, str]:
        return f"R#{repo_id}", f"STATUS#{sha}#{index:0{INDEX_DIGITS}d}"

    @staticmethod
    def history_prefix(sha: str) -> str:
        return f"STATUS#{sha}#"

    @staticmethod
    def summary(repo_id: int, sha: str) -> tuple[str, str]:
        return f"R#{repo_id}", f"STATUSES#{sha}"


@dataclass(frozen=True)
class Status:
    """One commit status as plain data (from the history or from a summary entry)."""
    index: int
    sha: str
    state: str
    context: str
    description: str
    target_url: str
    creator_id: int
    creator: dict
    created: int


def context_hash(context: str) -> str:
    """The summary's key for a context (Forgejo groups by the same SHA-1)."""
    return hashlib.sha1(context.encode("utf-8"), usedforsecurity=False).hexdigest()


def _entry(status: Status) -> str:
    return json.dumps({"index": status.index, "state": status.state, "context": status.context,
                       "description": status.description, "target_url": status.target_url,
                       "creator_id": status.creator_id, "creator": status.creator,
                       "created": status.created}, separators=(",", ":"), sort_keys=True)


def _from_entry(sha: str, text: str) -> Status:
    data = json.loads(text)
    return Status(index=int(data["index"]), sha=sha, state=data["state"],
                  context=data.get("context", ""), description=data.get("description", ""),
                  target_url=data.get("target_url", ""),
                  creator_id=int(data.get("creator_id") or 0), creator=data.get("creator") or {},
                  created=int(data.get("created") or 0))


def _from_item(item: CommitStatusItem) -> Status:
    return Status(index=int(item.index), sha=item.sha, state=item.state, context=item.context,
                  description=item.description, target_url=item.target_url,
                  creator_id=int(item.creator_id or 0), creator=json.loads(item.creator or "{}"),
                  created=int(item.created))


# Reads ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Summary:
    """A commit's summary as plain data (``exists`` is False before its first status)."""
    sha: str
    exists: bool
    count: int
    latest: dict[str, Status]          # context hash -> latest status
    size: int                          # bytes of the entries (the item must stay < 400 KB)


def summary_key(repo_id: int, sha: str) -> tuple[str, str]:
    return skeys.summary(int(repo_id), sha)


def get_summary(repo_id: int, sha: str, *, consistent: bool = False) -> Summary:
    item = unit_of_work.get(StatusSummary, summary_key(repo_id, sha), consistent=consistent)
    if item is None:
        return Summary(sha, False, 0, {}, 0)
    raw = item.latest.as_dict() if isinstance(item.latest, MapAttribute) else dict(item.latest or {})
    latest = {key: _from_entry(sha, text) for key, text in raw.items()}
    return Summary(sha, True, int(item.count or 0), latest,
                   sum(len(key) + len(text) for key, text in raw.items()))


def history(repo_id: int, sha: str) -> list[Status]:
    """Every status of a commit, by index (one Query, paged by DynamoDB past 1 MB).
    Consistent: a client that lists right after it posted must see its status."""
    items = CommitStatusItem.query(skeys.partition(int(repo_id)),
                                   CommitStatusItem.sk.startswith(skeys.history_prefix(sha)),
                                   consistent_read=True)
    return [_from_item(item) for item in items]


# Writes -----------------------------------------------------------------------------------

def new_status(sha: str, index: int, *, state: str, context: str, description: str,
               target_url: str, creator_id: int, creator: dict, created: int) -> Status:
    return Status(index=index, sha=sha, state=state, context=context, description=description,
                  target_url=target_url, creator_id=creator_id, creator=dict(creator),
                  created=created)


def entry_size(status: Status) -> int:
    return len(context_hash(status.context)) + len(_entry(status))


def stage_create(repo: Repo, summary: Summary, status: Status) -> None:
    """Stage ``status`` (whose index must be ``summary.count + 1``): the history item,
    the summary moved on conditionally on ``count`` as read (``ConditionFailed(SUMMARY)``
    when another status got there first), and a check that the repository still exists
    (``ConditionFailed(REPO)``)."""
    repo_id = int(repo.id)
    uow = unit_of_work.current()
    uow.put(CommitStatusItem(*skeys.status(repo_id, status.sha, status.index),
                             index=status.index, sha=status.sha, state=status.state,
                             context=status.context, description=status.description,
                             target_url=status.target_url, creator_id=status.creator_id,
                             creator=json.dumps(status.creator, separators=(",", ":"),
                                                sort_keys=True),
                             created=status.created),
            label=SUMMARY, must_not_exist=True)
    key = summary_key(repo_id, status.sha)
    entry = _entry(status)
    if not summary.exists:
        uow.put(StatusSummary(*key, sha=status.sha, count=status.index,
                              latest={context_hash(status.context): entry}),
                label=SUMMARY, must_not_exist=True)
    else:
        uow.update(StatusSummary(*key),
                   [StatusSummary.count.set(status.index),
                    Path(["latest", context_hash(status.context)]).set(Value({"S": entry}))],
                   label=SUMMARY, condition=StatusSummary.count == summary.count)
    repos.stage_repo_exists(repo, label=REPO, same_id=True)
