"""The issue tracker in the table: issues, comments, labels, milestones, tracked times.

Everything lives in the repository's partition ``R#<repo id>`` (deleting a repository
removes it with the rest of that partition).

| item | pk | sk | gsi1pk / gsi1sk | gsi2pk / gsi2sk |
|---|---|---|---|---|
| tracker (one per repository) | ``R#<repo>`` | ``ITRACKER`` | – | – |
| issue or pull request (``pull``: pulls/store.py) | ``R#<repo>`` | ``ISSUE#<number, 10 digits>`` | ``ISSUES#<repo>#<o or c>`` / number | ``ISSUES#<repo>#<o or c><i or p>`` / number |
| comment | ``R#<repo>`` | ``COMMENT#<number>#<comment id, 15 digits>`` | ``RCOMMENTS#<repo>`` / ``<created, 15 digits>#<comment id>`` | – |
| comment id lookup | ``R#<repo>`` | ``COMMENTID#<comment id>`` (``issue_number``) | – | – |
| tracked time | ``R#<repo>`` | ``TIME#<number>#<time id, 15 digits>`` | ``RTIMES#<repo>`` / ``<created>#<id>`` | ``UTIMES#<user>`` / ``<created>#<id>`` |
| stopwatch | ``R#<repo>`` | ``STOPWATCH#<number>#<user id>`` | ``WATCHES#<user>`` / ``<created>#<repo>#<number>`` | – |

Ids come from per-process blocks (``chalicelib.store.ids``), so id order is not creation
order: lists that promise creation order sort by ``(created, id)``.  The repository
comment list is kept in that order by its gsi1 sort key; comments written before that
key carried the time have the bare 15-digit id there, which sorts before every timed
key, and they were created first (under the old single counter, in id order).

The **tracker** item holds what every issue page needs and what must stay exact:

- ``next_number``: the last issue/pull number handed out.  A create takes the number
  after the one it read, conditional on ``next_number`` still being that value, in the
  same transaction as the issue; a lost race re-reads and retries, so numbers are
  never shared and a refused create burns none.
- ``labels`` and ``milestones``: maps {id: definition}; a milestone carries its
  ``o``/``c`` (open/closed issue) counters.  Labels and milestones of a repository are
  few, so rendering any issue needs no read beyond this item.
- ``counts``: {``<o|c><i|p><bucket>``: n} — how many open/closed issues/pulls have a
  number in ``[bucket*BUCKET, (bucket+1)*BUCKET)``.  Totals (``X-Total-Count``) are
  their sums, and a page at any offset is found by walking the buckets from the top
  and then one ``Query`` that starts at the bucket's upper bound and skips at most
  ``BUCKET - 1`` items.
- ``num_comments``: comments in the repository (the repository comment list total).

Every change of an issue is staged in the unit of work as one transaction: the issue
(conditional on its ``version``; its gsi keys move it between the state lists), the
tracker's counters (``chalicelib.issues.tracker_store``) and the repository's
``num_open_issues``/``num_open_pulls`` (``ADD``).  Nothing is read-modify-written.
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from chalicelib import repos
from chalicelib.issues.models import Comment, Issue, IssueTracker
from chalicelib.repos import Repo
from chalicelib.store import ids, unit_of_work
from chalicelib.store.attributes import plain, values_for

# Account is re-exported for the services' type hints.
from chalicelib.store.table import Item

BUCKET = 64
IN_ORG = "in_org"    # marks an organization's label among a tracker's labels (never stored)
NUMBER_DIGITS = 10


class ikeys:  # noqa: N801 - key builders of this module
    @staticmethod
    def partition(repo_id: int) -> str:
        return f"R#{repo_id}"

    @staticmethod
    def tracker(repo_id: int) -> tuple[str, str]:
        return f"R#{repo_id}", "ITRACKER"

    @staticmethod
    def issue(repo_id: int, number: int) -> tuple[str, str]:
        return f"R#{repo_id}", f"ISSUE#{number:0{NUMBER_DIGITS}d}"

    @staticmethod
    def state_list(repo_id: int, state: str) -> str:
        return f"ISSUES#{repo_id}#{state[0]}"

    @staticmethod
    def type_list(repo_id: int, state: str, is_pull: bool) -> str:
        return f"ISSUES#{repo_id}#{state[0]}{'p' if is_pull else 'i'}"

    @staticmethod
    def comment(repo_id: int, number: int, comment_id: int) -> tuple[str, str]:
        return f"R#{repo_id}", f"COMMENT#{number:0{NUMBER_DIGITS}d}#{comment_id:015d}"

    @staticmethod
    def comment_prefix(number: int) -> str:
        return f"COMMENT#{number:0{NUMBER_DIGITS}d}#"

    @staticmethod
    def comment_ref(repo_id: int, comment_id: int) -> tuple[str, str]:
        return f"R#{repo_id}", f"COMMENTID#{comment_id:015d}"

    @staticmethod
    def repo_comments(repo_id: int) -> str:
        return f"RCOMMENTS#{repo_id}"

    @staticmethod
    def repo_comment_order(created: int, comment_id: int) -> str:
        """gsi1sk of a comment: creation time first (see the module notes)."""
        return f"{created:015d}#{comment_id:015d}"

    @staticmethod
    def tracked_time(repo_id: int, number: int, time_id: int) -> tuple[str, str]:
        return f"R#{repo_id}", f"TIME#{number:0{NUMBER_DIGITS}d}#{time_id:015d}"

    @staticmethod
    def time_prefix(number: int) -> str:
        return f"TIME#{number:0{NUMBER_DIGITS}d}#"

    @staticmethod
    def repo_times(repo_id: int) -> str:
        """gsi1pk of the repository's tracked times (``time_lists.py``)."""
        return f"RTIMES#{repo_id}"

    @staticmethod
    def user_times(user_id: int) -> str:
        """gsi2pk of a user's tracked times, in every repository."""
        return f"UTIMES#{user_id}"

    @staticmethod
    def time_order(created: int, time_id: int) -> str:
        """gsi1sk and gsi2sk of a tracked time: creation order."""
        return f"{max(created, 0):015d}#{time_id:015d}"

    @staticmethod
    def stopwatch(repo_id: int, number: int, user_id: int) -> tuple[str, str]:
        return f"R#{repo_id}", f"STOPWATCH#{number:0{NUMBER_DIGITS}d}#{user_id}"

    @staticmethod
    def user_stopwatches(user_id: int) -> str:
        """gsi1pk of a user's running stopwatches."""
        return f"WATCHES#{user_id}"

    ISSUE_PREFIX = "ISSUE#"


