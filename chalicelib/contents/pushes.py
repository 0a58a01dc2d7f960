"""Moving refs, with everything that follows from it, as one write.

Every ref change (a git push, the API, a mirror sync, a migration) is planned first
(``prepare``): the branch records of the branches it moves, the repository's ``empty``,
``size`` and ``updated``, and its events — per ref a ``RepositoryPushed`` with its new
commits and whether it was forced (``_forced``), and ``RefCreated`` / ``RefDeleted``
for branches and tags (short names and ``ref_type``, as Forgejo's create/delete
payloads have them).  ``commit`` then writes the
refs' compare-and-swaps, the branch records, the repository update, the quota charge of
the packs the change brought in (``quota_charges``) and the events' outbox items in ONE
transaction through the unit of work.  Racing writers stay safe:
each ref is written on condition that it still holds the old value the writer saw, so
the loser's whole transaction (records and events included) is cancelled and reported
stale; a transaction DynamoDB cancelled for a concurrent one is retried.

A change past DynamoDB's 100 items (at worst four per ref: the ref, its branch record
and two events, so from about 25 refs on) is written as a documented sequence:

1. the refs alone, compare-and-swap, all or nothing (more than 100 refs are refused);
2. the branch records, the repository update and whatever the caller adds, with the
   first events (the unit of work commits them in chunks, the events in the last);
3. the remaining events, ``EVENTS_PER_UNIT`` at a time.

A crash or a failure after 1 leaves the refs moved without (all) their records and
events; the writer is told the refs moved (they did), the failure is logged, the next
change of a ref rewrites its branch record and the repository's metadata, but the
missing events of that change are lost.  Changes within one transaction are the rule.
"""
from __future__ import annotations

import enum
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from chalicelib import accounts, clock, events, quota, repos
from chalicelib.contents import branch_store
from chalicelib.errors import ArchivedRepository, ConditionFailed, PermissionDenied, RefProtected
from chalicelib.gitstore import refdb
from chalicelib.gitstore.errors import RefUpdateFailed
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.gitstore.repo import NimbusRepo
    from chalicelib.repos import Caller, Repo, RepoView
    from chalicelib.store.unit_of_work import UnitOfWork

log = logging.getLogger("nimbus.pushes")

ZERO = "0" * 40
HEADS = "refs/heads/"
TAGS = "refs/tags/"
# Commits carried by one push event (Forgejo's feed keeps a few; the count is total).
MAX_EVENT_COMMITS = 20
NEW_REF_COMMITS = 10
TRANSACTION_LIMIT = 100
# Events per unit in the sequence, leaving the last chunk room for the caller's items.
EVENTS_PER_UNIT = 50

Update = refdb.Update


class Guard(enum.Enum):
    """Whether the branch and tag protection rules apply to a ref change.  They apply to
    every change a user makes unless the caller says otherwise, so a new path that moves
    refs is guarded without having to remember it."""
    RULES = "rules"        # a user's change: the rules apply (refused: RefProtected)
    CHECKED = "checked"    # the caller applied them itself (git push reports per ref)
    MERGE = "merge"        # a pull request merge: the merge gate applied them (pulls.gate)
    SYSTEM = "system"      # mirror sync, migration, a new repository: no rule applies


# What a push event says moved the ref (``RepositoryPushed.via``: the ref history shows it).
VIA = {Guard.RULES: "api", Guard.CHECKED: "push", Guard.MERGE: "merge", Guard.SYSTEM: "system"}


def refusal(repo: Repo, git: NimbusRepo, updates: list[Update],
            actor: Account | None) -> str | None:
    """Forgejo's pre-receive message for the first change the protection rules refuse
    to ``actor``, or None.  Reads nothing for a repository without rules."""
    from chalicelib import protection

    return protection.protection_refusal(repo, git, updates, actor)


def _split_identity(raw: bytes) -> tuple[str, str]:
    text = raw.decode("utf-8", "replace")
    if "<" in text and text.endswith(">"):
        name, _, email = text[:-1].partition("<")
        return name.strip(), email.strip()
    return text.strip(), ""


def commit_fields(commit) -> dict:
    """A dulwich commit as branch-record attributes."""
    author_name, author_email = _split_identity(commit.author)
    committer_name, committer_email = _split_identity(commit.committer)
    signature = commit.gpgsig or b""
    payload = commit.raw_without_sig() if signature else b""
    return dict(commit_id=commit.id.decode(), message=commit.message.decode("utf-8", "replace"),
                author_name=author_name, author_email=author_email,
                author_time=int(commit.author_time), author_tz=int(commit.author_timezone),
                committer_name=committer_name, committer_email=committer_email,
                committer_time=int(commit.commit_time), committer_tz=int(commit.commit_timezone),
                signature=signature.decode("ascii", "replace"),
                signed_payload=payload.decode("utf-8", "replace"))


