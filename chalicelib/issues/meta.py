"""Labels and milestones of a repository.

Both live as entries of the repository's tracker item (``chalicelib.issues.store``):
one nested ``SET``/``REMOVE`` per change, so label and milestone writes never overwrite
each other or the counters beside them.  Reading or writing them needs the issues unit;
writing needs write access (403 otherwise).  Every write raises ``LabelChanged`` in the
same commit.  Deleting one removes it from its issues in that commit too.
"""
from __future__ import annotations

import re
from typing import Callable

from chalicelib import clock, events
from chalicelib.errors import InvalidInput, NotFoundError
from chalicelib.http.options import given, given_fields
from chalicelib.issues import label_templates, store, tracker_store
from chalicelib.issues.context import Ctx, parse_time, require_writer, value_of
from chalicelib.issues.options import (CreateLabelOption, CreateMilestoneOption, EditLabelOption,
                                       EditMilestoneOption)
from chalicelib.issues.service import Written, commit_retrying
from chalicelib.issues.store import Issue, Tracker
from chalicelib.issues.tracker_store import LABELS, MILESTONES, TrackerChange
from chalicelib.store.unit_of_work import UnitOfWork

_COLOR = re.compile(r"^#?([0-9a-fA-F]{6})$")
_KIND = {LABELS: "label", MILESTONES: "milestone"}


def _color(raw: str) -> str:
    found = _COLOR.match(raw.strip())
    if not found:
        raise InvalidInput("[Color]: color must be #rrggbb or rrggbb")
    return "#" + found.group(1).lower()


def _entry_event(ctx: Ctx, kind: str, entry_id: int, action: str,
                 entry: dict) -> events.LabelChanged:
    return events.LabelChanged(**ctx.event_fields(), kind=_KIND[kind], item_id=entry_id,
                               action=action, item={"id": entry_id, **entry})


def _create_entry(ctx: Ctx, kind: str, entry: dict):
    """A new label or milestone, with a fresh id, in the tracker."""
    entry_id = tracker_store.new_entry_id(kind)

    def build(tracker: Tracker) -> tuple[int, dict, TrackerChange]:
        change = TrackerChange()
        change.set_entry(kind, entry_id, entry)
        return entry_id, entry, change

    return _write_entry(ctx, kind, "created", build)


def _write_entry(ctx: Ctx, kind: str, action: str,
                 build: Callable[[Tracker], tuple[int, dict, TrackerChange]]) -> tuple[int, dict]:
    """Commit the change ``build(tracker)`` makes to one entry, with its event; when the
    tracker changed under it, build again from a consistent read (which answers 404 if
    the entry is gone).  Returns (id, entry as the caller should see it)."""
    def write(consistent: bool, uow: UnitOfWork) -> Written:
        tracker = ctx.tracker(consistent=consistent)
        entry_id, entry, change = build(tracker)
        tracker_store.stage(ctx.repo_id, change, exists=tracker.exists)
        uow.raise_event(_entry_event(ctx, kind, entry_id, action, entry))
        return tracker, change, (entry_id, entry)

    return commit_retrying(ctx, write, conflict=f"the {_KIND[kind]} changed meanwhile; try again")


def _delete_entry(ctx: Ctx, kind: str, find: Callable[[Tracker], tuple[int, dict]],
                  carriers: Callable[[int], list[Issue]], detach: Callable[[Issue], None]) -> None:
    """Remove an entry and detach it from the issues that carry it, in one commit.

    Past 100 items the unit commits in chunks, in staging order: the issues first, the
    entry's removal and the event last, so a failure part-way leaves the entry, and
    deleting it again finishes the job (issues already detached are not found again)."""
    def write(consistent: bool, uow: UnitOfWork) -> Written:
        tracker = ctx.tracker(consistent=consistent)
        entry_id, entry = find(tracker)
        for old in carriers(entry_id):
            new = store.copy_issue(old)
            detach(new)
            new.version = int(old.version) + 1
            store.stage_replace_issue(new, int(old.version))
        change = TrackerChange()
        change.remove_entry(kind, entry_id)
        tracker_store.stage(ctx.repo_id, change)
        uow.raise_event(_entry_event(ctx, kind, entry_id, "deleted", entry))
        return tracker, change, None

    commit_retrying(ctx, write, conflict=f"the {_KIND[kind]} changed meanwhile; try again")


