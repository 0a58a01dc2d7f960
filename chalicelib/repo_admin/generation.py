"""A new repository from a template (``generateRepo``), by Forgejo's rules.

- The template is a repository marked ``template`` (repoEdit) that the caller can read;
  else 422 "this is not a template repo".  At least one item must be asked for (git
  content, topics, git hooks, webhooks, avatar, labels, protected branches): 422.
- The new owner: the caller, an organization they may create repositories in, or
  anyone for a site admin (403 otherwise, 404 for an owner that does not exist); its
  quota is checked; a name it has already is 409.
- ``git_content``: the default branch's tree as ONE new commit on the new repository's
  default branch (not the history), by the caller, "Initial commit"; the files the
  template's ``.forgejo/template`` (or ``.gitea/template``) patterns match have their
  text and their path expanded (``template_vars``), and that file is left out.
  Symbolic links are copied; submodule entries are not (Forgejo's copy of a work tree
  leaves them out too).
- ``topics``, ``labels``: copied.  ``protected_branch``: the branch rules copied; the
  users and teams a rule names only when the new owner is the template's (elsewhere
  they would name people with no access there).
- ``git_hooks``: Nimbus runs no git hooks (``disabled_routes``): nothing to copy, as in
  a Forgejo with hooks disabled.
- ``webhooks``: every hook of the template copied with its settings and secret
  (``webhooks.stage_hook_copies``), for a caller who administers the template (403
  otherwise: the hooks carry its credentials; Forgejo lets any reader copy them).
- ``avatar``: the template's uploaded picture stored again under the new repository's
  key (the same bytes, the same digest) and named on its item; a template with the
  identicon leaves the new repository its own identicon.

Everything is read and checked before anything is written (the template's files and
their expansion, its hooks and their access included); then the repository is created
with its git content, the topics, labels and rules are added through their domains, and
last the hook copies and the avatar's digest land in one commit (the picture's object
copied just before it).  Should any of that fail, the repository is deleted again (its
partition, which holds the hooks, goes with it) and a copied picture removed, so a
failure leaves nothing half-made.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from chalicelib import accounts, avatars, issues, protection, quota, repos, webhooks
from chalicelib.contents import identity, validate_branch_name
from chalicelib.errors import InvalidInput, NotFoundError, PermissionDenied
from chalicelib.repo_admin import lifecycle as repo_lifecycle
from chalicelib.repo_admin import template_vars
from chalicelib.repos import Access, Caller, RepoView, can_create_in, is_org
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.repo_admin.lifecycle_options import GenerateRepoOption
    from chalicelib.repos import Repo

ITEMS = ("git_content", "topics", "git_hooks", "webhooks", "avatar", "labels",
         "protected_branch")
MAX_CONTENT_BYTES = 64 * 1024 * 1024    # what one generation reads and writes, at most
_SYMLINK, _GITLINK = 0o120000, 0o160000
_RULE_PEOPLE = ("push_whitelist_usernames", "push_whitelist_teams", "merge_whitelist_usernames",
                "merge_whitelist_teams", "approvals_whitelist_username",
                "approvals_whitelist_teams")


@dataclass
class Plan:
    """What the new repository gets, read and checked before it is created."""
    files: list = field(default_factory=list)           # gitops FileEdits
    topics: list[str] = field(default_factory=list)
    labels: list[dict] = field(default_factory=list)
    rules: list = field(default_factory=list)           # CreateBranchProtectionOptions
    hooks: list = field(default_factory=list)           # the template's webhooks
    avatar: str = ""                                    # the template's upload's digest
    template_id: int = 0


def _asked(option: GenerateRepoOption, name: str) -> bool:
    return getattr(option, name) is True


def generate(caller: Caller, template: RepoView, option: GenerateRepoOption) -> RepoView:
    doer = caller.user
    if doer is None:
        raise PermissionDenied("sign in to generate a repository")
    if not template.repo.template:
        raise InvalidInput("this is not a template repo")
    if not any(_asked(option, name) for name in ITEMS):
        raise InvalidInput("must select at least one template item")
    owner = _owner(doer, (option.owner or "").strip())
    quota.ensure_within_quota(int(owner.id), "size:repos:all")
    name = repo_lifecycle.validate_name((option.name or "").strip())
    description = option.description if isinstance(option.description, str) else ""
    if len(description) > 2048:
        raise InvalidInput("[Description]: MaxSize")
    branch = (option.default_branch if isinstance(option.default_branch, str) else "").strip()
    branch = branch or template.repo.default_branch
    validate_branch_name(branch)
    repo = repo_lifecycle.new_record(owner, name, description=description,
                                     private=_asked(option, "private"), default_branch=branch)
    plan = _plan(caller, template, RepoView(repo, owner, Access.OWNER), option)
    repo_lifecycle.create(repo, actor=doer)
    view = RepoView(repo, owner, Access.OWNER)
    try:
        _write(caller, view, plan)
    except BaseException:
        repo_lifecycle.remove(repo, actor=doer)     # nothing half-made stays behind
        if plan.avatar:     # a repository's deletion leaves its pictures: remove the copy
            avatars.discard_repo_avatar(int(repo.id), plan.avatar)
        raise
    return view


def _owner(doer: Account, name: str) -> Account:
    if not name or name.lower() == doer.lower_name:
        return doer
    owner = accounts.account_by_name(name)
    if owner is None:
        raise NotFoundError(f"request owner `{name}` does not exist")
    if not doer.is_admin and not is_org(owner):
        raise PermissionDenied("Only admin can generate repository for other user.")
    if not can_create_in(doer, owner):
        raise PermissionDenied("Given user is not allowed to create repository in organization.")
    return owner


def _plan(caller: Caller, template: RepoView, new: RepoView,
          option: GenerateRepoOption) -> Plan:
    source = template.repo
    plan = Plan(template_id=int(source.id))
    if _asked(option, "webhooks"):
        plan.hooks = webhooks.hooks_to_copy(template)
    if _asked(option, "avatar"):
        plan.avatar = source.avatar or ""
    if _asked(option, "git_content") and not source.empty:
        plan.files = template_files(template, new)
    if _asked(option, "topics"):
        plan.topics = sorted(source.topics or ())
    if _asked(option, "labels"):
        ctx = issues.issue_context(caller, template)
        plan.labels = [label for _, label in issues.list_labels(ctx)]
    if _asked(option, "protected_branch"):
        plan.rules = _rules(template, same_owner=int(new.owner.id) == int(source.owner_id))
    return plan


def _side(view: RepoView) -> template_vars.Side:
    record = repos.repository_record(view, None)
    return template_vars.Side(owner=view.owner.login, name=view.repo.name,
                              description=view.repo.description,
                              link=urlsplit(record["html_url"]).path,
                              https_url=record["clone_url"], ssh_url=record["ssh_url"])


def template_files(template: RepoView, new: RepoView) -> list:
    """The template's default branch as file writes for the new repository, expanded
    where its template file says."""
    from chalicelib.gitops import trees
    from chalicelib.gitstore import repo as gitrepo

    source = template.repo
    git = gitrepo.open_repo(int(source.id), int(source.pool_id))
    ref = f"refs/heads/{source.default_branch}".encode()
    try:
        tree = git[git.refs[ref]].tree
    except KeyError:
        return []           # the default branch does not exist: nothing to copy
    entries = [entry for entry in git.object_store.iter_tree_contents(tree)
               if entry.mode != _GITLINK]
    paths = {entry.path.decode("utf-8", "surrogateescape"): entry for entry in entries}
    marker = next((path for path in template_vars.TEMPLATE_FILES if path in paths), None)
    globs = template_vars.parse_globs(
        git.object_store[paths[marker].sha].data.decode("utf-8", "replace")) if marker else []
    values = template_vars.variables(_side(new), _side(template))
    files, total = [], 0
    for path, entry in sorted(paths.items()):
        if path == marker:
            continue
        data = git.object_store[entry.sha].data
        total += len(data)
        if total > MAX_CONTENT_BYTES:
            raise InvalidInput("the template's files are too large to generate from")
        if globs and entry.mode != _SYMLINK and template_vars.matches(globs, path):
            data = template_vars.expand(data.decode("utf-8", "surrogateescape"),
                                        values).encode("utf-8", "surrogateescape")
            path = template_vars.expand_path(path, values)
        files.append(trees.write(path, data, entry.mode))
    return files


def _rules(template: RepoView, *, same_owner: bool) -> list:
    rules = protection.protection_of(int(template.repo.id)).ordered_branch_rules()
    if not rules:
        return []
    names = protection.names_for(template, rules)
    fields = set(protection.CreateBranchProtectionOption.__struct_fields__)
    options = []
    for rule in rules:
        record = protection.branch_protection_record(rule, names)
        values = {key: value for key, value in record.items() if key in fields}
        if not same_owner:
            values.update({key: [] for key in _RULE_PEOPLE if key in values})
        options.append(protection.CreateBranchProtectionOption(**values))
    return options


def _write(caller: Caller, view: RepoView, plan: Plan) -> None:
    from chalicelib import contents, signing
    from chalicelib.gitops import commits, objects
    from chalicelib.gitstore import repo as gitrepo

    repo: Repo = view.repo
    author = caller.user
    git = gitrepo.init_repo(int(repo.id), int(repo.pool_id), repo.default_branch)
    if plan.files:
        with objects.staged(git.object_store) as staged:
            commit = commits.commit_edits(
                staged, parent=None, edits=plan.files, author=identity(author),
                message="Initial commit", sign=signing.commit_signer("INITIAL_COMMIT", author))
        contents.apply_ref_updates(repo, git, [(f"refs/heads/{repo.default_branch}", None,
                                                commit.id.decode())],
                                   actor=author, guard=contents.Guard.SYSTEM)
    if plan.topics:
        repos.replace_repo_topics(repos.view_of(repos.repo_by_id(int(repo.id)), caller,
                                                view.owner), plan.topics)
    if plan.labels:
        ctx = issues.issue_context(caller, view)
        for label in plan.labels:
            issues.create_label(ctx, issues.CreateLabelOption(
                name=label.get("name"), color=label.get("color"),
                description=label.get("description") or "",
                exclusive=bool(label.get("exclusive")), is_archived=bool(label.get("is_archived"))))
    for rule in plan.rules:
        protection.create_branch_rule(repos.view_of(repos.repo_by_id(int(repo.id)), caller,
                                                    view.owner), caller, rule)
    if plan.hooks or plan.avatar:
        _copy_hooks_and_avatar(author, repo, plan)


def _copy_hooks_and_avatar(author: Account, repo: Repo, plan: Plan) -> None:
    """The hook copies and the avatar's digest in one commit, the picture's object
    copied first so that the item never names a missing one."""
    if plan.avatar:
        avatars.copy_repo_avatar(plan.template_id, plan.avatar, int(repo.id))
    with unit_of_work.writing():
        webhooks.stage_hook_copies(author, plan.hooks, int(repo.id))
        if plan.avatar:
            repos.stage_repo_fields(repo, {"avatar": plan.avatar})
    if plan.avatar:
        repo.avatar = plan.avatar
