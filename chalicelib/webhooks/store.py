"""Webhooks of repositories and organizations, in the table.

| item | pk | sk |
|---|---|---|
| repository hook | ``R#<repo id>`` | ``HOOK#<hook id, 15 digits>`` |
| organization hook | ``A#<org id>`` | ``HOOK#<hook id, 15 digits>`` |
| system or default hook (``/admin/hooks``) | ``SYSHOOKS`` | ``HOOK#<hook id, 15 digits>`` |
| user hook (``/user/hooks``) | ``A#<user id>`` | ``HOOK#<hook id, 15 digits>`` |

A hook lives in its owner's partition, so listing an owner's hooks (and finding the
hooks an event reaches: the repository's, then its owner's) is one Query each, and
deleting a repository takes its hooks with it.  Write operations stage into the current
unit of work; a failed condition names ``HOOK`` (``ConditionFailed.label``).
"""
from __future__ import annotations

from chalicelib.store import unit_of_work
from chalicelib.store.table import Item
from chalicelib.webhooks.models import Hook, keys

HOOK = "hook"        # the hook was deleted meanwhile (edit, delete)


def hook_key(owner_kind: str, owner_id: int, hook_id: int) -> tuple[str, str]:
    if owner_kind == "repo":
        return keys.repo_hook(owner_id, hook_id)
    if owner_kind == "org":
        return keys.org_hook(owner_id, hook_id)
    if owner_kind == "system":
        return keys.system_hook(hook_id)
    if owner_kind == "user":       # the account's partition, as an organization's
        return keys.org_hook(owner_id, hook_id)
    raise ValueError(f"unknown hook owner kind {owner_kind!r}")


def get(owner_kind: str, owner_id: int, hook_id: int) -> Hook | None:
    return unit_of_work.get(Hook, hook_key(owner_kind, owner_id, hook_id))


def hooks_of(owner_kind: str, owner_id: int) -> list[Hook]:
    """In id order.  Consistent: a client that lists (or a push that fires) right after
    a create must see the new hook."""
    pk = hook_key(owner_kind, owner_id, 0)[0]
    return list(Item.query(pk, Item.sk.startswith(keys.HOOK_PREFIX), consistent_read=True))


def new(owner_kind: str, owner_id: int, hook_id: int, **fields) -> Hook:
    return Hook(*hook_key(owner_kind, owner_id, hook_id), id=hook_id, owner_kind=owner_kind,
                owner_id=owner_id, **fields)


def stage_create(hook: Hook) -> None:
    unit_of_work.current().put(hook, label=HOOK, must_not_exist=True)


def stage_save(hook: Hook) -> None:
    """Write an edited hook only while it exists: an edit racing a delete must not
    bring it back (fails with ``HOOK``)."""
    unit_of_work.current().put(hook, label=HOOK, condition=Hook.pk.exists())


def stage_delete(hook: Hook) -> None:
    """Fails with ``HOOK`` when it was deleted meanwhile."""
    unit_of_work.current().delete(Hook(hook.pk, hook.sk), label=HOOK,
                                  condition=Hook.pk.exists())
