"""Who else uses a repository: collaborators, stargazers, watchers and deploy keys.

Each relation is a pair of items (the forward item in the repository's partition and,
for people, a reverse item in the user's, so "my stars" is one Query too); star and
watch counters move in the same transaction, conditional on the forward item, so
repeating a request never counts twice.  Layouts are in ``chalicelib.repos.access_store``.

Every change is one unit-of-work commit with its event (``CollaboratorChanged``,
``RepoAccessChanged``); a request that changes nothing (starring twice, removing someone
who is not a collaborator) commits nothing and raises no event.

Deleting a repository removes its partition but not the reverse items in users'
partitions, nor deploy-key fingerprint claims: listings skip reverse items whose
repository is gone, and a claim left by a deleted repository is taken over (see
``add_deploy_key``).
"""
from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Iterator

from chalicelib import accounts, clock, events
from chalicelib.accounts import parse_ssh_key
from chalicelib.errors import (ConditionFailed, ConflictError, InvalidInput, NotFoundError,
                               PermissionDenied)
from chalicelib.repos import access_store as store
from chalicelib.repos.options import AddCollaboratorOption
from chalicelib.repos.permissions import Access, prefetch_access, repo_access
from chalicelib.repos.views import Caller, RepoView, list_visible
from chalicelib.store import ids, unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import CreateKeyOption
    from chalicelib.repos.access_store import Account, DeployKey, Relation, Repo

STARS = store.STARS
WATCHES = store.WATCHES


def _require_admin(view: RepoView) -> None:
    if not view.is_admin:
        raise PermissionDenied("user should be an owner or a collaborator with admin write "
                               "of a repository")


def _named_user(name: str) -> Account:
    """Forgejo answers an unknown user in these paths with 422, not 404."""
    try:
        return accounts.get_user(name)
    except NotFoundError:
        raise InvalidInput(f"user does not exist [uid: 0, name: {name}]") from None


def _visible_repos(caller: Caller, repos: list[Repo]) -> list[RepoView]:
    """The repositories the caller may read, deciding for all with one batched read."""
    prefetch_access(repos, int(caller.user.id) if caller.user is not None else None)
    return list_visible(caller, repos)


def _about(actor: Account, repo: Repo) -> dict:
    """The actor and repository fields of an event."""
    return {"actor_id": int(actor.id), "actor": events.snapshot(actor),
            "repo_id": int(repo.id), "repo": events.snapshot(repo)}


@contextlib.contextmanager
def _writing(repo: Repo) -> Iterator[unit_of_work.UnitOfWork]:
    """A unit of work in which a failed ``REPO_GONE`` condition means the repository
    was deleted meanwhile (404)."""
    try:
        with unit_of_work.writing() as uow:
            yield uow
    except ConditionFailed as failed:
        if failed.label == store.REPO_GONE:
            raise NotFoundError(f"repository does not exist [id: {repo.id}]") from None
        raise


# Collaborators -----------------------------------------------------------------------

def collaborators(view: RepoView) -> list[Account]:
    return store.accounts_by_id(store.collaborator_ids(int(view.repo.id)))


def collaborators_with_modes(view: RepoView) -> list[tuple[Account, str]]:
    """Each collaborator (in ``collaborators``' order) with their mode (read, write or
    admin): the mode is on the collaboration item the list reads anyway, so this costs
    what the list costs (one Query, one batch of accounts), however many there are."""
    modes = {int(c.user_id): c.mode for c in store.collaborations(int(view.repo.id))}
    return [(account, modes[int(account.id)])
            for account in store.accounts_by_id(list(modes))]


def is_collaborator(view: RepoView, name: str) -> bool:
    user = _named_user(name)
    # Consistent: a check right after adding must see the collaboration.
    return store.collaboration(int(view.repo.id), int(user.id), consistent=True) is not None


