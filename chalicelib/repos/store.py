"""Repositories in the table.

Access patterns:
- by owner and name: GetItem ``REPO#<owner>/<name>`` (batched with the token by the gateway)
- by id: GetItem ``REPOID#<id>`` -> the repository key, then the repository
- an owner's repositories: Query gsi1 ``OWNS#<owner id>``
- every repository (search): Query gsi2 ``REPOS``, ordered by full name
- a repository's forks: Query ``R#<parent id>`` ``FORK#…``, then BatchGet

Writes stage into the current unit of work and never commit; a failed condition names
one of the labels below (``ConditionFailed.label``):
- creating stages the repository (its name must be free), its id link, the owner's
  ``num_repos`` (and version, so an owner being deleted meanwhile fails), and the object
  pool: a new one, or for a fork its parent's (one member more) with the fork link and
  the parent's ``num_forks``;
- deleting stages the reverse, on condition that nobody edited (version) or forked
  (``num_forks``) the repository since it was read.  The pool keeps its item with one
  member fewer; the partition ``R#<id>`` and the pool nobody uses any more are removed
  by the repository-cleanup consumer (``stage_purge_partition``, ``stage_delete_pool``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping

from chalicelib import accounts
from chalicelib.repos.models import ForkLink, Pool, Repo, RepoName, keys
from chalicelib.store import partitions, unit_of_work
from chalicelib.store.attributes import values_for
from chalicelib.store.table import Item

if TYPE_CHECKING:
    from chalicelib.accounts import Account

__all__ = ["Repo", "Pool", "REPO", "REPO_ID", "OWNER", "PARENT", "POOL", "FORK"]

# Labels of staged writes whose condition can fail.
REPO = "repository"     # the name is taken (create); changed (save, delete); gone (set_fields)
REPO_ID = "repository id"
OWNER = "owner"         # the owner is gone
PARENT = "parent"       # the repository being forked (or a fork's parent) is gone
POOL = "pool"           # the object pool a fork would share is gone
FORK = "fork"           # a fork being made independent was deleted meanwhile
# Attributes an edit may change (``stage_save`` writes only these, so a concurrent push
# updating ``empty``/``size`` is never overwritten with what the edit read).
EDITABLE = ("description", "website", "private", "template", "has_wiki", "archived", "archived_at",
            "default_branch", "mirror_interval", "merge_settings", "updated")


# Reads ----------------------------------------------------------------------------------

def key(owner_name: str, repo_name: str) -> tuple[str, str]:
    return keys.repo(owner_name.lower(), repo_name.lower())


def get(owner_name: str, repo_name: str) -> Repo | None:
    return unit_of_work.get(Repo, key(owner_name, repo_name))


def get_by_id(repo_id: int) -> Repo | None:
    link = unit_of_work.get(RepoName, keys.repo_name(repo_id))
    if link is None:
        return None
    return unit_of_work.get(Repo, (link.repo_pk, "REPO"))


def get_pool(pool_id: int) -> Pool | None:
    return unit_of_work.get(Pool, keys.pool(pool_id), consistent=True)


def owned_by(owner_id: int) -> list[Repo]:
    pk = keys.repo_owner_gsi(owner_id, "")[0]
    return list(Item.gsi1.query(pk, Item.gsi1sk.startswith("REPO#")))


def every() -> Iterator[Repo]:
    """All repositories in full-name order (paged by DynamoDB, never a scan)."""
    return Item.gsi2.query(keys.ALL_REPOS_GSI)


def forks_of(parent: Repo) -> list[Repo]:
    links = list(Item.query(keys.repo_partition(parent.id), Item.sk.startswith(keys.FORK_PREFIX)))
    return linked([(int(link.sk[len(keys.FORK_PREFIX):]), link.fork_pk) for link in links])


def linked(links: list[tuple[int, str]], *, also: list | None = None) -> list[Repo]:
    """The repositories of (id, key) links that name the key they were written with
    (forks, mirror schedules), in the links' order, those that still exist: one batch
    by key, then the id links of any whose owner was renamed since (their key moved).
    ``also``: more keys read in the same batch and kept in the unit of work (what the
    caller reads next about these repositories)."""
    if not links:
        return []
    extra = list(also or ())
    items = list(Item.batch_get(list(dict.fromkeys(
        [*((pk, "REPO") for _, pk in links), *extra]))))
    found = {(r.pk, r.sk): r for r in items if isinstance(r, Repo)}
    if extra:
        by_key = {(item.pk, item.sk): item for item in items}
        for key in extra:
            unit_of_work.remember(key, by_key.get(key))
    by_id = {int(r.id): r for r in found.values()}
    moved = [repo_id for repo_id, _ in links if repo_id not in by_id]
    if moved:
        by_id.update((int(r.id), r) for r in get_many_by_id(moved))
    return [by_id[repo_id] for repo_id, _ in links if repo_id in by_id]


def pools() -> Iterator[Pool]:
    """Every object pool (for compaction)."""
    return Item.gsi2.query(keys.ALL_POOLS_GSI)


def from_snapshot(values: Mapping[str, Any]) -> Repo:
    """A repository record rebuilt from the snapshot an event carries (``stored_values``),
    never saved: consumers render what the change wrote without reading it again."""
    values = values_for(Repo, values)
    owner = str(values.get("owner_login", "")).lower()
    for name, default in (("created", 0), ("updated", 0), ("pool_id", values.get("id", 0)),
                          ("default_branch", "main"), ("owner_login", ""), ("name", ""),
                          ("owner_id", 0)):
        values.setdefault(name, default)
    values.setdefault("lower_name", str(values["name"]).lower())
    return Repo(*keys.repo(owner, values["lower_name"]), **values)


def stored_values(repo: Repo | None) -> dict:
    """The repository's stored attributes without PynamoDB's discriminator (a class), for
    ``events.snapshot``."""
    if repo is None:
        return {}
    return {name: value for name, value in repo.attribute_values.items() if name != "kind"}


# Writes ---------------------------------------------------------------------------------

def new_record(repo_id: int, owner: Account, name: str, *, default_branch: str, created: int,
               **fields) -> Repo:
    """A repository item (not yet written) with its keys and indexes filled in; its
    object pool is its own (a fork sets ``pool_id`` to its parent's)."""
    lower = name.lower()
    repo = Repo(*keys.repo(owner.lower_name, lower), id=repo_id, owner_id=owner.id,
                owner_login=owner.login, name=name, lower_name=lower,
                default_branch=default_branch, pool_id=repo_id, created=created,
                updated=created, **fields)
    repo.gsi1pk, repo.gsi1sk = keys.repo_owner_gsi(owner.id, lower)
    repo.gsi2pk, repo.gsi2sk = keys.ALL_REPOS_GSI, f"{owner.lower_name}/{lower}"
    return repo


def creation_size(*, fork: bool) -> int:
    """How many items ``stage_create`` stages (transaction budgets)."""
    return 6 if fork else 4


def stage_create(repo: Repo, *, parent: Repo | None = None) -> None:
    uow = unit_of_work.current()
    uow.put(repo, label=REPO, must_not_exist=True)
    uow.put(RepoName(*keys.repo_name(repo.id), repo_pk=repo.pk), label=REPO_ID,
            must_not_exist=True)
    # Under the owner's name as read: a rename committed meanwhile fails this (OWNER)
    # instead of leaving the repository under the old name.
    accounts.stage_repo_count(int(repo.owner_id), 1, label=OWNER,
                              lower_name=str(repo.owner_login).lower())
    if parent is None:
        uow.put(Pool(*keys.pool(repo.pool_id), members=1, repo_ids={int(repo.id)},
                     gsi2pk=keys.ALL_POOLS_GSI, gsi2sk=f"{int(repo.pool_id):015d}"),
                label=POOL, must_not_exist=True)
        return
    uow.put(ForkLink(*keys.fork_link(parent.id, repo.id), fork_pk=repo.pk), label=PARENT)
    uow.update(Pool(*keys.pool(repo.pool_id)),
               [Pool.members.add(1), Pool.repo_ids.add({int(repo.id)})], label=POOL,
               condition=Pool.pk.exists())
    uow.update(parent, [Repo.num_forks.add(1)], label=PARENT, condition=Repo.pk.exists())


def stage_delete(repo: Repo, *, parent: Repo | None) -> None:
    uow = unit_of_work.current()
    # quota_size too: the deletion releases exactly the bytes it read (quota/charges).
    uow.delete(repo, label=REPO, condition=(Repo.version == repo.version)
               & (Repo.num_forks == repo.num_forks) & unchanged_quota_size(repo))
    uow.delete(RepoName(*keys.repo_name(repo.id)), label=REPO_ID)
    accounts.stage_repo_count(int(repo.owner_id), -1, label=OWNER)
    if parent is not None:
        uow.delete(ForkLink(*keys.fork_link(parent.id, repo.id)), label=PARENT)
        uow.update(parent, [Repo.num_forks.add(-1)], label=PARENT, condition=Repo.pk.exists())
    uow.update(Pool(*keys.pool(repo.pool_id)),
               [Pool.members.add(-1), Pool.repo_ids.delete({int(repo.id)})], label=POOL,
               condition=Pool.pk.exists())


def unchanged_quota_size(repo: Repo):
    """The condition that the repository's quota size is what ``repo`` says (items older
    than quota accounting have none: 0)."""
    read = int(repo.quota_size or 0)
    same = Repo.quota_size == read
    return same | Repo.quota_size.does_not_exist() if read == 0 else same


def stage_detach_fork(fork: Repo) -> None:
    """A fork of a repository being deleted becomes an independent repository."""
    unit_of_work.current().update(
        fork, [Repo.fork.set(False), Repo.parent_id.set(0), Repo.version.add(1)], label=FORK,
        condition=Repo.pk.exists())


def stage_save(repo: Repo) -> None:
    """The editable attributes as they are on ``repo``, if nobody changed the repository
    since it was read (``REPO``)."""
    expected = repo.version
    actions = [getattr(Repo, name).set(getattr(repo, name)) for name in EDITABLE]
    unit_of_work.current().update(repo, actions + [Repo.version.set(expected + 1)],
                                  label=REPO, condition=Repo.version == expected)
    repo.version = expected + 1


def stage_set(repo: Repo, fields: dict) -> None:
    """Set attributes that follow from git (``empty``, ``size``, ``updated``, the default
    branch, mirror sync times) whatever else changed, if the repository still exists."""
    if fields:
        unit_of_work.current().update(
            repo, [getattr(Repo, name).set(value) for name, value in fields.items()],
            label=REPO, condition=Repo.pk.exists())


# What other domains keep on the repository item ---------------------------------------------
#
# The repository item carries counters other domains keep exact in their own transactions
# (open issues, releases, protection rules, Git LFS bytes and locks, quota bytes, the
# teams given it).  They change it only through these functions, each staged in the
# caller's unit of work; ``same_id`` makes the write fail when the name now belongs to
# another repository (deleted and created again meanwhile), ``private`` when the
# visibility is no longer the one the caller computed with.
COUNTED = frozenset({"num_open_issues", "num_open_pulls", "num_releases", "protection_rules",
                     "lfs_size", "lfs_locks", "quota_size", "push_mirrors_on_commit"})


def _still(repo: Repo, *, same_id: bool = False, private: bool | None = None):
    condition = (Repo.id == int(repo.id)) if same_id else Repo.pk.exists()
    if private is not None:
        condition = condition & (Repo.private == bool(private))
    return condition


def _counted(names) -> None:
    unknown = set(names) - COUNTED
    if unknown:
        raise ValueError(f"not a counter other domains keep on a repository: {sorted(unknown)}")


def stage_counts(repo: Repo, counts: dict[str, int], *, label: str, bump_version: bool = False,
                 same_id: bool = False, private: bool | None = None) -> None:
    """ADD each of ``counts`` (attribute -> amount) to the repository item."""
    _counted(counts)
    actions = [getattr(Repo, name).add(int(amount)) for name, amount in counts.items()]
    if bump_version:
        actions.append(Repo.version.add(1))
    unit_of_work.current().update(Repo(repo.pk, repo.sk), actions, label=label,
                                  condition=_still(repo, same_id=same_id, private=private))


def stage_count_values(repo: Repo, values: dict[str, int], *, label: str, same_id: bool = False,
                       private: bool | None = None, unchanged_quota: bool = False) -> None:
    """SET each of ``values`` (attribute -> value) on the repository item;
    ``unchanged_quota``: also on condition that its quota size is what was read."""
    _counted(values)
    condition = _still(repo, same_id=same_id, private=private)
    if unchanged_quota:
        condition = condition & unchanged_quota_size(repo)
    unit_of_work.current().update(
        Repo(repo.pk, repo.sk), [getattr(Repo, name).set(int(value)) for name, value in values.items()],
        label=label, condition=condition)


def stage_wiki_contents(repo: Repo, present: bool, *, label: str) -> None:
    """Set whether the repository's wiki has its branch (``has_wiki_contents``), in the
    wiki's ref transaction, on condition that the repository is still this one."""
    unit_of_work.current().update(Repo(repo.pk, repo.sk),
                                  [Repo.has_wiki_contents.set(bool(present))],
                                  label=label, condition=_still(repo, same_id=True))


def stage_unchanged_quota(repo: Repo, *, label: str) -> None:
    """Join the repository's staged update with the condition that its quota size is
    still what was read (the quota domain moving bytes between visibilities)."""
    unit_of_work.current().update(Repo(repo.pk, repo.sk), [], label=label,
                                  condition=unchanged_quota_size(repo))


def stage_exists(repo: Repo, *, label: str, same_id: bool = False) -> None:
    """A condition check: the repository still exists (with the same id)."""
    unit_of_work.current().check(Repo(repo.pk, repo.sk), _still(repo, same_id=same_id),
                                 label=label)


def stage_team(repo: Repo, team_id: int, *, covered: bool, label: str) -> None:
    """Add the team to (or remove it from) the teams given the repository; on condition
    that the repository exists (an update would otherwise create a stub item when the
    repository is deleted at the same time)."""
    change = Repo.team_ids.add({team_id}) if covered else Repo.team_ids.delete({team_id})
    unit_of_work.current().update(Repo(repo.pk, repo.sk), [change], label=label,
                                  condition=Repo.pk.exists())


def stage_pool_exists(pool_id: int, *, label: str) -> None:
    """A condition check: the object pool still exists (nothing may point at a pool
    whose repositories were all deleted)."""
    unit_of_work.current().check(Pool(*keys.pool(int(pool_id))), Pool.pk.exists(), label=label)


def refreshed(repos: Iterable[Repo]) -> list[Repo]:
    """The repositories read again, strongly consistent, in one batch (those that still
    exist, in no particular order)."""
    wanted = list(dict.fromkeys((repo.pk, repo.sk) for repo in repos))
    return [item for item in Item.batch_get(wanted, consistent_read=True)
            if isinstance(item, Repo)] if wanted else []


def id_key(repo_id: int) -> tuple[str, str]:
    """The repository's id link (for a batched preload)."""
    return keys.repo_name(int(repo_id))


def get_many_by_id(repo_ids, *, consistent: bool = False) -> list[Repo]:
    """Repositories by id, those that still exist, in two batched reads (the id links,
    then the records).  Through the id links rather than a stored key: a renamed
    repository moves to a new key, its id link follows it.  ``consistent``: both reads
    strongly consistent (the quota check)."""
    name_keys = [keys.repo_name(int(repo_id)) for repo_id in repo_ids]
    if not name_keys:
        return []
    if consistent:
        # Past the unit's identity map: the links as they are now, then the records.
        links = [item for item in Item.batch_get(name_keys, consistent_read=True)
                 if isinstance(item, RepoName)]
        wanted = list(dict.fromkeys((link.repo_pk, "REPO") for link in links))
        return [item for item in Item.batch_get(wanted, consistent_read=True)
                if isinstance(item, Repo)] if wanted else []
    unit_of_work.prefetch(name_keys)
    names = [unit_of_work.get(RepoName, key) for key in name_keys]
    repo_keys = list(dict.fromkeys((name.repo_pk, "REPO") for name in names if name is not None))
    unit_of_work.prefetch(repo_keys)
    found = (unit_of_work.get(Repo, key) for key in repo_keys)
    return [repo for repo in found if repo is not None]


# Cleanup after a deletion (the repository-cleanup consumer) -------------------------------

def stage_purge_partition(repo_id: int) -> int:
    """Every item left under ``R#<id>`` (branches, forks' links, collaborations, issues,
    hooks …); returns how many.  Items that own something elsewhere (deploy keys and
    their fingerprint claims) are their own store's to delete first."""
    return partitions.stage_purge(keys.repo_partition(repo_id))


def stage_delete_pool(pool: Pool) -> None:
    """A pool's item once no repository uses it (no member counted)."""
    unit_of_work.current().delete(pool, label=POOL, condition=Pool.members <= 0)


# An owner's new name ---------------------------------------------------------------------

def moved_record(repo: Repo, owner: Account) -> Repo:
    """The repository item under its owner's current name (not yet written): every
    attribute as read, the owner's login and the name index as they are now."""
    values = {name: value for name, value in repo.attribute_values.items()
              if name not in ("kind", "pk", "sk")}
    moved = Repo(*keys.repo(owner.lower_name, repo.lower_name), **values)
    moved.owner_login = owner.login
    moved.gsi2sk = f"{owner.lower_name}/{repo.lower_name}"
    moved.version = int(repo.version) + 1
    return moved


def _unchanged(repo: Repo):
    """The condition that the stored item is still exactly what ``repo`` holds: counters
    other domains ADD to without moving ``version`` (stars, issues, sizes) included, so
    a move never drops a change that landed after the read."""
    condition = Repo.version == repo.version
    for name, attribute in Repo.get_attributes().items():
        if name in ("pk", "sk", "kind", "version"):
            continue
        value = repo.attribute_values.get(name)
        if value is None or value == set():
            same = attribute.does_not_exist()
        elif value == attribute.default:        # an item older than the attribute has none
            same = attribute.does_not_exist() | (attribute == value)
        else:
            same = attribute == value
        condition = condition & same
    return condition


def stage_move(repo: Repo, moved: Repo) -> None:
    """Move the repository item to ``moved``'s key (the owner was renamed): the old item
    goes only if unchanged since read (``REPO``), the new key must be free, and the id
    link follows (everything else is keyed by the id and stays)."""
    uow = unit_of_work.current()
    uow.delete(repo, label=REPO, condition=_unchanged(repo))
    uow.put(moved, label=REPO, must_not_exist=True)
    uow.update(RepoName(*keys.repo_name(int(repo.id))), [RepoName.repo_pk.set(moved.pk)],
               label=REPO_ID, condition=RepoName.pk.exists())


# A new owner (a transfer, repo_admin/transfers.py) ----------------------------------------

def transferred_record(repo: Repo, owner: Account, *, team_ids=()) -> Repo:
    """The repository item under ``owner`` (not yet written; ``stage_move`` writes it):
    as ``moved_record``, with the owner's id and index, the teams of the new owner it is
    given (the old owner's teams lose it) and no pending transfer."""
    moved = moved_record(repo, owner)
    moved.owner_id = int(owner.id)
    moved.gsi1pk, moved.gsi1sk = keys.repo_owner_gsi(int(owner.id), repo.lower_name)
    moved.team_ids = {int(team_id) for team_id in team_ids} or None
    moved.transfer_doer_id = moved.transfer_recipient_id = moved.transfer_created = 0
    moved.transfer_team_ids = None
    return moved


def stage_transfer_state(repo: Repo, *, doer_id: int, recipient_id: int, team_ids=(),
                         created: int = 0) -> None:
    """Mark the repository as pending transfer to ``recipient_id`` (0: clear the mark),
    on condition that no transfer is pending (marking) or that the one read still is
    (clearing) and the repository is still the one read (``REPO``)."""
    expected = int(repo.transfer_recipient_id or 0)
    pending = (Repo.transfer_recipient_id == expected) if expected else \
        (Repo.transfer_recipient_id.does_not_exist() | (Repo.transfer_recipient_id == 0))
    actions = [Repo.transfer_doer_id.set(int(doer_id)),
               Repo.transfer_recipient_id.set(int(recipient_id)),
               Repo.transfer_created.set(int(created))]
    ids = {int(team_id) for team_id in team_ids}
    actions.append(Repo.transfer_team_ids.set(ids) if ids else Repo.transfer_team_ids.remove())
    unit_of_work.current().update(Repo(repo.pk, repo.sk), actions, label=REPO,
                                  condition=(Repo.id == int(repo.id)) & pending)


def stage_flags(repo: Repo, flags: set[str]) -> None:
    """The repository's flags are now ``flags``, on condition that they are still the
    ones read (two admins changing them at once: one of them is refused, ``REPO``)."""
    read = set(repo.flags or ())
    same = (Repo.flags == read) if read else Repo.flags.does_not_exist()
    action = Repo.flags.set(set(flags)) if flags else Repo.flags.remove()
    unit_of_work.current().update(Repo(repo.pk, repo.sk), [action], label=REPO,
                                  condition=(Repo.id == int(repo.id)) & same)
