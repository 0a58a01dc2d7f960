"""Repositories: create, find, list, search, fork, delete.

Git data lives in ``chalicelib.gitstore`` (packs in S3, refs in DynamoDB); this module
keeps the metadata and the rules.  ``RepoView`` is a repository as one caller sees it:
the record, its owner and the caller's access mode.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass

from chalicelib.services import accounts, events
from chalicelib.services.errors import (AlreadyExists, InvalidInput, NotFoundError,
                                        PermissionDenied)
from chalicelib.services.permissions import Access, can_create_in, repo_access
from chalicelib.settings import get_settings
from chalicelib.store import accounts as account_store
from chalicelib.store import ids
from chalicelib.store import repos as store
from chalicelib.store import session
from chalicelib.store.table import Account, Item, Repo, keys

MAX_NAME = 100
_NAME = re.compile(r"^[A-Za-z0-9._-]+$")
_RESERVED = {".", "..", "-"}
_RESERVED_SUFFIXES = (".git", ".wiki", ".rss", ".atom")
SEARCH_MODES = ("fork", "source", "mirror", "collaborative")


@dataclass
class RepoView:
    repo: Repo
    owner: Account
    access: Access

    @property
    def can_read(self) -> bool:
        return self.access >= Access.READ

    @property
    def can_write(self) -> bool:
        return self.access >= Access.WRITE

    @property
    def is_admin(self) -> bool:
        return self.access >= Access.ADMIN


@dataclass(frozen=True)
class Caller:
    """Who asks: the account and whether their token is limited to public things."""
    user: Account | None
    public_only: bool = False


ANONYMOUS = Caller(None)


def now() -> int:
    return int(time.time())


def validate_name(name: str) -> str:
    if not name:
        raise InvalidInput("[Name]: Required")
    if len(name) > MAX_NAME:
        raise InvalidInput("[Name]: MaxSize")
    if not _NAME.match(name):
        raise InvalidInput("[Name]: AlphaDashDot")
    if name.lower() in _RESERVED:
        raise InvalidInput(f"name is reserved [name: {name}]")
    if name.lower().endswith(_RESERVED_SUFFIXES):
        raise InvalidInput(f"name pattern is not allowed [pattern: *{name[name.rfind('.'):]}]")
    return name


def preload_keys(owner_name: str, repo_name: str) -> list:
    return [keys.repo(owner_name.lower(), _strip_git(repo_name).lower())]


def preload_more_keys(owner_name: str, repo_name: str, user_id: int | None) -> list:
    from chalicelib.services.permissions import access_keys

    repo = store.get(owner_name, _strip_git(repo_name))
    return access_keys(repo, user_id) if repo is not None else []


def _strip_git(name: str) -> str:
    return name[:-4] if name.lower().endswith(".git") else name


def view_of(repo: Repo, caller: Caller, owner: Account | None = None) -> RepoView:
    owner = owner or account_store.get_by_id(int(repo.owner_id))
    if owner is None:  # the owner was deleted under us: treat as gone
        raise NotFoundError(f"repository does not exist [id: {repo.id}]")
    return RepoView(repo, owner, repo_access(caller.user, repo, owner,
                                              public_only=caller.public_only))


def find(caller: Caller, owner_name: str, repo_name: str) -> RepoView:
    """The repository as the caller sees it; 404 when it is missing or invisible."""
    repo = store.get(owner_name, _strip_git(repo_name))
    view = view_of(repo, caller) if repo is not None else None
    if view is None or not view.can_read:
        raise NotFoundError(f"repository does not exist [owner: {owner_name}, name: {repo_name}]")
    return view


def find_by_id(caller: Caller, repo_id: int) -> RepoView | None:
    repo = store.get_by_id(repo_id)
    if repo is None:
        return None
    view = view_of(repo, caller)
    return view if view.can_read else None


def parent_of(view: RepoView, caller: Caller) -> RepoView | None:
    if not view.repo.fork or not view.repo.parent_id:
        return None
    return find_by_id(caller, int(view.repo.parent_id))


def _new_repo(owner: Account, name: str, *, description: str = "", private: bool = False,
              default_branch: str = "", template: bool = False) -> Repo:
    repo_id = ids.next_id("repo")
    created = now()
    repo = Repo(*keys.repo(owner.lower_name, name.lower()), id=repo_id, owner_id=owner.id,
                owner_login=owner.login, name=name, lower_name=name.lower(),
                description=description, private=private, template=template,
                default_branch=default_branch or get_settings().repository.DEFAULT_BRANCH,
                pool_id=repo_id, created=created, updated=created)
    repo.gsi1pk, repo.gsi1sk = keys.repo_owner_gsi(owner.id, name.lower())
    repo.gsi2pk, repo.gsi2sk = keys.ALL_REPOS_GSI, f"{owner.lower_name}/{name.lower()}"
    return repo


def _insert(repo: Repo, *, parent: Repo | None = None) -> None:
    try:
        store.create(repo, parent=parent)
    except AlreadyExists:
        from chalicelib.services.errors import ConflictError
        raise ConflictError("The repository with the same name already exists.") from None


def create_repo(caller: Caller, owner: Account, data: dict) -> RepoView:
    """createCurrentUserRepo / adminCreateRepo: ``data`` is a CreateRepoOption."""
    from chalicelib.services import repo_init

    if not can_create_in(caller.user, owner):
        raise PermissionDenied("Given user is not allowed to create repositories here.")
    opt = accounts.optional
    name = validate_name((opt(data, "name", str) or "").strip())
    object_format = opt(data, "object_format_name", str) or "sha1"
    if object_format != "sha1":
        raise InvalidInput(f"[ObjectFormatName]: unsupported object format {object_format!r}")
    description = opt(data, "description", str) or ""
    if len(description) > 2048:
        raise InvalidInput("[Description]: MaxSize")
    default_branch = (opt(data, "default_branch", str) or "").strip()
    if default_branch:
        repo_init.validate_branch_name(default_branch)
    plan = repo_init.plan(data) if opt(data, "auto_init", bool) else None
    repo = _new_repo(owner, name, description=description,
                     private=bool(opt(data, "private", bool)), default_branch=default_branch,
                     template=bool(opt(data, "template", bool)))
    _insert(repo)
    try:
        repo_init.initialize(repo, plan, author=caller.user)
    except BaseException:
        _remove(repo, parent=None)  # nothing half-made stays behind
        raise
    events.publish(events.RepositoryCreated(actor_id=caller.user.id, repo_id=repo.id))
    return RepoView(repo, owner, Access.OWNER)


def fork_repo(caller: Caller, source: RepoView, data: dict) -> RepoView:
    """createFork: O(1) in data — the fork shares its parent's object pool; only the
    refs are copied."""
    opt = accounts.optional
    owner = caller.user
    org_name = opt(data, "organization", str)
    if org_name:
        target = account_store.get_by_name(org_name)
        if target is None:
            raise InvalidInput(f"organization does not exist [name: {org_name}]")
        if not can_create_in(caller.user, target):
            raise PermissionDenied("User is no admin of organisation")
        owner = target
    name = validate_name(opt(data, "name", str) or source.repo.name)
    if owner.id == source.repo.owner_id and name.lower() == source.repo.lower_name:
        raise InvalidInput("the repository cannot be forked onto itself")
    root = source.repo
    repo = _new_repo(owner, name, description=root.description, private=root.private,
                     default_branch=root.default_branch)
    repo.fork, repo.parent_id, repo.pool_id = True, root.id, root.pool_id
    repo.empty, repo.size = root.empty, root.size
    _insert(repo, parent=root)
    try:
        _copy_refs(int(root.id), int(repo.id))
        from chalicelib.services import pushes
        pushes.refresh_branches(repo)
    except BaseException:
        _remove(repo, parent=root)
        raise
    events.publish(events.RepositoryForked(actor_id=caller.user.id, repo_id=repo.id,
                                           parent_id=root.id))
    return RepoView(repo, owner, Access.OWNER)


def _copy_refs(source_id: int, target_id: int) -> None:
    from chalicelib.gitstore import refdb
    from chalicelib.services.pushes import ZERO

    refs = refdb.load_refs(source_id)
    plain = [(name, ZERO, value.sha) for name, value in refs.items() if value.sha]
    peeled = {name: value.peeled for name, value in refs.items() if value.peeled}
    for start in range(0, len(plain), refdb.MAX_REF_UPDATES):
        chunk = plain[start:start + refdb.MAX_REF_UPDATES]
        refdb.commit_updates(target_id, chunk,
                             peeled={n: peeled[n] for n, _, _ in chunk if n in peeled})
    for name, value in refs.items():
        if value.symref:
            refdb.put_symref(target_id, name, value.symref)


def delete_repo(caller: Caller, view: RepoView) -> None:
    """repoDelete: owners (the owning user, an admin team of the owning organization,
    a site admin) may delete; git data goes with it."""
    if view.access < Access.OWNER:
        raise PermissionDenied("Given user is not owner of this repository.")
    parent = store.get_by_id(int(view.repo.parent_id)) if view.repo.fork else None
    _remove(view.repo, parent=parent)
    events.publish(events.RepositoryDeleted(actor_id=caller.user.id if caller.user else None,
                                            repo_id=view.repo.id))


def _remove(repo: Repo, *, parent: Repo | None) -> None:
    from chalicelib import gitstore
    from chalicelib.services import archives

    remaining = store.delete(repo, parent=parent)
    # Forks of a deleted repository become independent repositories, as in Forgejo.
    for fork in store.forks_of(repo):
        fork.fork, fork.parent_id = False, 0
        store.save(fork)
    gitstore.delete_repo_refs(int(repo.id))
    for item in store.repo_partition(repo.id):
        fingerprint = getattr(item, "fingerprint", None)
        if fingerprint:  # a deploy key: free the key for other repositories and users
            Item(*keys.key_fingerprint(fingerprint)).delete()
        item.delete()
    archives.forget(repo)
    if repo.mirror:
        from chalicelib.services import migrations
        migrations.forget(repo)
    if remaining <= 0:
        gitstore.delete_pool(int(repo.pool_id))
        session.forget(keys.pool(int(repo.pool_id)))


def list_visible(caller: Caller, repos: list[Repo]) -> list[RepoView]:
    """Views of the repositories the caller may read, owners fetched in one batch."""
    owner_ids = {int(r.owner_id) for r in repos}
    session.prefetch(keys.account(i) for i in owner_ids)
    owners = {i: account_store.get_by_id(i) for i in owner_ids}
    views = [RepoView(r, owners[int(r.owner_id)],
                      repo_access(caller.user, r, owners[int(r.owner_id)],
                                  public_only=caller.public_only))
             for r in repos if owners.get(int(r.owner_id)) is not None]
    return [v for v in views if v.can_read]


def owned_by(caller: Caller, owner: Account) -> list[RepoView]:
    if not accounts.can_see(caller.user, owner):
        raise NotFoundError(f"user redirect does not exist [name: {owner.login}]")
    return list_visible(caller, store.owned_by(owner.id))


def accessible_to(caller: Caller) -> list[RepoView]:
    """userCurrentListRepos: what the caller owns, collaborates on, or reaches through
    an organization's teams."""
    from chalicelib.services import orgs, repo_access

    user = caller.user
    found = {int(r.id): r for r in store.owned_by(user.id)}
    for view in repo_access.collaborating_on(caller, user):
        found.setdefault(int(view.repo.id), view.repo)
    for org in orgs.orgs_of(user, user):
        for repo in store.owned_by(int(org.id)):
            found.setdefault(int(repo.id), repo)
    return list_visible(caller, list(found.values()))


