"""Who else uses a repository: collaborators, stargazers, watchers and deploy keys.

Each relation is a pair of items written in one transaction: the forward item in the
repository's partition (``R#<id>``: COLLAB#, STAR#, WATCH#, DEPLOYKEY#) and, for people,
a reverse ``RepoLink`` in the user's partition (``A#<id>``: COLLABON#, STARRED#,
WATCHING#) so "my stars" is one Query too.  Star and watch counters move in the same
transaction, conditional on the forward item, so repeating a request never counts twice.

Deleting a repository removes its ``R#`` partition but not the reverse items in users'
partitions, nor deploy-key fingerprint claims; both are handled here: reverse items whose
repository is gone are skipped when listing, and a claim left by a deleted repository is
taken over (see ``add_deploy_key``).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from chalicelib.services import accounts
from chalicelib.services.errors import InvalidInput, NotFoundError, PermissionDenied
from chalicelib.services.permissions import Access, access_keys, repo_access
from chalicelib.services.public_keys import parse_ssh_key
from chalicelib.services.repos import Caller, RepoView, list_visible
from chalicelib.store import ids, session
from chalicelib.store import repos as repo_store
from chalicelib.store.table import (
    Account,
    Claim,
    Collaboration,
    DeployKey,
    Item,
    Repo,
    RepoLink,
    RepoName,
    UserLink,
    keys,
)
from chalicelib.store.transact import commit_labelled

_commit = commit_labelled


def _repo_exists(repo: Repo) -> tuple:
    return ("repo", "check", (Repo, repo.pk, repo.sk), {"condition": Repo.pk.exists()})


def _partition(pk: str, prefix: str) -> list[Item]:
    return list(Item.query(pk, Item.sk.startswith(prefix), consistent_read=True))


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


def _users(user_ids: list[int]) -> list[Account]:
    """Accounts in the given order; deleted accounts are left out."""
    session.prefetch(keys.account(i) for i in user_ids)
    found = (session.get(Account, keys.account(i)) for i in user_ids)
    return [a for a in found if a is not None]


def _visible_repos(caller: Caller, links: list[RepoLink]) -> list[RepoView]:
    """The linked repositories the caller may read.  Links are followed by id (names
    change), and links to deleted repositories are skipped."""
    session.prefetch(keys.repo_name(int(link.repo_id)) for link in links)
    names = [session.get(RepoName, keys.repo_name(int(link.repo_id))) for link in links]
    repo_keys = [(name.repo_pk, "REPO") for name in names if name is not None]
    session.prefetch(repo_keys)
    found = [r for r in (session.get(Repo, k) for k in repo_keys) if r is not None]
    user_id = int(caller.user.id) if caller.user is not None else None
    session.prefetch(k for r in found for k in access_keys(r, user_id))
    return list_visible(caller, found)


# Collaborators -----------------------------------------------------------------------

def collaborators(view: RepoView) -> list[Account]:
    items = _partition(keys.repo_partition(int(view.repo.id)), keys.COLLAB_PREFIX)
    return _users([int(c.user_id) for c in items])


def is_collaborator(view: RepoView, name: str) -> bool:
    user = _named_user(name)
    key = keys.collaboration(int(view.repo.id), int(user.id))
    # Consistent: a check right after adding must see the collaboration.
    return session.get(Collaboration, key, consistent=True) is not None


def add_collaborator(view: RepoView, name: str, data: dict) -> None:
    """repoAddCollaborator: a new collaborator gets ``permission`` (default write); for an
    existing one only a given ``permission`` changes anything, as in Forgejo."""
    _require_admin(view)
    text = accounts.optional(data, "permission", str)
    mode = Access.parse(text) if text is not None else None
    if mode is not None and not Access.READ <= mode <= Access.ADMIN:
        raise InvalidInput("[Permission]: must be one of read, write, admin")
    user = _named_user(name)
    if not user.active:
        raise InvalidInput("collaborator's account is inactive")
    repo = view.repo
    if int(user.id) == int(repo.owner_id):
        raise InvalidInput("the owner of a repository cannot be one of its collaborators")
    key = keys.collaboration(int(repo.id), int(user.id))
    now = int(time.time())
    item = Collaboration(*key, user_id=user.id, mode=(mode or Access.WRITE).label, created=now)
    link = RepoLink(*keys.collaborating_on(int(user.id), int(repo.id)), repo_id=repo.id,
                    repo_pk=repo.pk, created=now)
    failed = _commit(("collab", "save", (item,), {"condition": Collaboration.pk.does_not_exist()}),
                     ("link", "save", (link,), {}), _repo_exists(repo))
    if failed == "repo":
        raise NotFoundError(f"repository does not exist [id: {repo.id}]")
    if failed == "collab" and mode is not None:
        Collaboration(*key).update(actions=[Collaboration.mode.set(mode.label)],
                                   condition=Collaboration.pk.exists())
    session.forget(key)


def remove_collaborator(view: RepoView, name: str) -> None:
    """repoDeleteCollaborator: removing someone who is not a collaborator is no error."""
    _require_admin(view)
    user = _named_user(name)
    key = keys.collaboration(int(view.repo.id), int(user.id))
    _commit(("collab", "delete", (Collaboration(*key),), {}),
            ("link", "delete", (RepoLink(*keys.collaborating_on(int(user.id),
                                                                 int(view.repo.id))),), {}))
    session.forget(key)


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
    return _visible_repos(caller, _partition(keys.account(int(user.id))[0],
                                             keys.COLLABORATING_PREFIX))


# Stars and watches ---------------------------------------------------------------------

@dataclass(frozen=True)
class Relation:
    """A user following a repository: the item in the repository's partition, its
    reverse in the user's, and the repository's counter."""
    mark: Callable[[int, int], tuple]       # (repo id, user id) -> key
    link: Callable[[int, int], tuple]       # (user id, repo id) -> key
    mark_prefix: str
    link_prefix: str
    counter: Any


STARS = Relation(keys.star, keys.starred, keys.STAR_PREFIX, keys.STARRED_PREFIX, Repo.num_stars)
WATCHES = Relation(keys.watch, keys.watching, keys.WATCH_PREFIX, keys.WATCHING_PREFIX,
                   Repo.num_watches)


def follow(relation: Relation, user: Account, view: RepoView) -> None:
    """Star or watch: a second call changes nothing (the conditional put fails, so the
    counter is not bumped either)."""
    repo, now = view.repo, int(time.time())
    mark = UserLink(*relation.mark(int(repo.id), int(user.id)), user_id=user.id, created=now)
    link = RepoLink(*relation.link(int(user.id), int(repo.id)), repo_id=repo.id,
                    repo_pk=repo.pk, created=now)
    failed = _commit(("mark", "save", (mark,), {"condition": UserLink.pk.does_not_exist()}),
                     ("link", "save", (link,), {}),
                     ("repo", "update", (Repo(repo.pk, repo.sk),),
                      # version: a full save of a copy read before this must not undo the count
                      {"actions": [relation.counter.add(1), Repo.version.add(1)],
                       "condition": Repo.pk.exists()}))
    if failed == "repo":
        raise NotFoundError(f"repository does not exist [id: {repo.id}]")
    session.forget((repo.pk, repo.sk))


def unfollow(relation: Relation, user: Account, view: RepoView) -> None:
    repo = view.repo
    mark = UserLink(*relation.mark(int(repo.id), int(user.id)))
    link = RepoLink(*relation.link(int(user.id), int(repo.id)))
    failed = _commit(("mark", "delete", (mark,), {"condition": UserLink.pk.exists()}),
                     ("link", "delete", (link,), {}),
                     ("repo", "update", (Repo(repo.pk, repo.sk),),
                      {"actions": [relation.counter.add(-1), Repo.version.add(1)],
                       "condition": Repo.pk.exists()}))
    if failed == "repo":
        raise NotFoundError(f"repository does not exist [id: {repo.id}]")
    session.forget((repo.pk, repo.sk))


def follows(relation: Relation, user: Account, view: RepoView) -> bool:
    key = relation.mark(int(view.repo.id), int(user.id))
    return session.get(UserLink, key, consistent=True) is not None


def followers(relation: Relation, view: RepoView) -> list[Account]:
    """Stargazers or watchers, in user id order."""
    items = _partition(keys.repo_partition(int(view.repo.id)), relation.mark_prefix)
    return _users([int(i.user_id) for i in items])


def followed_by(relation: Relation, caller: Caller, user: Account) -> list[RepoView]:
    """The repositories ``user`` stars or watches, as the caller may see them.  Someone
    else's list shows public repositories only (Forgejo's ``private=false``)."""
    links = _partition(keys.account(int(user.id))[0], relation.link_prefix)
    views = _visible_repos(caller, links)
    if caller.user is None or caller.user.id != user.id:
        views = [v for v in views if not v.repo.private]
    return views


# Deploy keys ----------------------------------------------------------------------------
#
# A deploy key takes the same ``KEYFP#`` claim as a user's key, so one key opens one
# account or one repository.  Its ``owner_id`` is the repository id negated: account ids
# are positive, so the claim tells the two kinds apart.

def deploy_keys(view: RepoView, *, key_id: int = 0, fingerprint: str = "") -> list[DeployKey]:
    """repoListKeys (admins only, as Forgejo's reqAdmin); optional filters."""
    _require_admin(view)
    found = _partition(keys.repo_partition(int(view.repo.id)), keys.DEPLOY_KEY_PREFIX)
    return [k for k in found if (not key_id or int(k.id) == key_id)
            and (not fingerprint or k.fingerprint == fingerprint)]


def deploy_key(view: RepoView, key_id: int) -> DeployKey:
    _require_admin(view)
    key = session.get(DeployKey, keys.deploy_key(int(view.repo.id), key_id), consistent=True)
    if key is None:
        raise NotFoundError(f"deploy key does not exist [id: {key_id}]")
    return key


def _claim_is_stale(claim: Claim) -> bool:
    """A deploy-key claim whose repository or key is gone (repository deletion clears
    the repository's partition, not the claim)."""
    owner = int(claim.owner_id)
    if owner >= 0:
        return False  # a user's key: deleting the user clears its claims
    repo = repo_store.get_by_id(-owner)
    if repo is None:
        return True
    fingerprint = claim.pk[len(keys.key_fingerprint("")[0]):]
    return not any(k.fingerprint == fingerprint for k in
                   _partition(keys.repo_partition(-owner), keys.DEPLOY_KEY_PREFIX))


def _claim_holder(claim: Claim, repo: Repo) -> str:
    owner = int(claim.owner_id)
    if owner >= 0:
        return "Key content has been used as non-deploy key"
    if owner == -int(repo.id):
        return "This key has already been added to this repository"
    return "Key content has been used as a deploy key of another repository"


def add_deploy_key(view: RepoView, data: dict) -> DeployKey:
    """repoCreateKey: ``data`` is a CreateKeyOption."""
    _require_admin(view)
    title = (accounts.optional(data, "title", str) or "").strip()
    if not title:
        raise InvalidInput("[Title]: Required")
    if not accounts.optional(data, "key", str):
        raise InvalidInput("[Key]: Required")
    read_only = bool(accounts.optional(data, "read_only", bool))
    parsed = parse_ssh_key(data["key"])
    repo = view.repo
    claim_key = keys.key_fingerprint(parsed.fingerprint)
    held = session.get(Claim, claim_key, consistent=True)
    if held is not None and not _claim_is_stale(held):
        raise InvalidInput(_claim_holder(held, repo))
    existing = _partition(keys.repo_partition(int(repo.id)), keys.DEPLOY_KEY_PREFIX)
    if any(k.title == title for k in existing):
        raise InvalidInput("A key with the same name already exists")
    key_id = ids.next_id("deploy_key")
    key = DeployKey(*keys.deploy_key(int(repo.id), key_id), id=key_id, repo_id=repo.id,
                    title=title, content=parsed.content, fingerprint=parsed.fingerprint,
                    key_type="deploy", read_only=read_only, created=int(time.time()))
    # Take over a claim a deleted repository left behind, only if it is still that one.
    condition = (Claim.pk.does_not_exist() if held is None
                 else Claim.owner_id == held.owner_id)
    failed = _commit(("claim", "save", (Claim(*claim_key, owner_id=-int(repo.id)),),
                      {"condition": condition}),
                     ("key", "save", (key,), {}), _repo_exists(repo))
    if failed == "claim":  # somebody claimed the key meanwhile
        raise InvalidInput("Key content has been used as non-deploy key")
    if failed == "repo":
        raise NotFoundError(f"repository does not exist [id: {repo.id}]")
    session.forget(claim_key)
    return key


def delete_deploy_key(view: RepoView, key_id: int) -> None:
    """repoDeleteKey: a key that is not there is no error (Forgejo answers 204)."""
    _require_admin(view)
    key = session.get(DeployKey, keys.deploy_key(int(view.repo.id), key_id), consistent=True)
    if key is None:
        return
    claim = Claim(*keys.key_fingerprint(key.fingerprint))
    failed = _commit(("key", "delete", (key,), {}),
                     ("claim", "delete", (claim,),
                      {"condition": Claim.owner_id == -int(view.repo.id)}))
    if failed == "claim":  # the claim is not this key's: leave it, remove the key alone
        key.delete()
    session.forget((key.pk, key.sk))
