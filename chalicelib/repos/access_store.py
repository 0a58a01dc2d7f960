"""Who else uses a repository, in the table: collaborations, stars, watches, deploy keys,
and the items deciding access reads.

| item | pk | sk | reverse item (user's partition) |
|---|---|---|---|
| collaboration | ``R#<repo>`` | ``COLLAB#<user>`` (``mode``) | ``A#<user>`` ``COLLABON#<repo>`` |
| star | ``R#<repo>`` | ``STAR#<user>`` | ``A#<user>`` ``STARRED#<repo>`` |
| watch | ``R#<repo>`` | ``WATCH#<user>`` | ``A#<user>`` ``WATCHING#<repo>`` |
| deploy key | ``R#<repo>`` | ``DEPLOYKEY#<id>`` | claim ``KEYFP#<fingerprint>`` |

A relation and its reverse item are staged together, so "my stars" is one Query too.
Stars and watches move the repository's ``num_stars``/``num_watches`` with ``ADD`` in the
same transaction, conditional on the forward item, so a repeated request never counts
twice.

Deleting a repository removes its ``R#`` partition but not the reverse items in users'
partitions, nor deploy-key fingerprint claims: ``linked_repos`` skips links whose
repository is gone, and a claim a deleted repository left is ``abandoned`` (it may be
taken over).

Every ``stage_*`` operation stages into the current unit of work; the labels below
name what failed (``ConditionFailed.label``).  Organization memberships and teams, which
deciding access also reads, are in ``orgs.store`` and ``orgs.team_store``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from chalicelib import accounts
from chalicelib.repos import store as repo_store
from chalicelib.repos.models import (Collaboration, DeployKey, Repo, RepoLink, RepoName, UserLink,
                                     keys)
from chalicelib.store import unit_of_work
from chalicelib.store.table import Claim, Item

if TYPE_CHECKING:
    from chalicelib.accounts import Account

# Labels of staged writes whose condition can fail.  Stars and watches fail with their
# relation's ``name`` (already following / not following).
REPO_GONE = "repo"                 # the repository was deleted meanwhile
COLLABORATOR = "collaborator"      # exists (add) / changed or gone (edit, remove)
CLAIM = "claim"                    # the fingerprint claim is not the one expected
DEPLOY_KEY = "deploy key"          # gone (delete)


def _query(pk: str, prefix: str) -> list[Item]:
    # Consistent: a list read right after a change must show it.
    return list(Item.query(pk, Item.sk.startswith(prefix), consistent_read=True))


def _repo_must_exist(repo: Repo) -> None:
    unit_of_work.current().check(Repo(repo.pk, repo.sk), Repo.pk.exists(), label=REPO_GONE)


def collaboration_key(repo_id: int, user_id: int) -> tuple[str, str]:
    return keys.collaboration(repo_id, user_id)


def collaboration(repo_id: int, user_id: int, *, consistent: bool = False) -> Collaboration | None:
    return unit_of_work.get(Collaboration, keys.collaboration(repo_id, user_id),
                            consistent=consistent)


def accounts_by_id(account_ids: list[int]) -> list[Account]:
    """Accounts in the given order, read in one batch; deleted accounts are left out."""
    return accounts.accounts_by_ids(account_ids)


def linked_repos(user_id: int, relation_prefix: str) -> list[Repo]:
    """The repositories a user's reverse items point to (one Query, then two batches).
    Links are followed by id (names change); links to deleted repositories are skipped."""
    links = _query(keys.account_partition(user_id), relation_prefix)
    name_keys = [keys.repo_name(int(link.repo_id)) for link in links]
    unit_of_work.prefetch(name_keys)
    names = [unit_of_work.get(RepoName, key) for key in name_keys]
    repo_keys = [(name.repo_pk, "REPO") for name in names if name is not None]
    unit_of_work.prefetch(repo_keys)
    return [r for r in (unit_of_work.get(Repo, k) for k in repo_keys) if r is not None]


# Collaborators ------------------------------------------------------------------------------

def collaborations(repo_id: int) -> list[Collaboration]:
    """The repository's collaboration items (each with its ``mode``), in one Query."""
    return _query(keys.repo_partition(repo_id), keys.COLLAB_PREFIX)


def collaborator_ids(repo_id: int) -> list[int]:
    return [int(c.user_id) for c in collaborations(repo_id)]


def repos_collaborated_on(user_id: int) -> list[Repo]:
    return linked_repos(user_id, keys.COLLABORATING_PREFIX)


