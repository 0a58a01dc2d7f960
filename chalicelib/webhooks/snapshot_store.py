"""Stored records rebuilt from the snapshots domain events carry (``events.snapshot``),
never saved: consumers render what the change wrote without reading the table again.

A snapshot is the record's attributes as plain JSON (sets as sorted lists, secrets and
keys left out); attributes a newer version added that this one does not know are
skipped, and missing ones take the model's defaults.
"""
from __future__ import annotations

from typing import Any, Mapping

from pynamodb.attributes import NumberSetAttribute, UnicodeSetAttribute

from chalicelib.issues.store import Comment, Issue, ikeys
from chalicelib.store.table import Account, Repo
from chalicelib.store.keys import keys


def _values(model, snapshot: Mapping[str, Any]) -> dict:
    attributes = model.get_attributes()
    out = {}
    for name, value in (snapshot or {}).items():
        attribute = attributes.get(name)
        if attribute is None or name in ("pk", "sk", "kind"):
            continue
        if isinstance(attribute, (NumberSetAttribute, UnicodeSetAttribute)):
            value = set(value) if value else None
        out[name] = value
    return out


def account(snapshot: Mapping[str, Any]) -> Account | None:
    if not snapshot:
        return None
    values = _values(Account, snapshot)
    values.setdefault("login", "")
    values.setdefault("lower_name", values["login"].lower())
    values.setdefault("created", 0)
    values.setdefault("updated", 0)
    return Account(*keys.account(int(values.get("id") or 0)), **values)


def repo(snapshot: Mapping[str, Any]) -> Repo | None:
    if not snapshot:
        return None
    values = _values(Repo, snapshot)
    owner = str(values.get("owner_login", "")).lower()
    for name, default in (("created", 0), ("updated", 0), ("pool_id", values.get("id", 0)),
                          ("default_branch", "main"), ("owner_login", ""), ("name", ""),
                          ("owner_id", 0)):
        values.setdefault(name, default)
    values.setdefault("lower_name", str(values["name"]).lower())
    return Repo(*keys.repo(owner, values["lower_name"]), **values)


def issue(snapshot: Mapping[str, Any]) -> Issue | None:
    if not snapshot:
        return None
    values = _values(Issue, snapshot)
    values.setdefault("created", 0)
    values.setdefault("updated", 0)
    return Issue(*ikeys.issue(int(values.get("repo_id") or 0), int(values.get("number") or 0)),
                 **values)


def comment(snapshot: Mapping[str, Any]) -> Comment | None:
    if not snapshot:
        return None
    values = _values(Comment, snapshot)
    for name in ("created", "updated", "poster_id", "issue_id", "issue_number", "repo_id"):
        values.setdefault(name, 0)
    return Comment(*ikeys.comment(int(values["repo_id"]), int(values["issue_number"]),
                                  int(values.get("id") or 0)), **values)
