"""An organization's labels (Forgejo's ``/orgs/{org}/labels``): list, get, create, edit,
delete.  They label the issues and pull requests of every repository the organization
owns, beside each repository's own labels (``context.Ctx.tracker`` adds them).

Who may do what (Forgejo's): whoever may see the organization lists and reads its
labels (404 for who may not); its owners and site admins create, edit and delete them
(403 "Must be an organization owner" for anyone else who sees it).  A label's fields
and their checks are a repository label's (``meta.new_label``, ``meta.label_edits``).

Every write rewrites the organization's label item conditional on the version read
(``org_label_store``); a lost race reads again and builds again, so two owners writing
at once both land.  Deleting a label leaves the issues that carry its id as they are:
every reader keeps only the ids of labels that exist (ids are never reused), and the
issue's next label change drops it.  So a deletion is one write, whatever the number of
repositories and issues.
"""
from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, Callable

from chalicelib import accounts
from chalicelib.errors import (ConditionFailed, ConflictError, InvalidInput, NotFoundError,
                               PermissionDenied)
from chalicelib.issues import meta, org_label_store, tracker_store
from chalicelib.issues.options import CreateLabelOption, EditLabelOption
from chalicelib.issues.org_label_store import OrgLabelSet
from chalicelib.repos import Caller, can_see_account, is_org, is_org_owner
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account

ATTEMPTS = 8
MAX_BACKOFF = 0.2
# The item stays far below DynamoDB's 400 KB: a definition is at most about 1 KB.
MAX_ORG_LABELS = 300


def visible_org(caller: Caller, name: str) -> Account:
    """The organization called ``name`` as the caller may see it (404 otherwise)."""
    org = accounts.account_by_name(name)
    if org is None or not is_org(org) or not can_see_account(caller.user, org) \
            or (caller.public_only and org.visibility != "public"):
        raise NotFoundError(f"organization does not exist [name: {name}]")
    return org


def _require_owner(org: Account, actor: Account | None) -> None:
    if not is_org_owner(org, actor):
        raise PermissionDenied("Must be an organization owner")


def _label_in(found: OrgLabelSet, label_id: int) -> dict:
    label = found.labels.get(label_id)
    if label is None:
        raise NotFoundError(f"label does not exist [id: {label_id}]")
    return label


# Reads ------------------------------------------------------------------------------------

def list_labels(org: Account, sort: str = "") -> list[tuple[int, dict]]:
    """By name (``reversealphabetically``: the other way round).  Forgejo's issue-count
    orders are not kept: they fall back to the name order."""
    found = sorted(org_label_store.get(int(org.id)).labels.items(),
                   key=lambda kv: (kv[1].get("name", ""), kv[0]))
    return found[::-1] if sort == "reversealphabetically" else found


def get_label(org: Account, label_id: int) -> dict:
    return _label_in(org_label_store.get(int(org.id)), label_id)


# Writes -----------------------------------------------------------------------------------

def _write(org: Account, change: Callable[[OrgLabelSet], tuple[dict[int, dict], dict]]) -> dict:
    """Commit ``change(read)`` -> (the new set, the label to answer) on the item as read;
    when another write landed since, read it again (consistently) and change that."""
    org_id = int(org.id)
    for attempt in range(ATTEMPTS):
        read = org_label_store.get(org_id, consistent=attempt > 0)
        labels, answer = change(read)
        try:
            with unit_of_work.writing():
                org_label_store.stage_put(org_id, read, labels)
        except ConditionFailed as failed:
            if failed.label != org_label_store.LABEL:
                raise
            # Exponential jitter: writers racing for the item spread out.
            time.sleep(random.uniform(0, min(MAX_BACKOFF, 0.005 * 2 ** attempt)))
            continue
        return answer
    raise ConflictError("the organization's labels changed meanwhile; try again")


def create_label(actor: Account | None, org: Account,
                 option: CreateLabelOption) -> tuple[int, dict]:
    _require_owner(org, actor)
    label = meta.new_label(option)
    label_id = tracker_store.new_entry_id(tracker_store.LABELS)

    def add(read: OrgLabelSet) -> tuple[dict[int, dict], dict]:
        if len(read.labels) >= MAX_ORG_LABELS:
            raise InvalidInput(f"an organization has at most {MAX_ORG_LABELS} labels")
        return {**read.labels, label_id: label}, label

    return label_id, _write(org, add)


def edit_label(actor: Account | None, org: Account, label_id: int,
               option: EditLabelOption) -> dict:
    _require_owner(org, actor)
    current = get_label(org, label_id)   # a missing label is a 404 before the fields' checks
    fields = meta.label_edits(option)
    if not fields:
        return current

    def edit(read: OrgLabelSet) -> tuple[dict[int, dict], dict]:
        label = {**_label_in(read, label_id), **fields}
        return {**read.labels, label_id: label}, label

    return _write(org, edit)


def delete_label(actor: Account | None, org: Account, label_id: int) -> None:
    _require_owner(org, actor)

    def remove(read: OrgLabelSet) -> tuple[dict[int, dict], dict]:
        label = _label_in(read, label_id)
        return {i: entry for i, entry in read.labels.items() if i != label_id}, label

    _write(org, remove)