def add_collaborator(actor: Account, view: RepoView, name: str,
                     option: AddCollaboratorOption) -> None:
    """repoAddCollaborator: a new collaborator gets ``permission`` (default write); for an
    existing one only a given ``permission`` changes anything, as in Forgejo."""
    _require_admin(view)
    # Read in any case ("Write"); an empty or unknown mode is refused.
    mode = Access.parse(option.permission) if isinstance(option.permission, str) else None
    if mode is not None and not Access.READ <= mode <= Access.ADMIN:
        raise InvalidInput("[Permission]: must be one of read, write, admin")
    user = _named_user(name)
    if not user.active:
        raise InvalidInput("collaborator's account is inactive")
    repo = view.repo
    if int(user.id) == int(repo.owner_id):
        raise InvalidInput("the owner of a repository cannot be one of its collaborators")
    label = (mode or Access.WRITE).label
    # Optimistic: adding is the common case and costs one write; an existing
    # collaborator makes it fail, and only then is the current mode read.
    try:
        with _writing(repo) as uow:
            store.stage_add_collaborator(repo, int(user.id), label, clock.seconds())
            accounts.stage_not_blocked(int(repo.owner_id), int(user.id))
            accounts.stage_not_blocked(int(user.id), int(repo.owner_id))
            uow.raise_event(events.CollaboratorChanged(
                **_about(actor, repo), user_id=int(user.id), permission=label, action="added",
                user=events.snapshot(user)))
    except ConditionFailed as failed:
        refused = accounts.block_refusal(failed)
        if refused is not None:
            raise refused from None
        if failed.label != store.COLLABORATOR:
            raise
        if mode is not None:
            _change_permission(actor, repo, user, mode)


def _change_permission(actor: Account, repo: Repo, user: Account, mode: Access) -> None:
    current = store.collaboration(int(repo.id), int(user.id), consistent=True)
    if current is None:
        raise ConflictError("the collaborator was removed meanwhile; try again")
    if current.mode == mode.label:
        return
    with unit_of_work.writing() as uow:
        store.stage_change_mode(current, mode.label)
        uow.raise_event(events.CollaboratorChanged(
            **_about(actor, repo), user_id=int(user.id), permission=mode.label,
            action="edited", previous_permission=current.mode, user=events.snapshot(user)))


def remove_collaborator(actor: Account, view: RepoView, name: str) -> None:
    """repoDeleteCollaborator: removing someone who is not a collaborator is no error."""
    _require_admin(view)
    user = _named_user(name)
    repo = view.repo
    # Read first: the event says which permission was taken away.
    current = store.collaboration(int(repo.id), int(user.id), consistent=True)
    if current is None:
        return
    try:
        with unit_of_work.writing() as uow:
            store.stage_remove_collaborator(int(repo.id), current)
            uow.raise_event(events.CollaboratorChanged(
                **_about(actor, repo), user_id=int(user.id), permission=current.mode,
                action="removed", user=events.snapshot(user)))
    except ConditionFailed as failed:
        if failed.label != store.COLLABORATOR:
            raise
        # Removed meanwhile by another request, which raised the event.


def permission_of(caller: Caller, view: RepoView, name: str) -> tuple[Account, Access]:
    """repoGetRepoPermissions: site and repository admins ask about anyone, others only
    about themselves.  The user is looked up first, so an unknown name is 404 for all."""
    try:
        user = accounts.get_user(name, caller.user)
    except NotFoundError:
        raise NotFoundError(f"user does not exist [uid: 0, name: {name}]") from None
    if not view.is_admin and (caller.user is None or caller.user.id != user.id):
        raise PermissionDenied("Only admins can query all permissions, repo admins can query "
                               "all repo permissions, collaborators can query only their own")
    return user, repo_access(user, view.repo, view.owner)


def collaborating_on(caller: Caller, user: Account) -> list[RepoView]:
    """The repositories ``user`` collaborates on that the caller may see."""
    return _visible_repos(caller, store.repos_collaborated_on(int(user.id)))


# Stars and watches ---------------------------------------------------------------------

def follow(relation: Relation, user: Account, view: RepoView) -> None:
    """Star or watch: a second call changes nothing (the conditional put fails, so the
    counter is not bumped either, and no event is raised)."""
    accounts.check_not_blocked([view.repo.owner_id], user.id)   # preloaded: no read
    _change_relation(relation, user, view, "added")


def unfollow(relation: Relation, user: Account, view: RepoView) -> None:
    """Unstar or unwatch: a call for a relation that is not there changes nothing."""
    _change_relation(relation, user, view, "removed")


def _change_relation(relation: Relation, user: Account, view: RepoView, action: str) -> None:
    repo = view.repo
    try:
        with _writing(repo) as uow:
            if action == "added":
                store.stage_follow(relation, repo, int(user.id), clock.seconds())
            else:
                store.stage_unfollow(relation, repo, int(user.id))
            uow.raise_event(events.RepoAccessChanged(
                **_about(user, repo), kind=relation.name, action=action,
                subject_id=int(user.id), subject=events.snapshot(user)))
    except ConditionFailed as failed:
        if failed.label != relation.name:  # already (or not) following: nothing changed
            raise


