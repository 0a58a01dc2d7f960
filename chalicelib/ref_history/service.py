"""The ref history as the API reads it, and the undo of a move (``restore``).

Reading: who may read the repository reads its history (the route's ``current_repo``
answers 404 to the others).  A page is one Query of the family that answers the
filters (``store.entries``), read ``offset + limit + 1`` entries deep so the caller
learns whether another page follows, then the page's movers in one batch.

Restoring: a writer puts the entry's ref back to the entry's old tip, from the value
the ref holds now, by compare-and-swap through ``contents.apply_ref_updates`` with
the protection rules applied (a protected branch that forbids force pushes refuses
moving it back, as a push would be refused).  A branch or tag deleted by the move is
created again.  The restore is a ref move like any other, so it has its own entry.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING

from chalicelib import accounts, clock, contents
from chalicelib.errors import ConflictError, InvalidInput, NotFoundError
from chalicelib.ref_history import store
from chalicelib.store import pages

if TYPE_CHECKING:
    from chalicelib.repos import Caller, RepoView

HEADS, TAGS = "refs/heads/", "refs/tags/"
ZERO = "0" * 40
# DynamoDB items read per page of a listing at most (a filter may drop some).
MAX_READ = 100


@dataclass(frozen=True)
class RefFilter:
    """``ref``: a full ref name or a short branch/tag name; ``forced``: only forced moves
    (True) or only the others (False)."""
    ref: str | None = None
    forced: bool | None = None

    @property
    def short_ref(self) -> str | None:
        if not self.ref:
            return None
        for prefix in (HEADS, TAGS):
            if self.ref.startswith(prefix):
                return self.ref[len(prefix):]
        return self.ref

    @property
    def full_ref(self) -> str | None:
        return self.ref if self.ref and self.ref.startswith((HEADS, TAGS)) else None


@dataclass(frozen=True)
class Restored:
    ref: str
    old: str
    new: str
    entry_id: int
    changed: bool


def short_name(ref: str) -> str:
    for prefix in (HEADS, TAGS):
        if ref.startswith(prefix):
            return ref[len(prefix):]
    return ref


def list_activity(view: RepoView, query: RefFilter, *, offset: int,
                  limit: int) -> tuple[list, dict[int, object], int]:
    """One page of the repository's live entries, newest first, the movers by id, and a
    total that says whether another page follows (the entries before and on this page,
    plus one when more follow)."""
    want = offset + limit + 1
    found = store.entries(int(view.repo.id), now=clock.now(), short_ref=query.short_ref,
                          forced=query.forced, page_size=min(want, MAX_READ))
    full = query.full_ref
    matches = (entry for entry in found if full is None or entry.ref == full)
    page, seen = pages.window(islice(matches, want), offset, limit, ahead=1)
    movers = {int(account.id): account for account in accounts.accounts_by_ids(
        sorted({int(entry.actor_id) for entry in page if entry.actor_id}))}
    return page, movers, seen


def _tip(git, ref: str) -> str:
    try:
        return git.refs[ref.encode()].decode()
    except KeyError:
        return ZERO


def restore(caller: Caller, view: RepoView, entry_id: int) -> Restored:
    """Put the entry's ref back to its old tip (see the module docstring).  404: no
    such live entry; 422: the move created the ref (there is no earlier tip); 409: the
    old tip's objects are gone, or the ref moved while this ran; 403: not a writer, or
    a protection rule refuses."""
    contents.require_ref_writer(caller, view, "refs")
    entry = store.entry_by_id(int(view.repo.id), entry_id, now=clock.now())
    if entry is None:
        raise NotFoundError(f"ref history entry does not exist [id: {entry_id}]")
    if entry.old == ZERO:
        raise InvalidInput(f"{entry.ref} did not exist before this change: "
                           "there is no earlier tip to restore")
    git = contents.open_git(view.repo)
    current = _tip(git, entry.ref)
    if current == entry.old:
        return Restored(entry.ref, current, entry.old, int(entry.id), changed=False)
    if entry.old.encode() not in git.object_store:
        raise ConflictError(f"the commits of {entry.old} are no longer stored")
    contents.apply_ref_updates(view.repo, git, [(entry.ref, current, entry.old)],
                               actor=caller.user, guard=contents.Guard.RULES)
    return Restored(entry.ref, current, entry.old, int(entry.id), changed=True)


def kept_tips(repo_ids, *, now: float | None = None) -> set[str]:
    """The old tips the live history of these repositories may restore and no ref may
    reach: compaction keeps what they reach (``compact_pool(kept_tips=...)``).  One
    Query per repository of its sparse index of forced moves and deletions; a
    fast-forward's old tip is reached from the next move's, so it needs no root."""
    moment = clock.now() if now is None else now
    tips: set[str] = set()
    for repo_id in repo_ids:
        tips |= store.kept_tips(int(repo_id), now=moment)
    return tips
