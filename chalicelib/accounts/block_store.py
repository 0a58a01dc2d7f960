"""Blocks in the table: who blocked whom.

| item | pk | sk | attributes |
|---|---|---|---|
| block | ``A#<blocker>`` | ``BLOCK#<blocked id, 15 digits>`` | ``blocked_id``, ``created`` |

The blocker is a user or an organization; the item lives in its partition, so deleting
the blocker takes its blocks with it and its list is one Query.  The key is known from
the two ids alone, so "is X blocked by Y" is one GetItem that routes batch into their
preload (``block_key``): other domains ask it at no extra call.

A block is a put on condition that the pair is absent (``ConditionFailed(BLOCK)``:
blocked already), with a check that the blocked account still exists
(``ConditionFailed(TARGET)``).  Writes elsewhere that a block must stop stage
``stage_not_blocked`` in their own transaction, so a block that commits first wins the
race.

A block ends the follows between the two, both ways, in its own transaction: the
follows read (one consistent batch) are deleted with their counters, and the ones read
absent are checked absent still (``ConditionFailed(FOLLOWS)``: one was made meanwhile,
the caller reads again), so no follow made before the block outlives it, and none can
be made after (``accounts.follows`` stages ``stage_not_blocked``).
"""
from __future__ import annotations

from collections.abc import Iterable

from chalicelib.accounts.models import Account, Block, Follow, keys
from chalicelib.store import unit_of_work

BLOCK = "block"                 # ConditionFailed label: the pair is blocked (already)
TARGET = "blocked account"      # ConditionFailed label: the blocked account is gone
FOLLOWS = "follows changed"     # ConditionFailed label: a follow between them changed


def block_key(blocker_id: int, user_id: int) -> tuple[str, str]:
    """The item that exists while ``blocker_id`` blocks ``user_id`` (for preloads)."""
    return keys.block(int(blocker_id), int(user_id))


def get_block(blocker_id: int, user_id: int) -> Block | None:
    """One GetItem, or none when the request's preload read the key."""
    return unit_of_work.get(Block, block_key(blocker_id, user_id))


def blocked_by_any(blocker_ids: Iterable[int], user_id: int) -> bool:
    """Whether any of ``blocker_ids`` blocks ``user_id``: the keys not read yet in one
    batch (none when the preload read them)."""
    wanted = [block_key(b, user_id) for b in dict.fromkeys(int(b) for b in blocker_ids)
              if int(b) != int(user_id)]
    unit_of_work.prefetch(wanted)
    return any(unit_of_work.get(Block, key) is not None for key in wanted)


def blocks_of(blocker_id: int) -> list[Block]:
    """Every block of ``blocker_id`` in the order they were made (one Query;
    consistent, so a list right after a block shows it)."""
    found = Block.query(keys.account_partition(int(blocker_id)),
                        Block.sk.startswith(keys.BLOCK_PREFIX), consistent_read=True)
    return sorted(found, key=lambda b: (int(b.created), int(b.blocked_id)))


def follows_between(one: int, other: int) -> dict[tuple[int, int], bool]:
    """(follower, followed) -> whether that follow exists, both ways: one consistent
    batch, read afresh on every call (a retry must see what changed)."""
    pairs = [(int(one), int(other)), (int(other), int(one))]
    wanted = [keys.following(*pair) for pair in pairs]
    for key in wanted:
        unit_of_work.forget(key)
    unit_of_work.prefetch(wanted, consistent=True)
    return {pair: unit_of_work.get(Follow, key) is not None for pair, key in zip(pairs, wanted)}


def stage_block(blocker_id: int, user_id: int, created: int,
                follows: dict[tuple[int, int], bool]) -> None:
    """The block, and the end of ``follows`` (as ``follows_between`` read them)."""
    uow = unit_of_work.current()
    uow.put(Block(*block_key(blocker_id, user_id), blocked_id=int(user_id), created=created),
            label=BLOCK, must_not_exist=True)
    counts: dict[int, dict[str, int]] = {int(blocker_id): {}, int(user_id): {}}
    for (follower, followed), present in follows.items():
        following = Follow(*keys.following(follower, followed))
        if not present:
            uow.check(following, Follow.pk.does_not_exist(), label=FOLLOWS)
            continue
        uow.delete(following, label=FOLLOWS, condition=Follow.pk.exists())
        uow.delete(Follow(*keys.follower(followed, follower)), label=FOLLOWS)
        counts[follower]["num_following"] = counts[follower].get("num_following", 0) - 1
        counts[followed]["num_followers"] = counts[followed].get("num_followers", 0) - 1
    # One operation per account item (a transaction takes no two on one item): the
    # target's existence check rides on its counter update when it has one.
    for account_id, moved in counts.items():
        if moved:
            actions = [getattr(Account, name).add(delta) for name, delta in moved.items()]
            uow.update(Account(*keys.account(account_id)), [*actions, Account.version.add(1)],
                       label=TARGET, condition=Account.pk.exists())
        elif account_id == int(user_id):
            uow.check(Account(*keys.account(account_id)), Account.pk.exists(), label=TARGET)


def stage_unblock(blocker_id: int, user_id: int) -> None:
    """Unblocking a pair that is not blocked deletes nothing, and is no error."""
    unit_of_work.current().delete(Block(*block_key(blocker_id, user_id)), label=BLOCK)


def stage_not_blocked(blocker_id: int, user_id: int, *, label: str = BLOCK) -> None:
    """Stage, in the caller's transaction, that ``blocker_id`` does not block
    ``user_id`` (``ConditionFailed(label)`` otherwise)."""
    unit_of_work.current().check(Block(*block_key(blocker_id, user_id)),
                                 Block.pk.does_not_exist(), label=label)
