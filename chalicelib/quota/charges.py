"""Who is charged for repository storage, moved in the same transaction as the change.

The rule (docs/quota.md): **each pack is charged to the repository whose ref change
brought it in** — a push, a merge, an API commit, a migration, a mirror sync — and a
repository's owner is charged for its repositories' packs, under ``size:repos:public``
or ``size:repos:private`` by the repository's visibility.  Forks share their parent's
object pool: a fork starts at 0 bytes and is charged only for the packs pushed to it,
so a pool counts once, split among the repositories that filled it.

How the books stay exact:

- the object store lists the packs it published (``S3ObjectStore.added``); the ref
  change that makes them reachable charges the ones not yet charged
  (``charge_for`` in ``pushes.prepare``) in the SAME transaction as the refs: each
  pack item records ``charges[<repo id>] += size``, the repository's ``quota_size``
  grows by the total (on condition its visibility is the one charged), and the
  owner's usage counter moves with ``ADD``.  A push whose refs are refused charges
  nothing (its pack is garbage for compaction);
- compaction replaces packs by one pack that carries their summed charges: nobody's
  usage moves because deltas were found (usage counts bytes received);
- deleting a repository releases its ``quota_size`` from the owner in the deletion's
  transaction (conditional on the size read); packs its forks still use stay in the
  pool, charged to no one;
- a visibility change moves ``quota_size`` between the owner's public and private
  counters in the edit's transaction (conditional on the size read).

So at any time: a repository's ``quota_size`` = the charges naming it on the live packs
of its pool, and an owner's counters = the sum over its repositories (plus
attachments).  ``quota_check`` recomputes both and repairs what drifted.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from chalicelib.quota import service as quota
from chalicelib.quota import store
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.gitstore.repo import NimbusRepo
    from chalicelib.repos import Repo

VISIBILITY = store.REPO          # ConditionFailed label of the charge's repository update
PUSH_SUBJECT = "size:repos:all"  # what Forgejo's pre-receive hook checks
QUOTA_EXCEEDED = "Quota exceeded"

# Per object store: names of the packs some committed ref change has charged.
_charged: "weakref.WeakKeyDictionary[object, set[str]]" = weakref.WeakKeyDictionary()


def counter(private: bool) -> str:
    return "repos_private" if private else "repos_public"


@dataclass
class Charge:
    """The packs a ref change charges to its repository."""
    store: object                                  # the object store that published them
    pool_id: int
    packs: list[tuple[str, int]] = field(default_factory=list)   # (name, bytes)
    private: bool = False

    @property
    def amount(self) -> int:
        return sum(size for _, size in self.packs)

    @property
    def size(self) -> int:
        """Items it stages: each pack's item, the owner's usage (the repository's
        update joins the change's own)."""
        return len(self.packs) + 1


def charge_for(repo: Repo, git: NimbusRepo, *, creates_repo: bool = False) -> Charge | None:
    """The packs published through ``git`` that no committed change has charged yet.
    A repository created by the same write carries their size on its record."""
    objects = git.object_store
    done = _charged.get(objects, set())
    # Only S3 stores publish packs (an in-memory store of a test publishes nothing).
    packs = [(info.name, int(info.pack_size)) for info in getattr(objects, "added", ())
             if info.name not in done]
    if not packs:
        return None
    charge = Charge(objects, int(repo.pool_id), list(dict.fromkeys(packs)), bool(repo.private))
    if creates_repo:
        repo.quota_size = int(repo.quota_size or 0) + charge.amount
    return charge


def stage(charge: Charge, repo: Repo, *, creates_repo: bool) -> None:
    """Stage the charge in the current unit; before any other update of the repository
    (its label then names the merged update)."""
    from chalicelib.gitstore import packdb

    uow = unit_of_work.current()
    for name, size in charge.packs:
        packdb.stage_charge(uow, charge.pool_id, name, int(repo.id), size)
    if not creates_repo:
        store.stage_repo_charge(repo, charge.amount, private=charge.private)
    store.stage_usage(int(repo.owner_id), {counter(charge.private): charge.amount})


def committed(charge: Charge, repo: Repo, *, creates_repo: bool) -> None:
    """After the commit: the packs are charged, the record in hand knows its size."""
    _charged.setdefault(charge.store, set()).update(name for name, _ in charge.packs)
    if not creates_repo:
        repo.quota_size = int(repo.quota_size or 0) + charge.amount


def refresh(charge: Charge, repo: Repo) -> bool:
    """After the charge's condition failed: True (try again) if the repository still
    exists and its visibility changed meanwhile, with the charge following it."""
    fresh = unit_of_work.get(type(repo), (repo.pk, repo.sk), consistent=True)
    if fresh is None or bool(fresh.private) == charge.private:
        return False
    charge.private = bool(fresh.private)
    repo.private = fresh.private
    repo.quota_size = fresh.quota_size
    return True


def stage_release(repo: Repo) -> None:
    """A repository being deleted: its bytes leave the owner's usage (the deletion is
    conditional on ``quota_size`` as read, ``repos.store.stage_delete``)."""
    amount = int(repo.quota_size or 0)
    if amount:
        store.stage_usage(int(repo.owner_id), {counter(bool(repo.private)): -amount})


def stage_owner(repo: Repo, new_owner_id: int) -> None:
    """A repository given to another owner (a transfer): its bytes leave the old owner's
    usage for the new one's (the move is conditional on ``quota_size`` as read)."""
    amount = int(repo.quota_size or 0)
    if amount and int(new_owner_id) != int(repo.owner_id):
        name = counter(bool(repo.private))
        store.stage_usage(int(repo.owner_id), {name: -amount})
        store.stage_usage(int(new_owner_id), {name: amount})


def stage_visibility(repo: Repo, was_private: bool) -> None:
    """An edit that changes visibility moves the repository's bytes between the owner's
    public and private usage (after ``repos.store.stage_save`` in the same unit)."""
    amount = int(repo.quota_size or 0)
    if bool(repo.private) == bool(was_private):
        return
    store.stage_size_check(repo)
    if amount:
        store.stage_usage(int(repo.owner_id), {counter(bool(was_private)): -amount,
                                               counter(bool(repo.private)): amount})


# Enforcement on push ---------------------------------------------------------------------

def push_refusal(repo: Repo, updates: list[tuple[str, str, str]]) -> str | None:
    """Forgejo's pre-receive quota test: once per push, the owner's ``size:repos:all``;
    over it, the whole push is refused unless every update deletes a ref (AGit
    ``refs/for/`` pushes are not tested)."""
    storing = [ref for ref, _, new in updates
               if new.strip("0") and not ref.startswith("refs/for/")]
    if not storing or quota.allows(int(repo.owner_id), PUSH_SUBJECT):
        return None
    return QUOTA_EXCEEDED