# Labels ----------------------------------------------------------------------------------

def list_labels(ctx: Ctx) -> list[tuple[int, dict]]:
    labels = ctx.tracker().repo_labels
    return sorted(labels.items(), key=lambda kv: (kv[1].get("name", ""), kv[0]))


def _label_in(tracker: Tracker, label_id: int) -> dict:
    label = tracker.repo_labels.get(label_id)
    if label is None:
        raise NotFoundError(f"label does not exist [id: {label_id}]")
    return label


def get_label(ctx: Ctx, label_id: int) -> dict:
    return _label_in(ctx.tracker(), label_id)


def new_label(option: CreateLabelOption) -> dict:
    """A label's definition from CreateLabelOption (a repository's or an
    organization's), or 422."""
    name = (option.name or "").strip()
    if not name:
        raise InvalidInput("[Name]: Required")
    if not option.color:
        raise InvalidInput("[Color]: Required")
    return {"name": name, "color": _color(option.color),
            "description": option.description or "",
            "exclusive": bool(option.exclusive), "archived": bool(option.is_archived)}


def label_edits(option: EditLabelOption) -> dict:
    """The definition's fields EditLabelOption changes (null leaves a field as it is),
    or 422."""
    sent = {k: v for k, v in given_fields(option).items() if v is not None}
    fields: dict = {}
    if "name" in sent:
        if not sent["name"].strip():
            raise InvalidInput("[Name]: Required")
        fields["name"] = sent["name"].strip()
    if "color" in sent:
        fields["color"] = _color(sent["color"])
    for name, stored in (("description", "description"), ("exclusive", "exclusive"),
                         ("is_archived", "archived")):
        if name in sent:
            fields[stored] = sent[name]
    return fields


def create_label(ctx: Ctx, option: CreateLabelOption) -> tuple[int, dict]:
    require_writer(ctx)
    return _create_entry(ctx, LABELS, new_label(option))


def create_label_set(ctx: Ctx, set_name: str) -> list[int]:
    """Add a label template's labels (``label_templates``) to the tracker in one commit,
    with an event each; returns their ids.  422 for a set that does not exist."""
    require_writer(ctx)
    labels = label_templates.labels_of(set_name)
    if labels is None:
        raise InvalidInput(f"label template does not exist [name: {set_name}]")
    entry_ids = [tracker_store.new_entry_id(LABELS) for _ in labels]

    def write(consistent: bool, uow: UnitOfWork) -> Written:
        tracker = ctx.tracker(consistent=consistent)
        change = TrackerChange()
        for entry_id, label in zip(entry_ids, labels):
            change.set_entry(LABELS, entry_id, label)
            uow.raise_event(_entry_event(ctx, LABELS, entry_id, "created", label))
        tracker_store.stage(ctx.repo_id, change, exists=tracker.exists)
        return tracker, change, entry_ids

    return commit_retrying(ctx, write, conflict="the labels changed meanwhile; try again")


def edit_label(ctx: Ctx, label_id: int, option: EditLabelOption) -> dict:
    require_writer(ctx)
    get_label(ctx, label_id)          # a missing label is a 404 before the rules' checks
    fields = label_edits(option)

    def build(tracker: Tracker) -> tuple[int, dict, TrackerChange]:
        label = {**_label_in(tracker, label_id), **fields}
        change = TrackerChange()
        change.edit_entry(LABELS, label_id, label)
        return label_id, label, change

    return _write_entry(ctx, LABELS, "edited", build)[1]