def num_key(number: int) -> str:
    return f"{number:0{NUMBER_DIGITS}d}"


def place(issue: Issue) -> None:
    """Set the index keys that put the issue in its state lists."""
    repo_id, state = int(issue.repo_id), issue.state
    issue.gsi1pk, issue.gsi1sk = ikeys.state_list(repo_id, state), num_key(int(issue.number))
    issue.gsi2pk = ikeys.type_list(repo_id, state, bool(issue.is_pull))
    issue.gsi2sk = num_key(int(issue.number))


def count_key(state: str, is_pull: bool, number: int) -> str:
    return f"{state[0]}{'p' if is_pull else 'i'}{number // BUCKET}"


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


# Tracker ---------------------------------------------------------------------------------

class Tracker:
    """The tracker item as plain data (``exists`` is False before the first write)."""

    def __init__(self, item: IssueTracker | None = None):
        self.exists = item is not None
        self.next_number = 0
        self.repo_labels: dict[int, dict] = {}      # the item's own
        # The owning organization's labels, attached by the context (``org_labels``).
        self.org_labels: dict[int, dict] = {}
        self.milestones: dict[int, dict] = {}
        self.counts: dict[str, int] = {}
        self.num_comments = 0
        if item is not None:
            self.next_number = int(item.next_number or 0)
            self.repo_labels = {int(k): val for k, val in plain(item.labels or {}).items()}
            self.milestones = {int(k): val for k, val in plain(item.milestones or {}).items()}
            self.counts = {k: int(n) for k, n in plain(item.counts or {}).items()}
            self.num_comments = int(item.num_comments or 0)
        # Pinned numbers in pin order, issues and pull requests apart (``pins.py``).
        self.pinned: dict[bool, list[int]] = {
            False: [int(n) for n in (item.pinned_issues or [])] if item is not None else [],
            True: [int(n) for n in (item.pinned_pulls or [])] if item is not None else []}
        self.pin_version = int(item.pin_version or 0) if item is not None else 0

    @property
    def labels(self) -> dict[int, dict]:
        """Every label this tracker's issues may carry: the repository's and its
        organization's (ids are instance-wide, so the two never collide).  Writes of
        repository labels go to ``repo_labels``."""
        if not self.org_labels:
            return self.repo_labels
        return {**self.org_labels, **self.repo_labels}

    def attach_org_labels(self, labels: dict[int, dict]) -> None:
        """The owning organization's labels, marked (``IN_ORG``) so that their records
        name the organization's path."""
        self.org_labels = {int(i): {**label, IN_ORG: True} for i, label in labels.items()}

    def pin_order(self, issue: Issue) -> int:
        """The Issue record's ``pin_order``: 1-based, 0 when not pinned (a closed issue
        is not: Forgejo unpins on close)."""
        listed = self.pinned[bool(issue.is_pull)]
        number = int(issue.number)
        return listed.index(number) + 1 if issue.is_open and number in listed else 0

    def bucket_counts(self, states: Iterable[str], types: Iterable[str]) -> dict[int, int]:
        """{bucket: items} over the given state letters (o, c) and type letters (i, p)."""
        wanted = {s + t for s in states for t in types}
        out: dict[int, int] = {}
        for key, n in self.counts.items():
            if key[:2] in wanted and n:
                bucket = int(key[2:])
                out[bucket] = out.get(bucket, 0) + n
        return out

    def total(self, states: Iterable[str], types: Iterable[str]) -> int:
        return sum(self.bucket_counts(states, types).values())