def collaborated_repo_ids(user_id: int) -> set[int]:
    """Ids of the repositories the user collaborates on: one Query of their links, no
    repository read (a search narrows its index read to them)."""
    return {int(link.repo_id) for link in _query(keys.account_partition(user_id),
                                                 keys.COLLABORATING_PREFIX)}


def stage_add_collaborator(repo: Repo, user_id: int, mode: str, now: int) -> Collaboration:
    """Fails with ``COLLABORATOR`` (exists=True) when the user already collaborates,
    ``REPO_GONE`` when the repository is gone."""
    item = Collaboration(*keys.collaboration(int(repo.id), user_id), user_id=user_id,
                         mode=mode, created=now)
    link = RepoLink(*keys.collaborating_on(user_id, int(repo.id)), repo_id=repo.id,
                    repo_pk=repo.pk, created=now)
    uow = unit_of_work.current()
    uow.put(item, label=COLLABORATOR, must_not_exist=True)
    uow.put(link, label="collaborator link")
    _repo_must_exist(repo)
    return item


def stage_change_mode(current: Collaboration, mode: str) -> None:
    """Fails with ``COLLABORATOR`` when the mode is no longer the one read (changed or
    removed meanwhile)."""
    unit_of_work.current().update(
        Collaboration(current.pk, current.sk), [Collaboration.mode.set(mode)],
        label=COLLABORATOR, condition=Collaboration.mode == current.mode)


def stage_remove_collaborator(repo_id: int, current: Collaboration) -> None:
    """Fails with ``COLLABORATOR`` when it was removed meanwhile."""
    uow = unit_of_work.current()
    uow.delete(Collaboration(current.pk, current.sk), label=COLLABORATOR,
               condition=Collaboration.pk.exists())
    uow.delete(RepoLink(*keys.collaborating_on(int(current.user_id), repo_id)),
               label="collaborator link")


# Stars and watches -------------------------------------------------------------------------

@dataclass(frozen=True)
class Relation:
    """A user following a repository: the item in the repository's partition, its
    reverse in the user's, and the repository's counter."""
    name: str                                # star | watch: also the staging label
    mark: Callable[[int, int], tuple]        # (repo id, user id) -> key
    link: Callable[[int, int], tuple]        # (user id, repo id) -> key
    mark_prefix: str
    link_prefix: str
    counter: str                             # the Repo attribute counting followers


STARS = Relation("star", keys.star, keys.starred, keys.STAR_PREFIX, keys.STARRED_PREFIX,
                 "num_stars")
WATCHES = Relation("watch", keys.watch, keys.watching, keys.WATCH_PREFIX,
                   keys.WATCHING_PREFIX, "num_watches")


def follows(relation: Relation, repo_id: int, user_id: int) -> bool:
    # Consistent: a check right after following must see it.
    key = relation.mark(repo_id, user_id)
    return unit_of_work.get(UserLink, key, consistent=True) is not None


def follower_ids(relation: Relation, repo_id: int) -> list[int]:
    """In user id order."""
    return [int(i.user_id) for i in _query(keys.repo_partition(repo_id), relation.mark_prefix)]


def watches(repo_id: int, user_id: int, *, consistent: bool = True) -> bool:
    """``consistent=False``: from what the request already read (``watch_key`` in a
    batch), else one GetItem."""
    if consistent:
        return follows(WATCHES, repo_id, user_id)
    return unit_of_work.get(UserLink, watch_key(repo_id, user_id)) is not None


def watch_key(repo_id: int, user_id: int) -> tuple[str, str]:
    return WATCHES.mark(repo_id, user_id)


def watcher_ids(repo_id: int) -> list[int]:
    """Who watches the repository (notifications go to them), in user id order."""
    return follower_ids(WATCHES, repo_id)


def followed_repos(relation: Relation, user_id: int) -> list[Repo]:
    return linked_repos(user_id, relation.link_prefix)


def _stage_counter(relation: Relation, repo: Repo, delta: int) -> None:
    counter = getattr(Repo, relation.counter)
    # version: a full save of a copy read before this must not undo the count.
    unit_of_work.current().update(Repo(repo.pk, repo.sk),
                                  [counter.add(delta), Repo.version.add(1)],
                                  label=REPO_GONE, condition=Repo.pk.exists())