def delete_label(ctx: Ctx, label_id: int) -> None:
    require_writer(ctx)

    def detach(issue: Issue) -> None:
        issue.label_ids = [i for i in issue.label_ids if int(i) != label_id]

    _delete_entry(ctx, LABELS, lambda tracker: (label_id, _label_in(tracker, label_id)),
                  lambda entry_id: store.issues_with_label(ctx.repo_id, entry_id), detach)


# Milestones ----------------------------------------------------------------------------------

NO_DUE = 253370764800  # Forgejo's "no deadline" (9999-12-31), used only for ordering


def list_milestones(ctx: Ctx, state: str = "open", name: str = "") -> list[tuple[int, dict]]:
    state = (state or "open").lower()
    found = []
    for milestone_id, m in ctx.tracker().milestones.items():
        if state in ("open", "closed") and m.get("state") != state:
            continue
        if name and name.lower() not in m.get("title", "").lower():
            continue
        found.append((milestone_id, m))
    return sorted(found, key=lambda kv: (kv[1].get("due") or NO_DUE, kv[0]))


def _milestone_in(tracker: Tracker, identifier: str) -> tuple[int, dict]:
    """By id, or by title (Forgejo accepts either in ``{id}``)."""
    milestones = tracker.milestones
    if identifier.isdigit() and int(identifier) in milestones:
        return int(identifier), milestones[int(identifier)]
    for milestone_id, m in sorted(milestones.items()):
        if m.get("title") == identifier:
            return milestone_id, m
    raise NotFoundError(f"milestone does not exist [id: {identifier}]")


def find_milestone(ctx: Ctx, identifier: str) -> tuple[int, dict]:
    return _milestone_in(ctx.tracker(), identifier)


def create_milestone(ctx: Ctx, option: CreateMilestoneOption) -> tuple[int, dict]:
    require_writer(ctx)
    state = option.state or "open"
    if state not in ("open", "closed"):
        raise InvalidInput("[State]: must be open or closed")
    created = clock.seconds()
    milestone = {"title": (option.title or "").strip(),
                 "description": option.description or "",
                 "state": state, "due": parse_time(option.due_on or None, "Deadline") or 0,
                 "created": created, "updated": created,
                 "closed_at": created if state == "closed" else 0, "o": 0, "c": 0}
    return _create_entry(ctx, MILESTONES, milestone)


def edit_milestone(ctx: Ctx, identifier: str,
                   option: EditMilestoneOption) -> tuple[int, dict]:
    require_writer(ctx)
    find_milestone(ctx, identifier)   # a missing milestone is a 404 before the rules' checks
    fields: dict = {}
    title = value_of(option.title)
    if title is not None and title.strip():
        fields["title"] = title.strip()
    if value_of(option.description) is not None:
        fields["description"] = option.description
    if given(option, "due_on"):       # null removes the deadline
        fields["due"] = parse_time(option.due_on or None, "Deadline") or 0
    state = value_of(option.state)

    def build(tracker: Tracker) -> tuple[int, dict, TrackerChange]:
        milestone_id, current = _milestone_in(tracker, identifier)
        changes = dict(fields)
        if state is not None:
            changes["state"] = "closed" if state == "closed" else "open"
            if changes["state"] != current.get("state"):
                changes["closed_at"] = clock.seconds() if changes["state"] == "closed" else 0
        changes["updated"] = clock.seconds()
        change = TrackerChange()
        change.edit_entry(MILESTONES, milestone_id, changes)
        return milestone_id, {**current, **changes}, change

    return _write_entry(ctx, MILESTONES, "edited", build)


def delete_milestone(ctx: Ctx, identifier: str) -> None:
    """Its issues lose it; its counters go with it (the issues' own counts stay)."""
    require_writer(ctx)

    def detach(issue: Issue) -> None:
        issue.milestone_id = 0

    _delete_entry(ctx, MILESTONES, lambda tracker: _milestone_in(tracker, identifier),
                  lambda entry_id: store.issues_in_milestone(ctx.repo_id, entry_id), detach)
