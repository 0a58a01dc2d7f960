"""Labels and milestones of a repository.

Both live as entries of the repository's tracker item (``chalicelib.store.issues``):
one nested ``SET``/``REMOVE`` per change, so label and milestone writes never overwrite
each other or the counters beside them.  Reading or writing them needs the issues unit;
writing needs write access (403 otherwise).  Deleting one removes it from its issues.
"""
from __future__ import annotations

import re

from chalicelib.services import accounts
from chalicelib.services.errors import InvalidInput, NotFoundError
from chalicelib.services.issues import Ctx, mutate, now, parse_time, require_writer
from chalicelib.store import ids
from chalicelib.store import issues as store
from chalicelib.store.issues import Issue

_COLOR = re.compile(r"^#?([0-9a-fA-F]{6})$")


def _ensure(ctx: Ctx) -> None:
    if ctx.tracker().item is None:
        store.ensure_tracker(ctx.repo_id)


def _write(ctx: Ctx, actions: list, condition=None) -> bool:
    failed = store.commit(store.tracker_update(ctx.repo_id, actions, condition))
    session_forget(ctx)
    return failed is None


def session_forget(ctx: Ctx) -> None:
    from chalicelib.store import session
    session.forget(store.ikeys.tracker(ctx.repo_id))


def _color(raw) -> str:
    if not isinstance(raw, str) or not _COLOR.match(raw.strip()):
        raise InvalidInput("[Color]: color must be #rrggbb or rrggbb")
    return "#" + _COLOR.match(raw.strip()).group(1).lower()


# Labels ----------------------------------------------------------------------------------

def list_labels(ctx: Ctx) -> list[tuple[int, dict]]:
    labels = ctx.tracker().labels
    return sorted(labels.items(), key=lambda kv: (kv[1].get("name", ""), kv[0]))


def get_label(ctx: Ctx, label_id: int) -> dict:
    label = ctx.tracker().labels.get(label_id)
    if label is None:
        raise NotFoundError(f"label does not exist [id: {label_id}]")
    return label


def create_label(ctx: Ctx, data: dict) -> tuple[int, dict]:
    require_writer(ctx)
    opt = accounts.optional
    name = (opt(data, "name", str) or "").strip()
    if not name:
        raise InvalidInput("[Name]: Required")
    if data.get("color") in (None, ""):
        raise InvalidInput("[Color]: Required")
    label = {"name": name, "color": _color(data.get("color")),
             "description": opt(data, "description", str) or "",
             "exclusive": bool(opt(data, "exclusive", bool)),
             "archived": bool(opt(data, "is_archived", bool))}
    _ensure(ctx)
    label_id = ids.next_id("label")
    _write(ctx, [store.path("labels", str(label_id)).set(store.v(label))])
    return label_id, label


def edit_label(ctx: Ctx, label_id: int, data: dict) -> dict:
    require_writer(ctx)
    label = dict(get_label(ctx, label_id))
    opt = accounts.optional
    name = opt(data, "name", str)
    if name is not None:
        if not name.strip():
            raise InvalidInput("[Name]: Required")
        label["name"] = name.strip()
    if data.get("color") is not None:
        label["color"] = _color(data.get("color"))
    if opt(data, "description", str) is not None:
        label["description"] = data["description"]
    if opt(data, "exclusive", bool) is not None:
        label["exclusive"] = data["exclusive"]
    if opt(data, "is_archived", bool) is not None:
        label["archived"] = data["is_archived"]
    actions = [store.path("labels", str(label_id), k).set(store.v(val)) for k, val in label.items()]
    if not _write(ctx, actions, store.path("labels", str(label_id)).exists()):
        raise NotFoundError(f"label does not exist [id: {label_id}]")
    return label


def delete_label(ctx: Ctx, label_id: int) -> None:
    require_writer(ctx)
    get_label(ctx, label_id)
    _write(ctx, [store.path("labels", str(label_id)).remove()])
    # Issues render only labels that exist, so the label is gone from them already;
    # now drop the id from the items.
    for issue in store.query_all(ctx.repo_id, "oc", "ip", Issue.label_ids.contains(label_id)):
        mutate(ctx, int(issue.number), lambda old, new, tracker: setattr(
            new, "label_ids", [i for i in old.label_ids if int(i) != label_id]))


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


def find_milestone(ctx: Ctx, identifier: str) -> tuple[int, dict]:
    """By id, or by title (Forgejo accepts either in ``{id}``)."""
    milestones = ctx.tracker().milestones
    if identifier.isdigit() and int(identifier) in milestones:
        return int(identifier), milestones[int(identifier)]
    for milestone_id, m in sorted(milestones.items()):
        if m.get("title") == identifier:
            return milestone_id, m
    raise NotFoundError(f"milestone does not exist [id: {identifier}]")


def create_milestone(ctx: Ctx, data: dict) -> tuple[int, dict]:
    require_writer(ctx)
    opt = accounts.optional
    state = opt(data, "state", str) or "open"
    if state not in ("open", "closed"):
        raise InvalidInput("[State]: must be open or closed")
    created = now()
    milestone = {"title": (opt(data, "title", str) or "").strip(),
                 "description": opt(data, "description", str) or "",
                 "state": state, "due": parse_time(opt(data, "due_on", str), "Deadline") or 0,
                 "created": created, "updated": created,
                 "closed_at": created if state == "closed" else 0, "o": 0, "c": 0}
    _ensure(ctx)
    milestone_id = ids.next_id("milestone")
    _write(ctx, [store.path("milestones", str(milestone_id)).set(store.v(milestone))])
    return milestone_id, milestone


def edit_milestone(ctx: Ctx, identifier: str, data: dict) -> tuple[int, dict]:
    require_writer(ctx)
    milestone_id, current = find_milestone(ctx, identifier)
    opt = accounts.optional
    changes: dict = {}
    title = opt(data, "title", str)
    if title is not None and title.strip():
        changes["title"] = title.strip()
    if opt(data, "description", str) is not None:
        changes["description"] = data["description"]
    if "due_on" in data:
        changes["due"] = parse_time(opt(data, "due_on", str), "Deadline") or 0
    state = opt(data, "state", str)
    if state is not None:
        changes["state"] = "closed" if state == "closed" else "open"
        if changes["state"] != current.get("state"):
            changes["closed_at"] = now() if changes["state"] == "closed" else 0
    changes["updated"] = now()
    # Field by field: the o/c counters beside them are moved by issue writes.
    actions = [store.path("milestones", str(milestone_id), k).set(store.v(val))
               for k, val in changes.items()]
    if not _write(ctx, actions, store.milestone_exists(milestone_id)):
        raise NotFoundError(f"milestone does not exist [id: {identifier}]")
    return milestone_id, {**current, **changes}


def delete_milestone(ctx: Ctx, identifier: str) -> None:
    require_writer(ctx)
    milestone_id, _ = find_milestone(ctx, identifier)
    _write(ctx, [store.path("milestones", str(milestone_id)).remove()])
    for issue in store.query_all(ctx.repo_id, "oc", "ip", Issue.milestone_id == milestone_id):
        mutate(ctx, int(issue.number), lambda old, new, tracker: None)  # drops the id
