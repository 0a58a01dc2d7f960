"""Pins in the table: the repository's tracker item keeps the pinned numbers in pin
order, issues (``pinned_issues``) and pull requests (``pinned_pulls``) apart, and a
``pin_version``.  Every pin change writes the whole list, setting ``pin_version`` one
higher, on condition that it is still the version read: of two pins at once one
fails and reads again, so the list never exceeds the limit.  Label in
``ConditionFailed``: "pins".
"""
from __future__ import annotations

from chalicelib.issues.models import IssueTracker
from chalicelib.issues.store import Issue, ikeys
from chalicelib.store import unit_of_work

LABEL = "pins"


def pinned_items(repo_id: int, numbers: list[int], *, consistent: bool = False) -> list[Issue]:
    """The issues (or pull requests) of ``numbers`` that still exist, in that order (one
    BatchGetItem)."""
    found_keys = [ikeys.issue(repo_id, n) for n in numbers]
    unit_of_work.prefetch(found_keys, consistent=consistent)
    found = [unit_of_work.get(Issue, key) for key in found_keys]
    return [item for item in found if item is not None]


def stage_pins(repo_id: int, is_pull: bool, numbers: list[int], read_version: int) -> None:
    attribute = IssueTracker.pinned_pulls if is_pull else IssueTracker.pinned_issues
    unchanged = IssueTracker.pin_version == read_version
    if not read_version:
        unchanged = IssueTracker.pin_version.does_not_exist() | unchanged
    unit_of_work.current().update(
        IssueTracker(*ikeys.tracker(repo_id)),
        [attribute.set(list(numbers)), IssueTracker.pin_version.set(read_version + 1)],
        label=LABEL, condition=IssueTracker.pk.exists() & unchanged)