def get_tracker(repo_id: int, *, consistent: bool = False) -> Tracker:
    return Tracker(unit_of_work.get(IssueTracker, ikeys.tracker(repo_id), consistent=consistent))


# Records rebuilt from event snapshots (never saved) ------------------------------------------

def issue_from_snapshot(values: Mapping[str, Any]) -> Issue:
    values = values_for(Issue, values)
    values.setdefault("created", 0)
    values.setdefault("updated", 0)
    return Issue(*ikeys.issue(int(values.get("repo_id") or 0), int(values.get("number") or 0)),
                 **values)


def comment_from_snapshot(values: Mapping[str, Any]) -> Comment:
    values = values_for(Comment, values)
    for name in ("created", "updated", "poster_id", "issue_id", "issue_number", "repo_id"):
        values.setdefault(name, 0)
    return Comment(*ikeys.comment(int(values["repo_id"]), int(values["issue_number"]),
                                  int(values.get("id") or 0)), **values)


# Issues: reads --------------------------------------------------------------------------------

def get_issue(repo_id: int, number: int, *, consistent: bool = False) -> Issue | None:
    return unit_of_work.get(Issue, ikeys.issue(repo_id, number), consistent=consistent)


def issues_numbered(repo_id: int, numbers: list[int]) -> list[Issue]:
    """The repository's issues of these numbers, in that order (missing left out):
    batches of 100."""
    wanted = [ikeys.issue(repo_id, int(n)) for n in numbers]
    unit_of_work.prefetch(wanted)
    found = (unit_of_work.get(Issue, key) for key in wanted)
    return [issue for issue in found if issue is not None]


def copy_issue(issue: Issue) -> Issue:
    """A detached copy to change and stage (the read copy stays as it was)."""
    return Issue.from_raw_data(issue.serialize())


def query_page(repo_id: int, states: str, types: str, below: int, count: int) -> list[Issue]:
    """Up to ``count`` items with number < ``below``, newest first, from the one list
    that holds exactly (states, types): one Query (two for one type in both states)."""
    hi = num_key(max(below - 1, 0))
    kwargs = dict(scan_index_forward=False, limit=count, page_size=count)
    if len(states) == 2 and len(types) == 2:
        return list(Issue.query(ikeys.partition(repo_id),
                                Issue.sk.between(ikeys.ISSUE_PREFIX + num_key(0),
                                                 ikeys.ISSUE_PREFIX + hi), **kwargs))
    if len(types) == 2:
        return list(Issue.gsi1.query(ikeys.state_list(repo_id, states), Issue.gsi1sk <= hi,
                                     **kwargs))
    found: list[Issue] = []
    for state in states:
        found += Issue.gsi2.query(ikeys.type_list(repo_id, state, types == "p"),
                                  Issue.gsi2sk <= hi, **kwargs)
    found.sort(key=lambda i: -int(i.number))
    return found[:count]


