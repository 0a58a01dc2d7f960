"""Reactions to issues, pull requests and comments, as Forgejo answers them.

- Allowed contents are the instance's ``[ui] REACTIONS`` (``settings.UiSettings``);
  anything else is refused with Forgejo's 403 "'<content>' is not an allowed reaction".
  Lists show only reactions whose content is still allowed, oldest first.
- Reading takes read access to the repository (a private one answers 404 to others);
  a pull request's reactions also take read access to its pull requests (403 "no
  permission to get reactions" otherwise, as Forgejo).
- Reacting takes a signed-in reader; on a locked issue only writers may (403 "no
  permission to change reaction", for removing too).  Whom the repository's owner or
  the issue's poster (or the comment's) blocks cannot react (Forgejo's 403), but may
  still remove their reactions.
- Reacting twice with one content makes one reaction: the second answers the first
  (``added`` False: Forgejo's 200) instead of a new one (201).  The item's key is the
  reaction, written only if absent (``reaction_store``), so this holds for two requests
  at once too.
- Removing a reaction one does not have changes nothing.  Without a content, Forgejo
  removes every reaction of the caller to that issue or comment (its delete matches on
  the fields given), and so does this.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chalicelib import accounts
from chalicelib.errors import ConditionFailed, NotFoundError, PermissionDenied
from chalicelib.issues import comment_store, reaction_store, store
from chalicelib.issues.context import PULLS_UNIT, Ctx, snapshot
from chalicelib.issues.service import get_issue
from chalicelib.repos import Access, repo_access
from chalicelib.settings import get_settings
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.issues.models import Comment, Reaction
    from chalicelib.issues.store import Issue

# A content longer than this was never allowed, so it names no reaction to remove (and
# is kept out of a key).
MAX_CONTENT = 255


@dataclass(frozen=True)
class Target:
    """What a reaction is to: an issue (or pull request), or one of its comments."""
    issue: Issue
    comment: Comment | None = None

    @property
    def number(self) -> int:
        return int(self.issue.number)

    @property
    def comment_id(self) -> int:
        return int(self.comment.id) if self.comment is not None else 0

    @property
    def blockers(self) -> list[int]:
        """Whose block keeps a user from reacting: the repository's owner (checked by
        the caller's ``Ctx``), the issue's poster and the comment's."""
        found = [int(self.issue.poster_id)]
        if self.comment is not None:
            found.append(int(self.comment.poster_id))
        return found


def allowed_reactions() -> tuple[str, ...]:
    """``[ui] REACTIONS``, in order.  Forgejo's ``[ui] CUSTOM_EMOJIS`` are not among
    them: those only render ``:name:`` in markdown."""
    listed = (name.strip() for name in get_settings().ui.REACTIONS.split(","))
    return tuple(name for name in listed if name)


def content_of(option: Any) -> str:
    """EditReactionOption's content: left out or null is empty."""
    return option.content or ""


def issue_target(ctx: Ctx, number: int) -> Target:
    return Target(get_issue(ctx, number))


def comment_target(ctx: Ctx, comment_id: int) -> Target:
    """The comment and its issue (read together: the lookup item came with the preload)."""
    comment = comment_store.get_comment(ctx.repo_id, comment_id)
    issue = store.get_issue(ctx.repo_id, int(comment.issue_number)) if comment else None
    if comment is None or issue is None:
        raise NotFoundError(f"comment does not exist [id: {comment_id}]")
    return Target(issue, comment)


def _check_readable(ctx: Ctx, issue: Issue) -> None:
    """The context already holds read access to the issues; a pull request's
    reactions need the pull requests too."""
    if issue.is_pull and repo_access(ctx.user, ctx.repo, ctx.view.owner,
                                     public_only=ctx.caller.public_only,
                                     unit=PULLS_UNIT) < Access.READ:
        raise PermissionDenied("no permission to get reactions")


def _check_changeable(ctx: Ctx, target: Target) -> None:
    _check_readable(ctx, target.issue)
    if target.issue.is_locked and not ctx.can_write_for(target.issue):
        raise PermissionDenied("no permission to change reaction")


def list_reactions(ctx: Ctx, target: Target) -> list[Reaction]:
    """The target's reactions of allowed contents, oldest first (one Query)."""
    _check_readable(ctx, target.issue)
    allowed = set(allowed_reactions())
    return [r for r in reaction_store.reactions_of(ctx.repo_id, target.number, target.comment_id)
            if r.content in allowed]


def add_reaction(ctx: Ctx, target: Target, content: str) -> tuple[Reaction, bool]:
    """(the reaction, whether it is new); a reaction the caller already had is answered
    as it was."""
    _check_changeable(ctx, target)
    user_id = int(ctx.user.id)
    # The owner's block came with the preload; a poster's costs one batch.
    accounts.check_not_blocked([int(ctx.repo.owner_id), *target.blockers], user_id)
    if content not in allowed_reactions():
        raise PermissionDenied(f"'{content}' is not an allowed reaction")
    item = reaction_store.new_reaction(ctx.repo_id, target.number, target.comment_id, user_id,
                                       store.dumps(snapshot(ctx.user)), content)
    try:
        with unit_of_work.writing():
            reaction_store.stage_add(item)
    except ConditionFailed as failed:
        if failed.label != "reaction":   # the issue or comment went meanwhile
            raise NotFoundError(f"{failed.label} does not exist") from None
        existing = reaction_store.get_reaction(ctx.repo_id, target.number, target.comment_id,
                                               user_id, content)
        # Removed again in between: the one that was there is still the answer.
        return (existing if existing is not None else item), False
    return item, True


def remove_reaction(ctx: Ctx, target: Target, content: str) -> None:
    _check_changeable(ctx, target)
    user_id = int(ctx.user.id)
    if content:
        keys = [reaction_store.reaction_key(ctx.repo_id, target.number, target.comment_id,
                                            user_id, content)] if len(content) <= MAX_CONTENT else []
    else:
        keys = [(r.pk, r.sk) for r in reaction_store.reactions_by(
            ctx.repo_id, target.number, target.comment_id, user_id)]
    if keys:
        with unit_of_work.writing():
            reaction_store.stage_remove(keys)


def reaction_counts(ctx: Ctx, number: int) -> dict[int, list[tuple[str, int]]]:
    """What an issue page shows under the issue (key 0) and each comment (its id): how
    many reactions of each allowed content, in the configured order (one Query)."""
    allowed = allowed_reactions()
    counts: dict[int, dict[str, int]] = {}
    for r in reaction_store.reactions_under(ctx.repo_id, number):
        if r.content in allowed:
            per = counts.setdefault(int(r.comment_id), {})
            per[r.content] = per.get(r.content, 0) + 1
    return {target: [(c, per[c]) for c in allowed if c in per] for target, per in counts.items()}
