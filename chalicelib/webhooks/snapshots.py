"""Stored records rebuilt from the snapshots domain events carry (``events.snapshot``),
never saved: consumers render what the change wrote without reading the table again.

A snapshot is the record's attributes as plain JSON (sets as sorted lists, secrets and
keys left out); attributes a newer version added that this one does not know are
skipped, and missing ones take the model's defaults.  Each record's owner rebuilds it
(its face's ``*_from_snapshot``); an empty snapshot is no record.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from chalicelib import accounts, issues, repos

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.issues import Comment, Issue
    from chalicelib.repos import Repo


def account(snapshot: Mapping[str, Any]) -> Account | None:
    return accounts.account_from_snapshot(snapshot) if snapshot else None


def repo(snapshot: Mapping[str, Any]) -> Repo | None:
    return repos.repo_from_snapshot(snapshot) if snapshot else None


def issue(snapshot: Mapping[str, Any]) -> Issue | None:
    return issues.issue_from_snapshot(snapshot) if snapshot else None


def comment(snapshot: Mapping[str, Any]) -> Comment | None:
    return issues.comment_from_snapshot(snapshot) if snapshot else None