def query_all(repo_id: int, states: str, types: str, filter_condition=None, *,
              consistent: bool = False) -> list[Issue]:
    """Every item of the list (DynamoDB pages as needed), newest first."""
    kwargs = dict(scan_index_forward=False, filter_condition=filter_condition)
    if len(states) == 2 and len(types) == 2:
        return list(Issue.query(ikeys.partition(repo_id), Issue.sk.startswith(ikeys.ISSUE_PREFIX),
                                consistent_read=consistent, **kwargs))
    if len(types) == 2:
        return list(Issue.gsi1.query(ikeys.state_list(repo_id, states), **kwargs))
    found: list[Issue] = []
    for state in states:
        found += Issue.gsi2.query(ikeys.type_list(repo_id, state, types == "p"), **kwargs)
    found.sort(key=lambda i: -int(i.number))
    return found


def issues_with_label(repo_id: int, label_id: int) -> list[Issue]:
    """Every issue and pull carrying the label (consistent: about to be rewritten)."""
    return query_all(repo_id, "oc", "ip", Issue.label_ids.contains(label_id), consistent=True)


def issues_in_milestone(repo_id: int, milestone_id: int) -> list[Issue]:
    return query_all(repo_id, "oc", "ip", Issue.milestone_id == milestone_id, consistent=True)


def page(tracker: Tracker, repo_id: int, states: str, types: str, offset: int,
         limit: int) -> tuple[list[Issue], int]:
    """One page at any offset: buckets locate it, one Query reads it."""
    buckets = tracker.bucket_counts(states, types)
    total = sum(buckets.values())
    if offset >= total or limit <= 0:
        return [], total
    seen = 0
    for bucket in sorted(buckets, reverse=True):
        if seen + buckets[bucket] > offset:
            skip = offset - seen
            items = query_page(repo_id, states, types, (bucket + 1) * BUCKET, skip + limit)
            return items[skip:skip + limit], total
        seen += buckets[bucket]
    return [], total  # pragma: no cover - offset < total guarantees a bucket


# Issues: staged writes ------------------------------------------------------------------------
# Labels name the operation in ConditionFailed: "issue" (taken number, or changed since
# read), "repo" (the repository vanished).

def new_issue_id() -> int:
    return ids.next_id("issue")


def new_issue(repo_id: int, number: int, issue_id: int, **values) -> Issue:
    return Issue(*ikeys.issue(repo_id, number), id=issue_id, repo_id=repo_id, number=number,
                 **values)


def stage_create_issue(issue: Issue) -> None:
    place(issue)
    unit_of_work.current().put(issue, label="issue", must_not_exist=True)


def stage_replace_issue(issue: Issue, read_version: int) -> None:
    """Write the changed copy whole, if nobody changed the issue since ``read_version``
    (the copy's version must already be bumped)."""
    place(issue)
    unit_of_work.current().put(issue, label="issue", condition=Issue.version == read_version)


def stage_delete_issue(issue: Issue) -> None:
    unit_of_work.current().delete(issue, label="issue", condition=Issue.version == issue.version)


def stage_open_count(repo: Repo, is_pull: bool, delta: int) -> None:
    """Move the repository's open issue (or pull) counter."""
    if not delta:
        return
    counter = "num_open_pulls" if is_pull else "num_open_issues"
    # version: a full save of a copy read before this must not undo the count.
    repos.stage_repo_counts(repo, {counter: delta}, label="repo", bump_version=True)


def stage_delete_items(items: Iterable[Item], label: str) -> None:
    """Unconditional deletes (what goes with a deleted issue, a reset of times)."""
    uow = unit_of_work.current()
    for item in items:
        uow.delete(item, label=label)
