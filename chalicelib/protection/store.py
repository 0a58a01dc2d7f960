"""Branch and tag protection in the table: one item per repository.

| item | pk | sk | attributes |
|---|---|---|---|
| protection | ``R#<repo>`` | ``PROTECTION`` | ``rules`` (JSON: ``branch``, ``tag`` rule lists, ``next_tag_id``), ``version`` |

One item, so that deciding a push or a merge costs one GetItem (or none, preloaded with
the branch record) whatever the number of rules, and so that every edit is one
conditional write: a writer stages the whole new set conditional on ``version`` as read
(``attribute_not_exists`` when there was none).  Two admins editing at once: one lands,
the other gets ``ConditionFailed(RULES)`` and re-reads; no edit is ever lost.  The item
lives in the repository's partition (deleting the repository removes it).

Loads are tolerant: a rule whose stored JSON lacks a field takes its default, a rule
that cannot be read at all is skipped, and an unreadable item reads as no rules kept
(with its version, so the next write still conflicts correctly).
"""
from __future__ import annotations

import dataclasses
import json
import logging

from chalicelib import repos
from chalicelib.protection.models import ProtectionItem, keys
from chalicelib.protection.rules import BranchRule, Protection, TagRule
from chalicelib.store import unit_of_work

log = logging.getLogger("nimbus.protection")

RULES = "protection"     # ConditionFailed label: the rules changed since read
REPO = "repo"            # ConditionFailed label: the repository is gone


def protection_key(repo_id: int) -> tuple[str, str]:
    """The key to preload with a request that will ask ``get``."""
    return keys.protection(int(repo_id))


# JSON ---------------------------------------------------------------------------------------

_BRANCH_FIELDS = {f.name: f for f in dataclasses.fields(BranchRule)}
_TAG_FIELDS = {f.name: f for f in dataclasses.fields(TagRule)}


def _coerce(name: str, spec, value):
    """A stored value of a field in the field's type (None: unusable, take the default)."""
    if spec.default is dataclasses.MISSING and spec.default_factory is not dataclasses.MISSING:
        if not isinstance(value, list):
            return None
        if name.endswith("_ids"):
            return [int(v) for v in value if isinstance(v, int) and not isinstance(v, bool)]
        return [v for v in value if isinstance(v, str)]
    default = spec.default
    if isinstance(default, bool):
        return value if isinstance(value, bool) else None
    if isinstance(default, int) or name == "id":
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return int(value) if ok else None
    return value if isinstance(value, str) else None


def _load(cls, fields: dict, data: dict):
    values = {}
    for name, spec in fields.items():
        if name in data:
            value = _coerce(name, spec, data[name])
            if value is not None:
                values[name] = value
    return cls(**values)


def _branch_rule(data) -> BranchRule | None:
    if not isinstance(data, dict) or not isinstance(data.get("rule_name"), str):
        return None
    return _load(BranchRule, _BRANCH_FIELDS, data)


def _tag_rule(data) -> TagRule | None:
    if not isinstance(data, dict) or not isinstance(data.get("name_pattern"), str) \
            or not isinstance(data.get("id"), int):
        return None
    return _load(TagRule, _TAG_FIELDS, data)


def _decode(text: str, version: int) -> Protection:
    try:
        data = json.loads(text or "{}")
    except ValueError:
        log.warning("unreadable protection rules (version %s)", version)
        data = {}
    if not isinstance(data, dict):
        data = {}
    branch = [r for r in map(_branch_rule, data.get("branch") or []) if r is not None]
    tag = [r for r in map(_tag_rule, data.get("tag") or []) if r is not None]
    mark = data.get("next_tag_id")
    mark = mark if isinstance(mark, int) and not isinstance(mark, bool) else 0
    return Protection(branch, tag, version, mark)


def _encode(protection: Protection) -> str:
    next_tag_id = protection.next_tag_id() - 1
    return json.dumps({"branch": [dataclasses.asdict(r) for r in protection.branch_rules],
                       "tag": [dataclasses.asdict(r) for r in protection.tag_rules],
                       "next_tag_id": next_tag_id},
                      separators=(",", ":"), sort_keys=True)


def encoded_size(protection: Protection) -> int:
    return len(_encode(protection).encode("utf-8"))


# Reads and writes ---------------------------------------------------------------------------

def get(repo_id: int, consistent: bool = False) -> Protection:
    """Every rule of the repository (an empty Protection, version 0, when none)."""
    item = unit_of_work.get(ProtectionItem, protection_key(repo_id), consistent=consistent)
    if item is None:
        return Protection()
    return _decode(item.rules, int(item.version or 0))


def stage_put(repo, read: Protection, new: Protection) -> None:
    """Stage the whole new set of rules, conditional on the version ``read`` came with
    (``ConditionFailed(RULES)`` when another write landed since), and a check that the
    repository still exists (``ConditionFailed(REPO)``).  The highest tag rule id given
    out is kept (``read``'s or ``new``'s, whichever is higher) so ids are not reused."""
    repo_id = int(repo.id)
    new = dataclasses.replace(new, tag_id_mark=max(new.tag_id_mark, read.next_tag_id() - 1))
    item = ProtectionItem(*protection_key(repo_id), rules=_encode(new),
                          version=read.version + 1)
    uow = unit_of_work.current()
    if read.version == 0:
        uow.put(item, label=RULES, must_not_exist=True)
    else:
        uow.put(item, label=RULES, condition=ProtectionItem.version == read.version)
    # The repository record counts the rules (``Repo.protection_rules``) in the same
    # write, conditional on the repository still existing: a ref change in a repository
    # without rules then knows it from the record it has read anyway.
    count = len(new.branch_rules) + len(new.tag_rules)
    repos.stage_repo_count_values(repo, {"protection_rules": count}, label=REPO, same_id=True)
    repo.protection_rules = count