def _pushed_commits(git, before: str, after: str) -> tuple[list, int, bool]:
    """New commits on the ref, newest first (capped), how many there are, and whether
    ``before`` is in ``after``'s history (a fast-forward).  A new ref counts at most
    NEW_REF_COMMITS, as Forgejo does (``CommitsBeforeLimit(10)``): a first push of a
    long history does not walk all of it.

    The fast-forward test costs no read of its own: when ``before`` is an ancestor of
    ``after``, the path between them ends in a new commit whose parent is ``before``,
    and a commit that has ``before`` for a parent makes it an ancestor."""
    if after == ZERO:
        return [], 0, False
    exclude = [before.encode()] if before != ZERO else []
    walker = git.get_walker(include=[after.encode()], exclude=exclude,
                            max_entries=None if exclude else NEW_REF_COMMITS)
    found, total, descends = [], 0, before == after
    for entry in walker:
        total += 1
        descends = descends or before.encode() in entry.commit.parents
        if len(found) < MAX_EVENT_COMMITS:
            c = entry.commit
            author_name, author_email = _split_identity(c.author)
            committer_name, committer_email = _split_identity(c.committer)
            found.append(events.PushedCommit(
                id=c.id.decode(), message=c.message.decode("utf-8", "replace"),
                author_name=author_name, author_email=author_email,
                committer_name=committer_name, committer_email=committer_email,
                timestamp=int(c.author_time), tz_offset=int(c.author_timezone)))
    return found, total, descends


def pool_size(git: NimbusRepo) -> int:
    """Bytes of live packs in the repository's object pool (shared with its forks), as
    the request's object store lists them (no second read after a push's pack)."""
    return sum(info.pack_size for info in git.object_store.pack_infos().values())


def repo_snapshot(repo: Repo, **changed) -> dict:
    return events.snapshot({**repos.repo_values(repo), **changed})


def event_fields(repo: Repo, actor: Account | None, **changed) -> dict:
    """What every repository event carries: the actor and the repository (its snapshot
    with ``changed`` attributes as they are after the write)."""
    return dict(actor_id=int(actor.id) if actor else None,
                actor=events.snapshot(accounts.account_values(actor)),
                repo_id=int(repo.id), repo=repo_snapshot(repo, **changed))


@dataclass
class RefChange:
    """A planned ref change and what is written with it (see the module docstring)."""
    repo: Repo
    git: NimbusRepo
    updates: list[Update]
    peeled: dict[str, str]
    branch_records: list = field(default_factory=list)
    removed_branches: list[str] = field(default_factory=list)
    # Repository attributes set with the refs (one update of the record).
    repo_fields: dict[str, Any] = field(default_factory=dict)
    events: list[events.Event] = field(default_factory=list)
    # The repository record is created by the caller in the same write: the fields go
    # on the record instead of an update of it.
    creates_repo: bool = False
    # More items the caller stages with the change: (how many, staging function).
    extras: list[tuple[int, Callable[[UnitOfWork], None]]] = field(default_factory=list)
    # The packs the change charges to the repository (quota_charges), if any.
    charge: quota.Charge | None = None
    # What moves the refs (``VIA``): push, merge, api, mirror or system.
    via: str = ""

    def also(self, size: int, stage: Callable[[UnitOfWork], None]) -> None:
        """Stage ``size`` more items with the change (after the rest, before the events)."""
        self.extras.append((size, stage))

    def set_repo_fields(self, **fields) -> None:
        self.repo_fields.update(fields)
        if self.creates_repo:
            for name, value in fields.items():
                setattr(self.repo, name, value)

    def event_fields(self, actor: Account | None) -> dict:
        """``event_fields`` of the repository as it is once the change is written."""
        return event_fields(self.repo, actor, **self.repo_fields)

    @property
    def size(self) -> int:
        return (len(self.updates) + len(self.branch_records) + len(self.removed_branches)
                + (1 if self.repo_fields and not self.creates_repo else 0)
                + sum(n for n, _ in self.extras) + len(self.events)
                + (self.charge.size if self.charge else 0))


