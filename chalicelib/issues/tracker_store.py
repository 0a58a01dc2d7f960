"""Changes to a repository's tracker item (``chalicelib.issues.store`` describes it).

A write describes what it does to the tracker as a ``TrackerChange`` (counter moves, a
number taken, label and milestone definitions set, edited or removed); ``stage`` turns
it into one ``UpdateItem`` of nested ``SET x = x + :d`` / ``REMOVE`` actions, staged in
the unit of work with the label ``"tracker"``, so concurrent writes never overwrite
each other's counters or definitions.  Before a repository's first issue, label or
milestone there is no tracker item: the change is then staged as the put of a new item
that already holds it (conditional on the key being free; a lost race fails with
``ConditionFailed("tracker", exists=True)`` and the caller re-reads).

After the commit, ``applied`` gives the tracker as the change left it, so a request
renders what it wrote without reading the item again.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from pynamodb.expressions.operand import Path, Value

from chalicelib.errors import ConditionFailed
from chalicelib.issues.store import Issue, IssueTracker, Tracker, count_key, ikeys
from chalicelib.store import ids, unit_of_work

LABELS = "labels"
MILESTONES = "milestones"
OPEN, CLOSED = "o", "c"          # a milestone's counters


def _ddb(value: Any) -> dict:
    """A Python value as a DynamoDB attribute value."""
    if isinstance(value, bool):
        return {"BOOL": value}
    if isinstance(value, (int, float)):
        return {"N": str(value)}
    if isinstance(value, str):
        return {"S": value}
    if value is None:
        return {"NULL": True}
    if isinstance(value, dict):
        return {"M": {str(k): _ddb(v) for k, v in value.items()}}
    if isinstance(value, (list, tuple)):
        return {"L": [_ddb(v) for v in value]}
    raise TypeError(f"cannot store {type(value).__name__}")


def _path(*segments: str) -> Path:
    return Path(list(segments))


def _bump(*segments: str, by: int, create: bool = False):
    """SET <path> = <path> + by (or if_not_exists(path, 0) + by)."""
    p = _path(*segments)
    base = (p | Value(_ddb(0))) if create else p
    return p.set(base + Value(_ddb(by)))


@dataclass
class TrackerChange:
    """What one write does to the tracker.  Entries are keyed (LABELS | MILESTONES, id)."""
    counts: dict[str, int] = field(default_factory=dict)
    milestone_counts: dict[tuple[int, str], int] = field(default_factory=dict)
    comments: int = 0
    # The next_number read: the change takes the number after it (and fails the
    # commit if another write took it first).
    number_after: int | None = None
    new_entries: dict[tuple[str, int], dict] = field(default_factory=dict)
    entry_fields: dict[tuple[str, int], dict] = field(default_factory=dict)   # must exist
    removed_entries: set[tuple[str, int]] = field(default_factory=set)      # must exist

    # Building -----------------------------------------------------------------------------

    @classmethod
    def for_issue(cls, old: Issue | None, new: Issue | None, tracker: Tracker) -> "TrackerChange":
        """The counter moves that take an issue from ``old`` to ``new`` (None: absent)."""
        change = cls()
        for issue, sign in ((old, -1), (new, +1)):
            if issue is None:
                continue
            key = count_key(issue.state, bool(issue.is_pull), int(issue.number))
            change.counts[key] = change.counts.get(key, 0) + sign
            milestone = int(issue.milestone_id or 0)
            # A deleted milestone's counters went with it.
            if milestone and (sign > 0 or milestone in tracker.milestones):
                slot = (milestone, OPEN if issue.is_open else CLOSED)
                change.milestone_counts[slot] = change.milestone_counts.get(slot, 0) + sign
        change.comments = (int(new.num_comments) if new is not None else 0) - \
            (int(old.num_comments) if old is not None else 0)
        change.counts = {k: d for k, d in change.counts.items() if d}
        change.milestone_counts = {k: d for k, d in change.milestone_counts.items() if d}
        return change

    def take_number(self, tracker: Tracker) -> int:
        """Take the number after the tracker's ``next_number`` (as read)."""
        self.number_after = tracker.next_number
        return tracker.next_number + 1

    def set_entry(self, kind: str, entry_id: int, definition: dict) -> None:
        self.new_entries[(kind, entry_id)] = dict(definition)

    def edit_entry(self, kind: str, entry_id: int, fields: dict) -> None:
        self.entry_fields[(kind, entry_id)] = dict(fields)

    def remove_entry(self, kind: str, entry_id: int) -> None:
        self.removed_entries.add((kind, entry_id))

    @property
    def empty(self) -> bool:
        return not (self.counts or self.milestone_counts or self.comments
                    or self.number_after is not None or self.new_entries
                    or self.entry_fields or self.removed_entries)

    # Applying --------------------------------------------------------------------------

    def applied(self, tracker: Tracker) -> Tracker:
        """``tracker`` as this change leaves it (plain data; the item is not read)."""
        after = copy.deepcopy(tracker)
        after.exists = True
        for key, delta in self.counts.items():
            after.counts[key] = after.counts.get(key, 0) + delta
        after.num_comments += self.comments
        if self.number_after is not None:
            after.next_number = self.number_after + 1
        for (kind, entry_id), definition in self.new_entries.items():
            self._entries(after, kind)[entry_id] = dict(definition)
        for (kind, entry_id), fields in self.entry_fields.items():
            entries = self._entries(after, kind)
            entries[entry_id] = {**entries.get(entry_id, {}), **fields}
        for kind, entry_id in self.removed_entries:
            self._entries(after, kind).pop(entry_id, None)
        for (milestone, slot), delta in self.milestone_counts.items():
            if milestone in after.milestones:
                entry = after.milestones[milestone]
                entry[slot] = int(entry.get(slot, 0)) + delta
        return after

    @staticmethod
    def _entries(tracker: Tracker, kind: str) -> dict[int, dict]:
        return tracker.repo_labels if kind == LABELS else tracker.milestones

    def _actions(self) -> list:
        actions: list = [_bump("counts", key, by=d, create=True) for key, d in self.counts.items()]
        actions += [_bump(MILESTONES, str(m), slot, by=d)
                    for (m, slot), d in self.milestone_counts.items()]
        if self.comments:
            actions.append(IssueTracker.num_comments.add(self.comments))
        if self.number_after is not None:
            actions.append(IssueTracker.next_number.set(self.number_after + 1))
        for (kind, entry_id), definition in self.new_entries.items():
            actions.append(_path(kind, str(entry_id)).set(Value(_ddb(definition))))
        for (kind, entry_id), fields in self.entry_fields.items():
            # Field by field: a milestone's o/c counters beside them move with issues.
            actions += [_path(kind, str(entry_id), name).set(Value(_ddb(value)))
                        for name, value in fields.items()]
        actions += [_path(kind, str(entry_id)).remove() for kind, entry_id in self.removed_entries]
        return actions

    def _condition(self):
        condition = IssueTracker.pk.exists()
        if self.number_after is not None:
            taken = IssueTracker.next_number == self.number_after
            if self.number_after == 0:   # items written before the attribute had a value
                taken = taken | IssueTracker.next_number.does_not_exist()
            condition &= taken
        needed = {*self.entry_fields, *self.removed_entries}
        needed |= {(MILESTONES, m) for m, _ in self.milestone_counts}
        for kind, entry_id in sorted(needed):
            condition &= _path(kind, str(entry_id)).exists()
        return condition

    def _new_item(self, repo_id: int) -> IssueTracker:
        """The first tracker item, holding this change (which may only add)."""
        if self.entry_fields or self.removed_entries or self.milestone_counts or self.comments:
            # It names entries or comments that cannot exist yet: a stale read.
            raise ConditionFailed("tracker")
        after = self.applied(Tracker())
        return IssueTracker(
            *ikeys.tracker(repo_id), next_number=after.next_number,
            counts={k: n for k, n in after.counts.items() if n},
            labels={str(i): d for i, d in after.repo_labels.items()},
            milestones={str(i): d for i, d in after.milestones.items()}, num_comments=0)


def new_entry_id(kind: str) -> int:
    """A new label or milestone id (instance-wide, as Forgejo's)."""
    return ids.next_id("label" if kind == LABELS else "milestone")


def stage(repo_id: int, change: TrackerChange, *, exists: bool = True) -> None:
    """Stage ``change`` in the current unit of work; ``exists`` is whether the tracker
    item was there when read (False: the change creates it)."""
    if change.empty:
        return
    uow = unit_of_work.current()
    if not exists:
        uow.put(change._new_item(repo_id), label="tracker", must_not_exist=True)
        return
    uow.update(IssueTracker(*ikeys.tracker(repo_id)), change._actions(), label="tracker",
               condition=change._condition())