_ORDERINGS = {
    "name": (lambda v: v.repo.lower_name, False), "alpha": (lambda v: v.repo.lower_name, False),
    "alphabetically": (lambda v: v.repo.lower_name, False),
    "reversealphabetically": (lambda v: v.repo.lower_name, True),
    "id": (lambda v: v.repo.id, False), "oldest": (lambda v: v.repo.created, False),
    "newest": (lambda v: v.repo.created, True), "created": (lambda v: v.repo.created, False),
    "recentupdate": (lambda v: v.repo.updated, True), "updated": (lambda v: v.repo.updated, False),
    "leastupdate": (lambda v: v.repo.updated, False), "size": (lambda v: v.repo.size, False),
}


def order(views: list[RepoView], sort: str | None, direction: str | None = None) -> list[RepoView]:
    key, reverse = _ORDERINGS.get((sort or "name").lower(), _ORDERINGS["name"])
    if direction in ("asc", "desc"):
        reverse = direction == "desc"
    return sorted(views, key=key, reverse=reverse)


@dataclass
class SearchQuery:
    keyword: str = ""
    include_description: bool = False
    uid: int = 0
    exclusive: bool = False
    mode: str = ""
    include_private: bool = True
    is_private: bool | None = None
    template: bool | None = None
    archived: bool | None = None
    sort: str = "alpha"
    order: str = "asc"