def follows(relation: Relation, user: Account, view: RepoView) -> bool:
    return store.follows(relation, int(view.repo.id), int(user.id))


def followers(relation: Relation, view: RepoView) -> list[Account]:
    """Stargazers or watchers, in user id order."""
    return store.accounts_by_id(store.follower_ids(relation, int(view.repo.id)))


def followed_by(relation: Relation, caller: Caller, user: Account) -> list[RepoView]:
    """The repositories ``user`` stars or watches, as the caller may see them.  Someone
    else's list shows public repositories only (Forgejo's ``private=false``)."""
    views = _visible_repos(caller, store.followed_repos(relation, int(user.id)))
    if caller.user is None or caller.user.id != user.id:
        views = [v for v in views if not v.repo.private]
    return views


# Deploy keys ----------------------------------------------------------------------------

def deploy_keys(view: RepoView, *, key_id: int = 0, fingerprint: str = "") -> list[DeployKey]:
    """repoListKeys (admins only, as Forgejo's reqAdmin); optional filters."""
    _require_admin(view)
    found = store.deploy_keys_of(int(view.repo.id))
    return [k for k in found if (not key_id or int(k.id) == key_id)
            and (not fingerprint or k.fingerprint == fingerprint)]


def deploy_key(view: RepoView, key_id: int) -> DeployKey:
    _require_admin(view)
    key = store.deploy_key(int(view.repo.id), key_id)
    if key is None:
        raise NotFoundError(f"deploy key does not exist [id: {key_id}]")
    return key


def _claim_holder(claim: store.KeyClaim, repo: Repo) -> str:
    if claim.user_id:
        return "Key content has been used as non-deploy key"
    if claim.repo_id == int(repo.id):
        return "This key has already been added to this repository"
    return "Key content has been used as a deploy key of another repository"


def add_deploy_key(actor: Account, view: RepoView, option: CreateKeyOption) -> DeployKey:
    """repoCreateKey.  A title or key left out is refused at the edge; a null or empty
    one here, after the caller's right to add one."""
    _require_admin(view)
    title = (option.title or "").strip()
    if not title:
        raise InvalidInput("[Title]: Required")
    if not option.key:
        raise InvalidInput("[Key]: Required")
    read_only = bool(option.read_only)
    parsed = parse_ssh_key(option.key)
    repo = view.repo
    held = store.key_claim(parsed.fingerprint)
    if held is not None and not store.abandoned(held):
        raise InvalidInput(_claim_holder(held, repo))
    if any(k.title == title for k in store.deploy_keys_of(int(repo.id))):
        raise InvalidInput("A key with the same name already exists")
    key_id = ids.next_id("deploy_key")
    key = store.new_deploy_key(repo, key_id, title=title, content=parsed.content,
                               fingerprint=parsed.fingerprint, read_only=read_only,
                               created=clock.seconds())
    try:
        with _writing(repo) as uow:
            # A claim a deleted repository left behind is taken over, if still that one.
            store.stage_add_deploy_key(repo, key, taking_over=held)
            uow.raise_event(events.RepoAccessChanged(
                **_about(actor, repo), kind="deploy_key", action="added", subject_id=key_id,
                subject=events.snapshot(key)))
    except ConditionFailed as failed:
        if failed.label == store.CLAIM:  # somebody claimed the key meanwhile
            raise InvalidInput("Key content has been used as non-deploy key") from None
        raise
    return key


def delete_deploy_key(actor: Account, view: RepoView, key_id: int) -> None:
    """repoDeleteKey: a key that is not there is no error (Forgejo answers 204)."""
    _require_admin(view)
    key = store.deploy_key(int(view.repo.id), key_id)
    if key is None:
        return
    event = events.RepoAccessChanged(**_about(actor, view.repo), kind="deploy_key",
                                     action="removed", subject_id=key_id,
                                     subject=events.snapshot(key))
    try:
        _commit_key_deletion(key, event, with_claim=True)
    except ConditionFailed as failed:
        if failed.label != store.CLAIM:
            raise
        # The claim is not this key's (left over from an inconsistent past): the key
        # goes alone, the claim stays with its holder.
        _commit_key_deletion(key, event, with_claim=False)


def _commit_key_deletion(key: DeployKey, event: events.Event, *, with_claim: bool) -> None:
    try:
        with unit_of_work.writing() as uow:
            store.stage_delete_deploy_key(key, with_claim=with_claim)
            uow.raise_event(event)
    except ConditionFailed as failed:
        if failed.label != store.DEPLOY_KEY:
            raise
        # Deleted meanwhile by another request, which raised the event.