def stage_follow(relation: Relation, repo: Repo, user_id: int, now: int) -> None:
    """Fails with ``relation.name`` (exists=True) when already following: then the
    counter does not move either.  ``REPO_GONE`` when the repository is gone."""
    uow = unit_of_work.current()
    uow.put(UserLink(*relation.mark(int(repo.id), user_id), user_id=user_id, created=now),
            label=relation.name, must_not_exist=True)
    uow.put(RepoLink(*relation.link(user_id, int(repo.id)), repo_id=repo.id,
                     repo_pk=repo.pk, created=now), label=f"{relation.name} link")
    _stage_counter(relation, repo, 1)


def stage_unfollow(relation: Relation, repo: Repo, user_id: int) -> None:
    """Fails with ``relation.name`` when not following."""
    uow = unit_of_work.current()
    uow.delete(UserLink(*relation.mark(int(repo.id), user_id)), label=relation.name,
               condition=UserLink.pk.exists())
    uow.delete(RepoLink(*relation.link(user_id, int(repo.id))), label=f"{relation.name} link")
    _stage_counter(relation, repo, -1)


# Deploy keys --------------------------------------------------------------------------------
#
# A deploy key takes the same ``KEYFP#`` claim as a user's key, so one key opens one
# account or one repository.  The claim's ``owner_id`` is the repository id negated for
# a deploy key: account ids are positive, so the claim tells the two kinds apart.

@dataclass(frozen=True)
class KeyClaim:
    """Who holds an SSH key fingerprint: a user (``user_id``) or a repository's deploy
    key (``repo_id``); the other is 0."""
    fingerprint: str
    user_id: int
    repo_id: int


def key_claim(fingerprint: str) -> KeyClaim | None:
    claim = unit_of_work.get(Claim, accounts.fingerprint_claim_key(fingerprint), consistent=True)
    if claim is None:
        return None
    owner = int(claim.owner_id)
    return KeyClaim(fingerprint, max(owner, 0), max(-owner, 0))


def abandoned(claim: KeyClaim) -> bool:
    """A deploy-key claim whose repository or key is gone (deleting a repository clears
    its partition, not the claim).  A user's claim never is: deleting the user clears it."""
    if not claim.repo_id:
        return False
    if repo_store.get_by_id(claim.repo_id) is None:
        return True
    return not any(k.fingerprint == claim.fingerprint for k in deploy_keys_of(claim.repo_id))


def deploy_keys_of(repo_id: int) -> list[DeployKey]:
    return _query(keys.repo_partition(repo_id), keys.DEPLOY_KEY_PREFIX)


def deploy_key(repo_id: int, key_id: int) -> DeployKey | None:
    return unit_of_work.get(DeployKey, keys.deploy_key(repo_id, key_id), consistent=True)


def new_deploy_key(repo: Repo, key_id: int, **fields) -> DeployKey:
    return DeployKey(*keys.deploy_key(int(repo.id), key_id), id=key_id, repo_id=repo.id,
                     key_type="deploy", **fields)


def stage_add_deploy_key(repo: Repo, key: DeployKey, *, taking_over: KeyClaim | None) -> None:
    """The key with its fingerprint claim.  ``taking_over`` is an abandoned claim read
    before: it is replaced only if it is still that one.  Fails with ``CLAIM`` when
    somebody claimed the key meanwhile, ``REPO_GONE`` when the repository is gone."""
    claim_key = accounts.fingerprint_claim_key(key.fingerprint)
    if taking_over is None:
        condition = Claim.pk.does_not_exist()
    else:
        held = taking_over.user_id or -taking_over.repo_id
        condition = Claim.owner_id == held
    uow = unit_of_work.current()
    uow.put(Claim(*claim_key, owner_id=-int(repo.id)), label=CLAIM, condition=condition)
    uow.put(key, label=DEPLOY_KEY, must_not_exist=True)
    _repo_must_exist(repo)


def stage_delete_deploy_key(key: DeployKey, *, with_claim: bool = True) -> None:
    """The key and (``with_claim``) its fingerprint claim, which must be this
    repository's: fails with ``CLAIM`` otherwise (then delete the key alone), with
    ``DEPLOY_KEY`` when the key was deleted meanwhile."""
    uow = unit_of_work.current()
    uow.delete(DeployKey(key.pk, key.sk), label=DEPLOY_KEY, condition=DeployKey.pk.exists())
    if with_claim:
        uow.delete(Claim(*accounts.fingerprint_claim_key(key.fingerprint)), label=CLAIM,
                   condition=Claim.owner_id == -int(key.repo_id))