def search(caller: Caller, query: SearchQuery) -> list[RepoView]:
    """repoSearch: every repository the caller may see that matches."""
    if query.mode and query.mode not in SEARCH_MODES:
        raise InvalidInput(f'Invalid search mode: "{query.mode}"')
    if query.uid:
        from chalicelib.services import repo_access

        owner = account_store.get_by_id(query.uid)
        if owner is None:
            raise InvalidInput(f"user does not exist [uid: {query.uid}]")
        owned = store.owned_by(query.uid)
        shared = [] if query.exclusive else \
            [v.repo for v in repo_access.collaborating_on(caller, owner)]
        candidates = shared if query.mode == "collaborative" else owned + shared
    else:
        candidates = list(store.every())
    keyword = query.keyword.lower()

    def matches(r: Repo) -> bool:
        if keyword and keyword not in r.lower_name and not (
                query.include_description and keyword in r.description.lower()):
            return False
        if query.mode == "fork" and not r.fork or query.mode == "source" and r.fork:
            return False
        if query.mode == "mirror" and not r.mirror:
            return False
        if query.is_private is not None and bool(r.private) != query.is_private:
            return False
        if not query.include_private and r.private:
            return False
        if query.template is not None and bool(r.template) != query.template:
            return False
        return query.archived is None or bool(r.archived) == query.archived

    views = list_visible(caller, [r for r in candidates if matches(r)])
    return order(views, query.sort, query.order)


