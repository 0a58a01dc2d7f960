"""Users following users, in the table.

| item | pk | sk | attributes |
|---|---|---|---|
| following | ``A#<follower>`` | ``FOLLOWING#<followed id, 15 digits>`` | ``user_id`` (the followed), ``created`` |
| follower | ``A#<followed>`` | ``FOLLOWER#<follower id, 15 digits>`` | ``user_id`` (the follower), ``created`` |

A follow is both items and the two accounts' counters (``num_following`` of the
follower, ``num_followers`` of the followed) moved with ``ADD``, in one transaction
conditional on the ``following`` item not existing (``FOLLOWING`` when it does); an
unfollow is the same on condition that it exists.  So two requests racing to follow
count once, and a repeated one changes nothing.  The counters move the accounts'
``version`` too, as ``store.stage_repo_count`` does: an edit that read the account
before would otherwise put the old counts back.

"Who follows X" and "whom X follows" are each one Query of X's partition, in user id
order, read as far as the page asked for needs (``limit``), never the whole list.
Deleting an account takes both sides of its follows (``Follow.owned_elsewhere``); the
other users' counters are not moved then.
"""
from __future__ import annotations

from chalicelib.accounts.models import Account, Follow, keys
from chalicelib.store import unit_of_work

FOLLOWING = "following"     # ConditionFailed label: already (or not) following
GONE = "account"            # ConditionFailed label: one of the two accounts is gone


def is_following(user_id: int, followed_id: int) -> bool:
    # Consistent: a check right after a follow must see it.
    key = keys.following(int(user_id), int(followed_id))
    return unit_of_work.get(Follow, key, consistent=True) is not None


def _ids(user_id: int, prefix: str, count: int) -> list[int]:
    """The first ``count`` user ids of one side of ``user_id``'s follows, by id."""
    if count <= 0:
        return []
    found = Follow.query(keys.account_partition(int(user_id)), Follow.sk.startswith(prefix),
                         consistent_read=True, limit=count, page_size=count)
    return [int(item.user_id) for item in found]


def follower_ids(user_id: int, count: int) -> list[int]:
    """Who follows ``user_id``: the first ``count`` by id."""
    return _ids(user_id, keys.FOLLOWER_PREFIX, count)


def following_ids(user_id: int, count: int) -> list[int]:
    """Whom ``user_id`` follows: the first ``count`` by id."""
    return _ids(user_id, keys.FOLLOWING_PREFIX, count)


def _stage_counts(account_id: int, attribute, delta: int) -> None:
    unit_of_work.current().update(Account(*keys.account(int(account_id))),
                                  [attribute.add(delta), Account.version.add(1)],
                                  label=GONE, condition=Account.pk.exists())


def stage_follow(user_id: int, followed_id: int, now: int) -> None:
    """``FOLLOWING`` (exists=True) when already following: then nothing moves."""
    uow = unit_of_work.current()
    uow.put(Follow(*keys.following(user_id, followed_id), user_id=followed_id, created=now),
            label=FOLLOWING, must_not_exist=True)
    uow.put(Follow(*keys.follower(followed_id, user_id), user_id=user_id, created=now),
            label=FOLLOWING)
    _stage_counts(user_id, Account.num_following, 1)
    _stage_counts(followed_id, Account.num_followers, 1)


def stage_unfollow(user_id: int, followed_id: int) -> None:
    """``FOLLOWING`` when not following: then nothing moves."""
    uow = unit_of_work.current()
    uow.delete(Follow(*keys.following(user_id, followed_id)), label=FOLLOWING,
               condition=Follow.pk.exists())
    uow.delete(Follow(*keys.follower(followed_id, user_id)), label=FOLLOWING)
    _stage_counts(user_id, Account.num_following, -1)
    _stage_counts(followed_id, Account.num_followers, -1)
