"""The quota check: recompute every account's usage from the packs (S3 and their items)
and DynamoDB, and repair what drifted (the daily ``quota_check`` schedule, and the
operator's ``admin quota recount``).

Usage is kept exact in the transactions of the changes themselves (``quota_charges``);
this finds what a documented exception left behind — a change past 100 items whose
later chunks failed (``pushes``), a pool whose repositories reference nothing any
more (compaction dropped charged packs), a bug, a manual edit — and reports it.

1. Each pool: its repositories are read consistently, then its live packs; a
   repository's ``quota_size`` must equal the charges naming it on those packs.  The
   pack files in S3 are listed and a size that differs from the pack list is reported
   (not repaired: the pack list is what readers use).
2. Each account (owners of repositories and accounts with a usage item): the usage item
   is read consistently, then the account's repositories; its public and private
   counters must equal the sums of their ``quota_size`` by visibility (deleted
   repositories not purged yet included: their bytes count until then), and, when the
   attachments are registered (``quota.ATTACHMENTS``, the release attachments), its attachment
   counters their totals.

Repairs are conditional on the values read, so a change that lands meanwhile wins (the
next check looks again) and a repair never loses a concurrent update.  An account
whose repositories the owner index does not list completely yet (its ``num_repos``
says more) is left for the next check.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from chalicelib import accounts, repos
from chalicelib.errors import ConditionFailed
from chalicelib.quota import charges as quota_charges
from chalicelib.quota import service as quota
from chalicelib.quota import store
from chalicelib.store import unit_of_work

log = logging.getLogger("nimbus.quota")


@dataclass(frozen=True)
class Correction:
    """One value found wrong: ``fixed`` is False for a dry run, a value that changed
    meanwhile (left for the next check) or what is only reported (pack sizes)."""
    kind: str          # repository | usage | pack
    target: str        # owner/name, a login, or pool/pack name
    field: str
    was: int
    now: int
    fixed: bool

    def __str__(self) -> str:
        state = "fixed" if self.fixed else "not fixed"
        return f"{self.kind} {self.target} {self.field}: {self.was} -> {self.now} ({state})"


def recount(*, dry_run: bool = False) -> list[Correction]:
    """Check every pool and every account; returns what was wrong."""
    found = []
    for pool in repos.every_pool():
        found += _check_pool(int(pool.pk.split("#", 1)[1]), sorted(pool.repo_ids or ()), dry_run)
    found += _check_accounts(dry_run)
    for correction in found:
        log.warning("quota check: %s", correction)
    return found


def _check_pool(pool_id: int, repo_ids: list[int], dry_run: bool) -> list[Correction]:
    from chalicelib.gitstore import packdb

    pool_repos = repos.repos_by_ids(repo_ids, consistent=True)          # before the packs: see the module doc
    packs = packdb.list_packs(pool_id)
    charged: dict[str, int] = {}
    for info in packs.values():
        for repo_id, amount in info.charges.items():
            charged[repo_id] = charged.get(repo_id, 0) + int(amount)
    found = []
    for repo in pool_repos:
        expected, was = charged.get(str(int(repo.id)), 0), int(repo.quota_size or 0)
        if expected != was:
            fixed = not dry_run and _apply(lambda r=repo, e=expected: _stage_repo(r, e))
            found.append(Correction("repository", f"{repo.owner_login}/{repo.name}",
                                    "quota_size", was, expected, fixed))
    for name, size in packdb.s3_pack_sizes(pool_id).items():
        if name in packs and packs[name].pack_size != size:
            found.append(Correction("pack", f"{pool_id}/{name}", "pack_size",
                                    packs[name].pack_size, size, False))
    return found


def _stage_repo(repo, expected: int) -> None:
    """The repository's size and, in the same transaction, its owner's counter."""
    store.stage_repo_size_repair(repo, expected)
    store.stage_usage(int(repo.owner_id), {
        quota_charges.counter(bool(repo.private)): expected - int(repo.quota_size or 0)})


def _apply(stage) -> bool:
    try:
        with unit_of_work.writing():
            stage()
        return True
    except ConditionFailed:
        return False


def _restorable(owner_id: int) -> list:
    """The owner's deleted repositories not purged yet, as they were stored."""
    return [repos.deleted_repo_stored(record) for record in repos.deleted_repos_of(owner_id)]


def _check_accounts(dry_run: bool) -> list[Correction]:
    owners = {int(repo.owner_id) for repo in repos.every_repo()}
    owners |= {usage.owner_id for usage in store.every_usage()}
    totals = quota.ATTACHMENTS.totals()
    found = []
    for owner_id in sorted(owners):
        read = store.get_usage(owner_id, consistent=True)
        account = accounts.account_by_id(owner_id, consistent=True)
        kept = _restorable(owner_id)
        listed = repos.repos_owned_by(owner_id) if account is not None else []
        if account is not None and len(listed) != int(account.num_repos or 0):
            log.info("quota check: the owner index lags for account %s; next time", owner_id)
            continue
        fresh = repos.refreshed_repos(listed)
        # Deleted repositories still restorable count until purged; read before and
        # after the live ones, so one deleted or restored meanwhile is counted once.
        counted = {int(r.id): r for r in [*kept, *_restorable(owner_id), *fresh]}
        expected = dict(read.counts)
        expected["repos_public"] = sum(int(r.quota_size or 0) for r in counted.values()
                                       if not r.private)
        expected["repos_private"] = sum(int(r.quota_size or 0) for r in counted.values()
                                        if r.private)
        if totals is not None:
            issues, releases = totals.get(owner_id, (0, 0))
            expected["attachments_issues"], expected["attachments_releases"] = issues, releases
        wrong = {name: value for name, value in expected.items() if read.counts[name] != value}
        if not wrong:
            continue
        fixed = not dry_run and _apply(lambda r=read, w=wrong: store.stage_usage_repair(r, w))
        login = account.login if account is not None else f"#{owner_id}"
        found += [Correction("usage", login, name, read.counts[name], value, fixed)
                  for name, value in wrong.items()]
    return found