def forks(caller: Caller, view: RepoView) -> list[RepoView]:
    return list_visible(caller, store.forks_of(view.repo))


def edit_repo(caller: Caller, view: RepoView, data: dict) -> RepoView:
    """repoEdit: settings a repository admin may change."""
    if not view.is_admin:
        raise PermissionDenied("user should be an owner or a collaborator with admin write "
                               "of a repository")
    opt = accounts.optional
    repo = view.repo
    name = opt(data, "name", str)
    if name is not None and name != repo.name:
        raise InvalidInput("[Name]: renaming repositories is not supported yet")
    for field in ("description", "website"):
        value = opt(data, field, str)
        if value is not None:
            setattr(repo, field, value)
    for field in ("private", "template"):
        value = opt(data, field, bool)
        if value is not None:
            setattr(repo, field, value)
    archived = opt(data, "archived", bool)
    if archived is not None and archived != repo.archived:
        repo.archived, repo.archived_at = archived, now() if archived else 0
    branch = opt(data, "default_branch", str)
    if branch and branch != repo.default_branch:
        _set_default_branch(repo, branch)
    interval = opt(data, "mirror_interval", str)
    if interval is not None and repo.mirror:
        from chalicelib.services.migrations import parse_interval
        repo.mirror_interval = parse_interval(interval)
    repo.updated = now()
    store.save(repo)
    return view


def _set_default_branch(repo: Repo, branch: str) -> None:
    from chalicelib.gitstore import refdb
    from chalicelib.services.repo_init import validate_branch_name

    validate_branch_name(branch)
    target = f"refs/heads/{branch}"
    if not repo.empty and target not in refdb.load_refs(int(repo.id)):
        raise NotFoundError(f"branch does not exist [name: {branch}]")
    refdb.put_symref(int(repo.id), "HEAD", target)
    repo.default_branch = branch
