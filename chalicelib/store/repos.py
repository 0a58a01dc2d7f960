"""Repositories in the table.

Access patterns:
- by owner and name: GetItem ``REPO#<owner>/<name>`` (batched with the token by the gateway)
- by id: GetItem ``REPOID#<id>`` -> the repository key, then the repository
- an owner's repositories: Query gsi1 ``OWNS#<owner id>``
- every repository (search): Query gsi2 ``REPOS``, ordered by full name
- a repository's forks: Query ``R#<parent id>`` ``FORK#…``, then BatchGet
Creation and deletion keep the owner's ``num_repos``, the parent's ``num_forks`` and the
object pool's member count in the same transaction as the repository itself.
"""
from __future__ import annotations

from typing import Iterator

from pynamodb.exceptions import TransactWriteError
from pynamodb.transactions import TransactWrite

from chalicelib.services.errors import AlreadyExists, ConflictError, NotFoundError
from chalicelib.store import session
from chalicelib.store.table import (Account, ForkLink, Item, Pool, Repo, RepoName, connection,
                                    keys)


def get(owner_name: str, repo_name: str) -> Repo | None:
    return session.get(Repo, keys.repo(owner_name.lower(), repo_name.lower()))


def get_by_id(repo_id: int) -> Repo | None:
    link = session.get(RepoName, keys.repo_name(repo_id))
    if link is None:
        return None
    return session.get(Repo, (link.repo_pk, "REPO"))


def _reasons(exc: TransactWriteError) -> list[str | None]:
    return [r.code if r else None for r in exc.cancellation_reasons or []]


def create(repo: Repo, *, parent: Repo | None = None) -> None:
    """Write a new repository and bump the counters that include it, all or nothing.

    Raises AlreadyExists when the owner has a repository of that name, NotFoundError
    when the owner (or the parent being forked) vanished meanwhile.
    """
    repo_key = (repo.pk, repo.sk)
    try:
        with TransactWrite(connection=connection()) as tx:
            tx.save(repo, condition=Repo.pk.does_not_exist())
            tx.save(RepoName(*keys.repo_name(repo.id), repo_pk=repo.pk),
                    condition=RepoName.pk.does_not_exist())
            tx.update(Account(*keys.account(repo.owner_id)),
                      actions=[Account.num_repos.add(1), Account.version.add(1)],
                      condition=Account.pk.exists())
            if parent is None:
                tx.save(Pool(*keys.pool(repo.pool_id), members=1, repo_ids={int(repo.id)},
                             gsi2pk=keys.ALL_POOLS_GSI, gsi2sk=f"{int(repo.pool_id):015d}"),
                        condition=Pool.pk.does_not_exist())
            else:
                tx.save(ForkLink(*keys.fork_link(parent.id, repo.id), fork_pk=repo.pk))
                tx.update(Pool(*keys.pool(repo.pool_id)),
                          actions=[Pool.members.add(1), Pool.repo_ids.add({int(repo.id)})],
                          condition=Pool.pk.exists())
                tx.update(parent, actions=[Repo.num_forks.add(1)], condition=Repo.pk.exists())
    except TransactWriteError as exc:
        reasons = _reasons(exc)
        # Grouped order: puts (the repository first), then updates (the owner first).
        if reasons and reasons[0] == "ConditionalCheckFailed":
            raise AlreadyExists("repository") from None
        if len(reasons) > 3 and reasons[3] == "ConditionalCheckFailed":
            raise NotFoundError("the owner does not exist") from None
        if "ConditionalCheckFailed" in reasons:
            raise NotFoundError("the repository being forked no longer exists") from None
        raise
    session.remember(repo_key, repo)


def delete(repo: Repo, *, parent: Repo | None) -> int:
    """Remove the repository record and its counters; returns the pool's remaining
    members (0 means nobody uses the packs any more)."""
    try:
        with TransactWrite(connection=connection()) as tx:
            tx.delete(repo, condition=Repo.version == repo.version)
            tx.delete(RepoName(*keys.repo_name(repo.id)))
            tx.update(Account(*keys.account(repo.owner_id)),
                      actions=[Account.num_repos.add(-1), Account.version.add(1)])
            if parent is not None:
                tx.delete(ForkLink(*keys.fork_link(parent.id, repo.id)))
                tx.update(parent, actions=[Repo.num_forks.add(-1)])
            tx.update(Pool(*keys.pool(repo.pool_id)),
                      actions=[Pool.members.add(-1), Pool.repo_ids.delete({int(repo.id)})])
    except TransactWriteError as exc:
        if "ConditionalCheckFailed" in _reasons(exc):
            raise ConflictError("the repository changed while it was being deleted") from None
        raise
    session.forget((repo.pk, repo.sk))
    pool = session.get(Pool, keys.pool(repo.pool_id), consistent=True)
    return int(pool.members) if pool is not None else 0


def save(repo: Repo) -> None:
    """Write changed fields if nobody else changed the repository since it was read."""
    from pynamodb.exceptions import PutError

    expected = repo.version
    repo.version = expected + 1
    try:
        repo.save(condition=Repo.version == expected)
    except PutError as exc:
        repo.version = expected
        if getattr(exc, "cause_response_code", "") == "ConditionalCheckFailedException":
            raise ConflictError("the repository changed meanwhile; try again") from None
        raise


def update_counters(repo: Repo, **changes) -> None:
    """Atomic ADDs (push sizes, stars …) that need no read-modify-write."""
    repo.update(actions=[getattr(Repo, name).add(delta) for name, delta in changes.items()])


def owned_by(owner_id: int) -> list[Repo]:
    pk = keys.repo_owner_gsi(owner_id, "")[0]
    return list(Item.gsi1.query(pk, Item.gsi1sk.startswith("REPO#")))


def every() -> Iterator[Repo]:
    """All repositories in full-name order (paged by DynamoDB, never a scan)."""
    return Item.gsi2.query(keys.ALL_REPOS_GSI)


def forks_of(parent: Repo) -> list[Repo]:
    links = list(Item.query(keys.repo_partition(parent.id), Item.sk.startswith(keys.FORK_PREFIX)))
    if not links:
        return []
    found = {(r.pk, r.sk): r for r in Item.batch_get([(link.fork_pk, "REPO") for link in links])}
    return [found[(link.fork_pk, "REPO")] for link in links if (link.fork_pk, "REPO") in found]


def pools() -> Iterator[Pool]:
    """Every object pool (for compaction)."""
    return Item.gsi2.query(keys.ALL_POOLS_GSI)


def repo_partition(repo_id: int) -> list[Item]:
    """Everything stored under ``R#<id>`` (branches, fork links, collaborations …)."""
    return list(Item.query(keys.repo_partition(repo_id)))