def prepare(repo: Repo, git: NimbusRepo, updates, *, actor: Account | None,
            announce: bool = True, creates_repo: bool = False, charge: bool = True,
            guard: Guard = Guard.RULES) -> RefChange:
    """Plan moving ``(ref, old, new)`` refs (hex, zeros for absent).  ``announce`` raises
    the push events (a migration's initial import raises none); ``creates_repo``: the
    caller creates the repository record in the same write; ``charge``: charge the
    packs ``git`` published to the repository with this change (quota_charges; False
    leaves them to a later change of the same ``git``); ``guard``: whether the
    protection rules apply (``Guard``; refused: RefProtected)."""
    changes = git.refs.checked_updates(updates)
    if guard is Guard.RULES and not creates_repo:
        refused = refusal(repo, git, changes, actor)
        if refused is not None:
            raise RefProtected(refused)
        _record_lfs_needs(repo, git)
    return _plan(repo, git, changes, actor=actor, announce=announce,
                 creates_repo=creates_repo, charge=charge, via=VIA[guard])


def prepare_unguarded(repo: Repo, git: NimbusRepo, updates, *, actor: Account | None,
                      announce: bool = True, charge: bool = True) -> RefChange:
    """``prepare`` with ``Guard.SYSTEM``, written so that it cannot reach the protection
    rules at all: a mirror sync calls it, and the rules' signature checks read the
    instance signing key, which the mirror sync's role may not (infra/iam.py;
    tests/iam_static.py follows the code's calls, not the guard's value)."""
    return _plan(repo, git, git.refs.checked_updates(updates), actor=actor,
                 announce=announce, creates_repo=False, charge=charge, via="mirror")


def _plan(repo: Repo, git: NimbusRepo, changes: list[Update], *, actor: Account | None,
          announce: bool, creates_repo: bool, charge: bool, via: str) -> RefChange:
    change = RefChange(repo, git, changes, git.refs.peeled_values(changes),
                       creates_repo=creates_repo, via=via)
    for ref, _, new in changes:
        if not ref.startswith(HEADS):
            continue
        name = ref[len(HEADS):]
        if refdb.is_zero(new):
            change.removed_branches.append(name)
            continue
        head = git[change.peeled.get(ref, new).encode()]
        if head.type_name == b"commit":
            change.branch_records.append(branch_store.new_record(repo.id, name,
                                                                 **commit_fields(head)))
    change.set_repo_fields(empty=not _has_branches(git, changes), updated=clock.seconds(),
                           size=pool_size(git))
    if charge:
        change.charge = quota.charge_for(repo, git, creates_repo=creates_repo)
    if announce:
        change.events.extend(_push_events(change, actor))
    return change


def _record_lfs_needs(repo: Repo, git: NimbusRepo) -> None:
    """A user's change that writes Git LFS pointers (a file made through the contents
    API): the repository needs their objects from now on, so no collection takes them.
    Not refused when an object is missing, as Forgejo takes any file there; a git push
    has its own, stricter gate (``lfs.gate``, before its refs move)."""
    if git.object_store.lfs_pointers:
        from chalicelib import lfs

        lfs.add_needs(repo, git.object_store.lfs_pointers)


def _has_branches(git, changes: list[Update]) -> bool:
    heads = {ref.decode() for ref in git.refs.allkeys() if ref.startswith(HEADS.encode())}
    for ref, _, new in changes:
        if ref.startswith(HEADS):
            (heads.discard if refdb.is_zero(new) else heads.add)(ref)
    return bool(heads)


def _ref_kind(ref: str) -> tuple[str, str] | None:
    for prefix, kind in ((HEADS, "branch"), (TAGS, "tag")):
        if ref.startswith(prefix):
            return kind, ref[len(prefix):]
    return None


def _forced(git, ref: str, old: str, new: str, descends: bool) -> bool:
    """Whether a ref update drops its old tip from the ref's history (the ref history
    records it, ``chalicelib.ref_history``): a branch moved to a commit that does not
    descend from the old one, a tag moved.  Creations and deletions are not forced.
    A branch's answer comes from the walk of its new commits (``descends``); any
    other ref walks from the old tip, which stops at once on a fast-forward."""
    if refdb.is_zero(old) or refdb.is_zero(new) or old == new:
        return False
    if ref.startswith(HEADS):
        return not descends
    if ref.startswith(TAGS):
        return True
    from dulwich.errors import MissingCommitError

    try:
        walker = git.get_walker(include=[old.encode()], exclude=[new.encode()], max_entries=1)
        return any(True for _ in walker)
    except MissingCommitError:      # the old tip's object is gone: it is dropped for sure
        return True


