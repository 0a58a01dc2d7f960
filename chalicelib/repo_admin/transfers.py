"""Giving a repository to another owner: ``repoTransfer``, ``acceptRepoTransfer``,
``rejectRepoTransfer``, by Forgejo's rules.

- Only the repository's owner starts it (the owning user, an owner of the owning
  organization, a site admin: the route's ``reqOwner``).
- To a site admin's choice, to the doer themself, or to an organization the doer may
  create repositories in, it happens at once (202); otherwise it waits for the
  recipient (201 with the repository showing ``repo_transfer``), who accepts (202) or
  rejects (200) — for an organization, anyone who may create repositories in it.  A
  private repository's recipient who could not see it is made a reader, so they can.
- ``team_ids``: teams of the recipient organization that get the repository.
- One transfer at a time (409 while one is pending); a name the new owner already
  has is 422, as Forgejo's ``ErrRepoAlreadyExist``.

The move is one transaction: the repository item leaves the old key (only if nothing
changed since it was read, so of two transfers racing one wins and the other is
refused) for the key under the new owner (which must be free), its id link follows,
both owners' ``num_repos`` and quota usage move, the old owner's teams lose their links
and the new ones get theirs, and a redirect from the old address is left
(``transfer_store``), with ``RepositoryEdited`` naming the old owner.  Everything else
about the repository is keyed by its id and stays.  Then, as Forgejo, collaborations
that the new owner makes redundant (the new owner themself, or members of the new
owning organization) are removed.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from chalicelib import accounts, clock, contents, events, orgs, quota, repos
from chalicelib.errors import (
    ConditionFailed,
    ConflictError,
    InvalidInput,
    NotFoundError,
    PermissionDenied,
)
from chalicelib.repo_admin import transfer_store
from chalicelib.repos import Access, Caller, RepoView, can_create_in, is_org
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.repo_admin.lifecycle_options import TransferRepoOption
    from chalicelib.repos import Repo

NO_OWNER = "The new owner does not exist or cannot be found"
IN_PROGRESS = "repository is already being transferred"


def _exists_message(owner: Account, name: str) -> str:
    return f"repository already exists [uname: {owner.login}, name: {name}]"


def start(caller: Caller, view: RepoView, option: TransferRepoOption) -> tuple[RepoView, bool]:
    """repoTransfer: the repository as it is afterwards, and whether it is pending."""
    doer = caller.user
    if doer is None or view.access < Access.OWNER:
        raise PermissionDenied("user should be the owner of the repo")
    recipient = _recipient(doer, (option.new_owner or "").strip())
    quota.ensure_within_quota(int(recipient.id), "size:repos:all")
    team_ids = _team_ids(recipient, option.team_ids if isinstance(option.team_ids, list) else None)
    if accounts.is_blocked(int(recipient.id), int(doer.id)):
        raise PermissionDenied("user is blocked by the new owner")
    repo = view.repo
    if int(repo.transfer_recipient_id or 0):
        raise ConflictError(f"{IN_PROGRESS} [uname: {view.owner.login}, name: {repo.name}]")
    if doer.is_admin or int(doer.id) == int(recipient.id) or (
            is_org(recipient) and can_create_in(doer, recipient)):
        return move(doer, view, recipient, team_ids), False
    _check_free(recipient, repo)
    _mark_pending(doer, view, recipient, team_ids)
    return view, True


def _recipient(doer: Account, name: str) -> Account:
    recipient = accounts.account_by_name(name) if name else None
    if recipient is None:
        raise NotFoundError(NO_OWNER)
    if (is_org(recipient) and recipient.visibility == "private" and not doer.is_admin
            and not orgs.is_org_member(recipient, doer)):
        raise NotFoundError(NO_OWNER)       # they should not learn that it exists
    return recipient


def _team_ids(recipient: Account, wanted) -> list[int]:
    if wanted is None:
        return []
    if not is_org(recipient):
        raise InvalidInput("Teams can only be added to organization-owned repositories")
    found = []
    for team_id in dict.fromkeys(int(t) for t in wanted):
        team = orgs.team_by_id(team_id)
        if team is None:
            raise InvalidInput(f"team {team_id} not found")
        if int(team.org_id) != int(recipient.id):
            raise PermissionDenied(f"team {team_id} belongs not to org {int(recipient.id)}")
        found.append(team_id)
    return found


def _check_free(owner: Account, repo: Repo) -> None:
    if int(owner.id) == int(repo.owner_id) or repos.repo_by_name(owner.lower_name, repo.name):
        raise InvalidInput(_exists_message(owner, repo.name))


def _mark_pending(doer: Account, view: RepoView, recipient: Account, team_ids: list[int]) -> None:
    repo = view.repo
    if not is_org(recipient) and not repos.view_of(repo, Caller(recipient), view.owner).can_read:
        # As Forgejo: the recipient could not see what they are asked to accept.
        repos.add_collaborator(doer, RepoView(repo, view.owner, Access.OWNER), recipient.login,
                               repos.AddCollaboratorOption(permission="read"))
    now = clock.seconds()
    try:
        with unit_of_work.writing():
            repos.stage_transfer_state(repo, doer_id=int(doer.id), recipient_id=int(recipient.id),
                                       team_ids=team_ids, created=now)
    except ConditionFailed:
        raise ConflictError(f"{IN_PROGRESS} [uname: {view.owner.login}, name: {repo.name}]") \
            from None
    repo.transfer_doer_id, repo.transfer_recipient_id = int(doer.id), int(recipient.id)
    repo.transfer_team_ids, repo.transfer_created = set(team_ids) or None, now


def pending(view: RepoView) -> tuple[Account, Account, list[int]] | None:
    """The pending transfer: (doer, recipient, team ids), or None."""
    repo = view.repo
    recipient_id = int(repo.transfer_recipient_id or 0)
    if not recipient_id:
        return None
    doer = accounts.account_by_id(int(repo.transfer_doer_id or 0))
    recipient = accounts.account_by_id(recipient_id)
    if recipient is None:
        return None
    return doer, recipient, sorted(int(t) for t in repo.transfer_team_ids or ())


def may_accept(user: Account | None, recipient: Account) -> bool:
    """Forgejo's ``CanUserAcceptTransfer``: the recipient user, or for an organization
    whoever may create repositories in it."""
    if user is None:
        return False
    if not is_org(recipient):
        return int(user.id) == int(recipient.id)
    return can_create_in(user, recipient)


def answer(caller: Caller, view: RepoView, *, accept: bool) -> RepoView:
    """acceptRepoTransfer / rejectRepoTransfer: 404 when nothing is pending, 403 for
    anyone but the recipient."""
    found = pending(view)
    if found is None:
        raise NotFoundError("no pending repository transfer")
    doer, recipient, team_ids = found
    if not may_accept(caller.user, recipient):
        raise PermissionDenied("user does not have permissions to do this")
    if not accept:
        cancel(view)
        return view
    quota.ensure_within_quota(int(recipient.id), "size:repos:all")
    return move(doer or caller.user, view, recipient, team_ids)


def withdraw(caller: Caller, view: RepoView) -> None:
    """The owner takes a pending transfer back (Forgejo's "Cancel transfer" on the
    settings page, ``CancelRepositoryTransfer``): owners only, 404 when none is pending."""
    if caller.user is None or view.access < Access.OWNER:
        raise PermissionDenied("user should be the owner of the repo")
    if pending(view) is None:
        raise NotFoundError("no pending repository transfer")
    cancel(view)


def cancel(view: RepoView) -> None:
    """The pending transfer is dropped (rejected, or cancelled by the owner)."""
    repo = view.repo
    try:
        with unit_of_work.writing():
            repos.stage_transfer_state(repo, doer_id=0, recipient_id=0)
    except ConditionFailed:
        raise ConflictError("the repository changed meanwhile; try again") from None
    repo.transfer_doer_id = repo.transfer_recipient_id = repo.transfer_created = 0
    repo.transfer_team_ids = None


def move(doer: Account | None, view: RepoView, owner: Account, team_ids: list[int]) -> RepoView:
    """Give the repository to ``owner`` now (see the module's description)."""
    repo, old_owner = view.repo, view.owner
    _check_free(owner, repo)
    moved = repos.transferred_repo_record(repo, owner, team_ids=team_ids)
    old_teams = sorted(int(t) for t in repo.team_ids or ()) if is_org(old_owner) else []
    now = clock.seconds()
    try:
        with unit_of_work.writing() as uow:
            repos.stage_move_repo(repo, moved)
            accounts.stage_repo_count(int(old_owner.id), -1, label=repos.OWNER_GONE)
            accounts.stage_repo_count(int(owner.id), 1, label=repos.OWNER_GONE,
                                      lower_name=owner.lower_name)
            quota.stage_charge_owner(repo, int(owner.id))
            orgs.stage_team_repo_links(old_teams, repo, add=False)
            orgs.stage_team_repo_links(team_ids, moved, add=True)
            transfer_store.stage_redirect(int(old_owner.id), repo.lower_name, int(repo.id), now)
            transfer_store.stage_forget_redirect(int(owner.id), repo.lower_name)
            uow.raise_event(events.RepositoryEdited(
                **contents.push_event_fields(moved, doer),
                changes=(("owner_login", old_owner.login), ("owner_id", int(old_owner.id)))))
    except ConditionFailed as failed:
        if failed.label == repos.REPO_CHANGED and any(
                int(found.id) != int(repo.id) for found in repos.refreshed_repos([moved])):
            raise InvalidInput(_exists_message(owner, repo.name)) from None
        if failed.label == repos.OWNER_GONE:
            raise NotFoundError(NO_OWNER) from None
        raise ConflictError("the repository changed while it was being transferred; "
                            "try again") from None
    moved_view = RepoView(moved, owner, Access.OWNER)
    _drop_redundant_collaborators(doer, moved_view)
    return moved_view


def _drop_redundant_collaborators(doer: Account | None, view: RepoView) -> None:
    """As Forgejo after a transfer: the new owner, and members of the new owning
    organization, are no longer collaborators of their own repository."""
    owner = view.owner
    for user, _mode in repos.collaborators_with_modes(view):
        if int(user.id) == int(owner.id) or (
                is_org(owner) and orgs.get_member(int(owner.id), int(user.id)) is not None):
            repos.remove_collaborator(doer or owner, view, user.login)
