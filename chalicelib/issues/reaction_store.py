"""Reactions to issues and comments in the table.

Each reaction is one item in the repository's partition, under its issue:

| item | pk | sk |
|---|---|---|
| reaction to an issue (or pull request) | ``R#<repo>`` | ``REACTION#<number, 10 digits>#I#<user id>#<content>`` |
| reaction to a comment | ``R#<repo>`` | ``REACTION#<number, 10 digits>#C<comment id, 15 digits>#<user id>#<content>`` |

The key is the reaction itself (target, user, content), so a reaction is put with
``attribute_not_exists``: two identical requests at once make one item, and the loser
learns that it already existed.  The put goes in one transaction with a check that its
issue (or comment) still exists, so a reaction never outlives what it reacts to.

Reads are one Query each: an issue's own reactions (``…#I#``), a comment's
(``…#C<id>#``), or everything under an issue (``REACTION#<number>#``: the issue page's
badges, and what goes with a deleted issue).  Lists are in creation order
(``created_ms``), which the keys do not give.
Labels in ``ConditionFailed``: "reaction" (already there), "issue", "comment" (gone).
"""
from __future__ import annotations

from typing import Iterable

from chalicelib import clock
from chalicelib.issues.models import Comment, Reaction
from chalicelib.issues.store import Issue, ikeys, num_key
from chalicelib.store import unit_of_work

PREFIX = "REACTION#"
ISSUE_TARGET = "I"


def target_of(comment_id: int) -> str:
    """The key part naming what is reacted to: the issue, or one of its comments."""
    return f"C{comment_id:015d}" if comment_id else ISSUE_TARGET


def issue_prefix(number: int) -> str:
    """Every reaction under an issue: to it and to its comments."""
    return f"{PREFIX}{num_key(number)}#"


def target_prefix(number: int, comment_id: int) -> str:
    return f"{issue_prefix(number)}{target_of(comment_id)}#"


def user_prefix(number: int, comment_id: int, user_id: int) -> str:
    return f"{target_prefix(number, comment_id)}{int(user_id)}#"


def reaction_key(repo_id: int, number: int, comment_id: int, user_id: int,
                 content: str) -> tuple[str, str]:
    return ikeys.partition(repo_id), user_prefix(number, comment_id, user_id) + content


def _in_creation_order(items: Iterable[Reaction]) -> list[Reaction]:
    return sorted(items, key=lambda item: (int(item.created_ms), item.sk))


def _query(repo_id: int, prefix: str) -> list[Reaction]:
    return _in_creation_order(Reaction.query(ikeys.partition(repo_id),
                                             Reaction.sk.startswith(prefix),
                                             consistent_read=True))


# Reads ------------------------------------------------------------------------------------

def reactions_of(repo_id: int, number: int, comment_id: int = 0) -> list[Reaction]:
    """The reactions to the issue itself (``comment_id`` 0) or to one of its comments,
    oldest first (one consistent Query)."""
    return _query(repo_id, target_prefix(number, comment_id))


def reactions_under(repo_id: int, number: int) -> list[Reaction]:
    """Every reaction to the issue and to its comments (one Query)."""
    return _query(repo_id, issue_prefix(number))


def reactions_by(repo_id: int, number: int, comment_id: int, user_id: int) -> list[Reaction]:
    """One user's reactions to the issue or comment (one Query)."""
    return _query(repo_id, user_prefix(number, comment_id, user_id))


def get_reaction(repo_id: int, number: int, comment_id: int, user_id: int,
                 content: str) -> Reaction | None:
    return unit_of_work.get(Reaction, reaction_key(repo_id, number, comment_id, user_id, content),
                            consistent=True)


# Staged writes ----------------------------------------------------------------------------

def new_reaction(repo_id: int, number: int, comment_id: int, user_id: int, user: str,
                 content: str) -> Reaction:
    return Reaction(*reaction_key(repo_id, number, comment_id, user_id, content),
                    repo_id=repo_id, issue_number=number, comment_id=comment_id,
                    user_id=user_id, user=user, content=content,
                    created_ms=clock.milliseconds())


def stage_add(reaction: Reaction) -> None:
    """The reaction, if the user has none of that content there, and its target still
    exists (the issue, or the comment)."""
    uow = unit_of_work.current()
    repo_id, number = int(reaction.repo_id), int(reaction.issue_number)
    uow.put(reaction, label="reaction", must_not_exist=True)
    comment_id = int(reaction.comment_id)
    if comment_id:
        uow.check(Comment(*ikeys.comment(repo_id, number, comment_id)), Comment.pk.exists(),
                  label="comment")
    else:
        uow.check(Issue(*ikeys.issue(repo_id, number)), Issue.pk.exists(), label="issue")


def stage_remove(keys: Iterable[tuple[str, str]]) -> None:
    """Unconditional deletes: removing a reaction that is already gone changes nothing."""
    uow = unit_of_work.current()
    for key in keys:
        uow.delete(Reaction(*key), label="reaction")
