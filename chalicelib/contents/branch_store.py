"""Branch records: the head commit of each branch, ``R#<repo id>``/``BRANCH#<name>``.

They are written in the same transaction as the ref they describe (``contents.pushes``),
so listing branches needs no git reads.  Writes stage into the current unit of work.
"""
from __future__ import annotations

from chalicelib.contents.models import BranchInfo, keys
from chalicelib.store import unit_of_work
from chalicelib.store.table import Item

__all__ = ["BranchInfo"]

LABEL = "branch record"


def key(repo_id: int, name: str) -> tuple[str, str]:
    """The record's key (to preload it)."""
    return keys.branch(int(repo_id), name)


def get(repo_id: int, name: str) -> BranchInfo | None:
    return unit_of_work.get(BranchInfo, keys.branch(int(repo_id), name))


def list_branches(repo_id: int, *, consistent: bool = False) -> list[BranchInfo]:
    """Every branch record of a repository, by name (one Query)."""
    items = Item.query(keys.repo_partition(int(repo_id)), Item.sk.startswith(keys.BRANCH_PREFIX),
                       consistent_read=consistent)
    return sorted(items, key=lambda b: b.name)


def new_record(repo_id: int, name: str, **fields) -> BranchInfo:
    """A branch record (not yet written); ``fields`` are BranchInfo's commit attributes."""
    return BranchInfo(*keys.branch(int(repo_id), name), name=name, **fields)


def copy_record(record: BranchInfo, repo_id: int) -> BranchInfo:
    """The same branch head in another repository (a fork)."""
    fields = {name: value for name, value in record.attribute_values.items()
              if name not in ("kind", "pk", "sk", "name")}
    return new_record(repo_id, record.name, **fields)


def stage_put(record: BranchInfo) -> None:
    unit_of_work.current().put(record, label=LABEL)


def stage_delete(repo_id: int, name: str) -> None:
    unit_of_work.current().delete(BranchInfo(*keys.branch(int(repo_id), name)), label=LABEL)
