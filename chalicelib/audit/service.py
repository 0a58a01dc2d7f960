"""The audit log as the API reads it: who may read which part, the filters, a page.

- Site admins read the whole instance's log (``/admin/audit_log``); an organization's
  owners (and site admins) read the organization's (``/orgs/{org}/audit_log``): every
  entry of a repository it owned when the change happened, and every change to the
  organization itself, its teams, members and webhooks.
- Filters: ``actor`` (a login), ``repo`` (``owner/name``, or a name within the
  organization), ``action`` (``repository`` takes every ``repository.*``), ``since`` and
  ``until`` (RFC 3339 or Unix seconds, both inclusive).  A login or a name resolves to
  the account or repository the log last saw under it (so a deleted or renamed one is
  still found), else to the live one; a name nobody had gives an empty page.
- A page is read newest first from one index partition (``store.entries``), stopping one
  entry past the page: the total says whether another page follows, the log is never
  counted through.  Entries past their retention are never shown, whether or not
  DynamoDB's TTL removed them yet.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from typing import TYPE_CHECKING

from chalicelib import accounts, clock, repos
from chalicelib.audit import store
from chalicelib.audit.entries import Entry
from chalicelib.errors import InvalidInput

if TYPE_CHECKING:
    from chalicelib.accounts import Account

# Entries one DynamoDB Query page may return at most for a list page (they are small:
# a few hundred bytes to a few kilobytes, so one page of 1 MB holds them).
MAX_READ = 1000


@dataclass(frozen=True)
class AuditQuery:
    actor: str | None = None
    repo: str | None = None
    action: str | None = None
    since: float | None = None
    until: float | None = None


def parse_time(text: str | None, name: str) -> float | None:
    """``since``/``until``: RFC 3339 (``2026-12-07T10:00:00Z``) or Unix seconds."""
    if text is None or not text.strip():
        return None
    text = text.strip()
    try:
        value = float(text)
    except ValueError:
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise InvalidInput(f"{name}: parsing time {text!r} as RFC 3339 failed") from None
        if moment.tzinfo is None:
            raise InvalidInput(f"{name}: the time {text!r} names no zone (add Z)")
        return moment.timestamp()
    if not math.isfinite(value) or value < 0:
        raise InvalidInput(f"{name}: {text!r} is not a time")
    return value


def query_of(actor: str | None, repo: str | None, action: str | None,
             since: str | None, until: str | None) -> AuditQuery:
    end = parse_time(until, "until")
    if end is not None and end.is_integer():
        end += 0.999999         # a whole second named: all of it (records show seconds)
    return AuditQuery(actor=(actor or "").strip() or None, repo=(repo or "").strip() or None,
                      action=(action or "").strip().lower() or None,
                      since=parse_time(since, "since"), until=end)


def _actor_id(login: str, now: float) -> int | None:
    seen = store.named_id("actor", login, now)
    if seen is not None:
        return seen
    account = accounts.account_by_name(login)
    return int(account.id) if account is not None else None


def _repo_id(full_name: str, now: float) -> int | None:
    seen = store.named_id("repo", full_name, now)
    if seen is not None:
        return seen
    owner, _, name = full_name.partition("/")
    found = repos.repo_by_name(owner, name) if owner and name else None
    return int(found.id) if found is not None else None


def instance_page(query: AuditQuery, *, offset: int, limit: int) -> tuple[list[Entry], int]:
    """A page of the whole instance's log (site admins)."""
    return _page(query, None, offset=offset, limit=limit)


def org_page(org: Account, query: AuditQuery, *, offset: int,
             limit: int) -> tuple[list[Entry], int]:
    """A page of the organization's log (its owners, site admins); ``repo`` may name a
    repository of the organization by its name alone."""
    if query.repo and "/" not in query.repo:
        query = AuditQuery(actor=query.actor, repo=f"{org.login}/{query.repo}",
                           action=query.action, since=query.since, until=query.until)
    return _page(query, int(org.id), offset=offset, limit=limit)


def _page(query: AuditQuery, owner_id: int | None, *, offset: int,
          limit: int) -> tuple[list[Entry], int]:
    if query.since is not None and query.until is not None and query.since > query.until:
        raise InvalidInput("since: must not be after until")
    now = clock.now()
    repo_id = actor_id = None
    if query.repo:
        if "/" not in query.repo:
            raise InvalidInput("repo: must be owner/name")
        repo_id = _repo_id(query.repo, now)
        if repo_id is None:
            return [], 0
    if query.actor:
        actor_id = _actor_id(query.actor, now)
        if actor_id is None:
            return [], 0
    want = offset + limit + 1
    found = store.entries(repo_id=repo_id, actor_id=actor_id, owner_id=owner_id,
                          action=query.action, since=query.since, until=query.until,
                          page_size=min(want, MAX_READ))
    live = (store.entry_of(copy) for copy in found if float(copy.expires) > now)
    shown = list(islice(live, want))
    return shown[offset:offset + limit], len(shown)


def exported_day(day_start: float) -> list[Entry]:
    """Every entry of the (UTC) day that starts at ``day_start``, oldest first (the
    export; ``export.py``)."""
    now = clock.now()
    found = store.entries(since=day_start, until=day_start + 86400 - 1e-6,
                          newest_first=False, page_size=MAX_READ)
    return [store.entry_of(copy) for copy in found if float(copy.expires) > now]