def _push_events(change: RefChange, actor: Account | None) -> list[events.Event]:
    common = change.event_fields(actor)
    raised: list[events.Event] = []
    for ref, old, new in change.updates:
        kind = _ref_kind(ref)
        if kind and refdb.is_zero(old):
            raised.append(events.RefCreated(**common, ref=kind[1], ref_type=kind[0], sha=new))
        # A tag's push lists no commits (Forgejo's payload has none); only branches walk.
        commits, total, descends = _pushed_commits(change.git, old, new) \
            if ref.startswith(HEADS) else ([], 0, False)
        raised.append(events.RepositoryPushed(**common, ref=ref, before=old, after=new,
                                              commits=tuple(commits), total_commits=total,
                                              forced=_forced(change.git, ref, old, new,
                                                             descends), via=change.via))
        if kind and refdb.is_zero(new):
            raised.append(events.RefDeleted(**common, ref=kind[1], ref_type=kind[0], sha=old))
    return raised


def commit(change: RefChange) -> None:
    """Write the change (one transaction, or the documented sequence).  Raises StaleRefs
    when a ref moved meanwhile, RefsBusy when concurrent writers kept colliding,
    RefUpdateFailed when the repository was deleted meanwhile; nothing is written then.
    Other failed conditions (the caller's items) escape as ConditionFailed."""
    names = [ref for ref, _, _ in change.updates]
    try:
        if change.size <= TRANSACTION_LIMIT:
            refdb.retry_while_busy(names, lambda: _write(change, change.events, refs=True))
        else:
            refdb.retry_while_busy(names, lambda: _write(change, [], refs_only=True))
            _write_after_refs(change)
    except ConditionFailed as failed:
        stale = refdb.stale_refs(failed)
        if stale is not None:
            raise stale from None
        if change.charge is not None and failed.label == quota.CHARGE_VISIBILITY \
                and quota.refresh_charge(change.charge, change.repo):
            return commit(change)     # the visibility changed meanwhile: charge the other
        if failed.label == repos.REPO_CHANGED and not change.creates_repo:
            raise RefUpdateFailed("the repository was deleted meanwhile", names) from None
        raise
    change.git.refs.record_applied(change.updates, change.peeled)
    if change.charge is not None:
        quota.charge_committed(change.charge, change.repo, creates_repo=change.creates_repo)
    for name, value in change.repo_fields.items():
        setattr(change.repo, name, value)


def _write_after_refs(change: RefChange) -> None:
    """Steps 2 and 3 of the sequence.  A new repository fails as a whole (its caller
    discards the refs); an existing one has its refs moved, so the writer must hear
    success: what could not be written is logged."""
    batches = [change.events[i:i + EVENTS_PER_UNIT]
               for i in range(0, len(change.events), EVENTS_PER_UNIT)] or [[]]
    try:
        _write(change, batches[0])
        for batch in batches[1:]:
            with unit_of_work.writing() as uow:
                for event in batch:
                    uow.raise_event(event)
    except Exception:
        if change.creates_repo:
            raise
        log.exception("refs of repository %s moved, but their records and events were "
                      "not all written", change.repo.id)


def _write(change: RefChange, raised: list[events.Event], *, refs: bool = False,
           refs_only: bool = False) -> None:
    with unit_of_work.writing() as uow:
        if refs or refs_only:
            change.git.refs.stage_updates(uow, change.updates, change.peeled)
        if refs_only:
            return
        for record in change.branch_records:
            branch_store.stage_put(record)
        for name in change.removed_branches:
            branch_store.stage_delete(change.repo.id, name)
        if change.charge is not None:     # first: the repository's update keeps its label
            quota.stage_charge(change.charge, change.repo, creates_repo=change.creates_repo)
        if not change.creates_repo:
            repos.stage_repo_fields(change.repo, change.repo_fields)
        for _, stage in change.extras:
            stage(uow)
        for event in raised:
            uow.raise_event(event)


def apply_ref_updates(repo: Repo, git: NimbusRepo,
                      updates: list[tuple[str, str | None, str | None]], *,
                      actor_id: int | None = None, actor: Account | None = None,
                      guard: Guard = Guard.RULES) -> None:
    """Move refs for the API (not a push): ``None`` for absent.  One write with the
    branch records, the repository's metadata and the push events (see ``commit``)."""
    if actor is None and actor_id is not None:
        actor = accounts.account_by_id(int(actor_id))
    normalized = [(ref, old or ZERO, new or ZERO) for ref, old, new in updates]
    commit(prepare(repo, git, normalized, actor=actor, guard=guard))


def require_ref_writer(caller: Caller, view: RepoView, what: str) -> None:
    """Who may move ``what`` (branches, tags) through the API: a signed-in writer, and
    not on an archived repository (423) or a mirror (its next sync would undo it)."""
    if caller.user is None or not view.can_write:
        raise PermissionDenied("user should have a permission to write to a repo")
    if view.repo.archived:
        raise ArchivedRepository("repository is archived")
    if view.repo.mirror:
        raise PermissionDenied(f"can not change {what} of a mirror")
