"""Branch and tag protection: list, get, create, edit, delete (Forgejo's
``routers/api/v1/repo/branch.go`` and ``tag.go``, ``models/git/protected_*.go``).

Who: repository admins only (Forgejo's ``reqAdmin``: 403 for others who can see the
repository, 404 for those who cannot); writes refuse an archived repository (423).

Allowlists are given by name and kept by id.  An unknown user answers 422 "user does
not exist", an unknown team of the owning organization 422 "team does not exist";
then, as Forgejo's ``UpdateProtectBranch``, users without write access (read access
for the approvals list) and teams without access to the repository are dropped
silently.  Team lists are ignored for a repository owned by a user.

Errors (Forgejo's): a create of an existing rule name or tag pattern is 403 "Branch
protection already exist" / "Tag protection already exist"; a create without a name is
400 "both rule_name and branch_name are empty"; a tag rule without a pattern 400
"name_pattern are empty", without any allowlist 400 "both whitelist_usernames and
whitelist_teams are empty".  Not Forgejo's: a tag pattern that does not compile is a
422 (Forgejo stores it and fails every later push of a tag).

Every write is one conditional put of the repository's rules item on the version
read; a lost race re-reads and re-applies the change (so two admins editing different
rules both land, and two creates of one name give one 201 and one 403).
"""
from __future__ import annotations

import dataclasses
import random
import time

from chalicelib import accounts, clock, events, orgs, repos
from chalicelib.errors import (ArchivedRepository, BadInput, ConditionFailed, ConflictError,
                               InvalidInput, NotFoundError, PermissionDenied)
from chalicelib.http.options import given
from chalicelib.protection import store
from chalicelib.protection.gate import has_rules, pusher_of
from chalicelib.protection.options import (CreateBranchProtectionOption, CreateTagProtectionOption,
                                           EditBranchProtectionOption, EditTagProtectionOption)
from chalicelib.protection.rules import BranchRule, Protection, Pusher, TagRule, valid_tag_pattern
from chalicelib.repos import Access, Caller, RepoView
from chalicelib.store import unit_of_work

NOT_ADMIN = "user should be an owner or a collaborator with admin write of a repository"
MAX_RULES = 100           # per kind and repository: the item stays far below 400 KB
MAX_NAME = 255            # Forgejo's column width for rule names and tag patterns
RETRIES = 16

# The boolean fields of a branch rule that an option sets as given.
_FLAGS = ("enable_merge_whitelist", "enable_status_check", "enable_approvals_whitelist",
          "block_on_rejected_reviews", "block_on_official_review_requests",
          "dismiss_stale_approvals", "ignore_stale_approvals", "require_signed_commits",
          "block_on_outdated_branch", "apply_to_admins")
# option field -> (rule field, minimum access a listed user must have)
_USER_LISTS = {"push_whitelist_usernames": ("push_whitelist_user_ids", Access.WRITE),
               "merge_whitelist_usernames": ("merge_whitelist_user_ids", Access.WRITE),
               "approvals_whitelist_username": ("approvals_whitelist_user_ids", Access.READ)}
_TEAM_LISTS = {"push_whitelist_teams": "push_whitelist_team_ids",
               "merge_whitelist_teams": "merge_whitelist_team_ids",
               "approvals_whitelist_teams": "approvals_whitelist_team_ids"}



def _admin(view: RepoView, caller: Caller, *, writing: bool = False) -> None:
    if caller.user is None or not view.is_admin:
        raise PermissionDenied(NOT_ADMIN)
    if writing and view.repo.archived:
        raise ArchivedRepository("repository is archived")


# Names and ids ------------------------------------------------------------------------------

def user_ids(view: RepoView, names, minimum: Access) -> list[int]:
    """Ids of the users named (422 for an unknown one) that have at least ``minimum``
    access to the repository, in the order given, once each."""
    found: list[int] = []
    for name in dict.fromkeys(n.strip().lower() for n in names or () if n.strip()):
        account = accounts.account_by_name(name)
        if account is None or account.account_type == "org":
            raise InvalidInput(f"user does not exist [uid: 0, name: {name}]")
        mode = repos.repo_access(account, view.repo, view.owner)
        if mode >= minimum and int(account.id) not in found:
            found.append(int(account.id))
    return found


def team_ids(view: RepoView, names) -> list[int]:
    """Ids of the owning organization's teams named (422 for an unknown one) that can
    read the repository; nothing for a repository owned by a user."""
    if not repos.is_org(view.owner) or not names:
        return []
    teams = {t.lower_name: t for t in orgs.list_teams(int(view.owner.id))}
    covering = set(view.repo.team_ids or ())
    found: list[int] = []
    for name in dict.fromkeys(n.strip().lower() for n in names if n.strip()):
        team = teams.get(name)
        if team is None:
            raise InvalidInput(f"team does not exist [org_id {int(view.owner.id)}, "
                               f"team_id 0, name: {name}]")
        if (team.includes_all_repositories or int(team.id) in covering) \
                and int(team.id) not in found:
            found.append(int(team.id))
    return found


@dataclasses.dataclass(frozen=True)
class Names:
    """The names of the users and teams some rules list, by id (for records)."""
    users: dict[int, str]
    teams: dict[int, str]


def names_for(view: RepoView, branch_rules=(), tag_rules=()) -> Names:
    """Every user and team the rules list, read in one batch each.  An account or team
    deleted since is left out, as Forgejo's lookups by id leave it out."""
    user_set: set[int] = set()
    team_set: set[int] = set()
    for rule in branch_rules:
        for field in ("push_whitelist", "merge_whitelist", "approvals_whitelist"):
            user_set.update(getattr(rule, f"{field}_user_ids"))
            team_set.update(getattr(rule, f"{field}_team_ids"))
    for rule in tag_rules:
        user_set.update(rule.whitelist_user_ids)
        team_set.update(rule.whitelist_team_ids)
    unit_of_work.prefetch(accounts.account_key(i) for i in user_set)
    users = {i: a.login for i in user_set if (a := accounts.account_by_id(i)) is not None}
    teams = {}
    if team_set and repos.is_org(view.owner):
        teams = {int(t.id): t.name for t in orgs.teams_in_org(int(view.owner.id),
                                                                       sorted(team_set))}
    return Names(users, teams)


# Reads --------------------------------------------------------------------------------------

def protection_of(view: RepoView) -> Protection:
    return store.get(int(view.repo.id))


def list_branch_rules(view: RepoView, caller: Caller) -> list[BranchRule]:
    _admin(view, caller)
    return protection_of(view).ordered_branch_rules()


def get_branch_rule(view: RepoView, caller: Caller, name: str) -> BranchRule:
    _admin(view, caller)
    rule = protection_of(view).branch_rule(name)
    if rule is None:
        raise NotFoundError("branch protection does not exist")
    return rule


def list_tag_rules(view: RepoView, caller: Caller) -> list[TagRule]:
    _admin(view, caller)
    return sorted(protection_of(view).tag_rules, key=lambda r: r.id)


def get_tag_rule(view: RepoView, caller: Caller, rule_id: int) -> TagRule:
    _admin(view, caller)
    rule = protection_of(view).tag_rule(rule_id)
    if rule is None:
        raise NotFoundError("tag protection does not exist")
    return rule


# Writes -------------------------------------------------------------------------------------

def _write(view: RepoView, caller: Caller, change):
    """Apply ``change(read) -> (new Protection, result)`` and write it on
    the version read, with a ``ProtectionChanged`` per rule it created, edited or
    deleted; a lost race re-reads and applies the change again."""
    for attempt in range(RETRIES):
        read = store.get(int(view.repo.id), consistent=attempt > 0)
        new, result = change(read)
        try:
            with unit_of_work.writing() as uow:
                store.stage_put(view.repo, read, new)
                for event in _rule_events(view, caller, read, new):
                    uow.raise_event(event)
        except ConditionFailed as failed:
            if failed.label == store.REPO:
                raise NotFoundError("repository does not exist") from None
            if failed.label != store.RULES:
                raise
            time.sleep(random.uniform(0, min(0.2, 0.005 * 2 ** attempt)))
            continue
        return result
    raise ConflictError("the protection rules are being changed at once; try again")


def _rule_events(view: RepoView, caller: Caller, read: Protection,
                 new: Protection) -> list[events.Event]:
    """One ProtectionChanged per rule the write created, edited or deleted."""
    actor = caller.user
    common = dict(actor_id=int(actor.id) if actor else None,
                  actor=events.snapshot(accounts.account_values(actor)),
                  repo_id=int(view.repo.id), repo=events.snapshot(repos.repo_values(view.repo)))
    found: list[events.Event] = []
    for kind, before, after, key in (
            ("branch", read.branch_rules, new.branch_rules, lambda r: r.rule_name),
            ("tag", read.tag_rules, new.tag_rules, lambda r: r.id)):
        old = {key(r): dataclasses.asdict(r) for r in before}
        now = {key(r): dataclasses.asdict(r) for r in after}
        for name in sorted(set(old) | set(now), key=str):
            if old.get(name) == now.get(name):
                continue
            action = "created" if name not in old else "deleted" if name not in now else "edited"
            rule = now.get(name) or old[name]
            found.append(events.ProtectionChanged(
                **common, kind=kind, action=action,
                rule_name=str(rule.get("rule_name") or rule.get("name_pattern")),
                rule=events.snapshot(rule),
                changes=events.changes_between(old[name], now[name]) if action == "edited"
                else ()))
    return found


def _apply_branch(view: RepoView, rule: BranchRule, option, *, create: bool) -> BranchRule:
    """The rule with the option applied (Forgejo's create and edit handlers): on a
    create every field is set (missing: zero), on an edit only the given, non-null ones."""
    def has(name: str) -> bool:
        return create or (given(option, name) and getattr(option, name) is not None)

    def value(name: str, zero):
        v = getattr(option, name)
        return zero if not given(option, name) or v is None else v

    rule = dataclasses.replace(rule)
    if create:
        push = bool(value("enable_push", False))
        listed = push and bool(value("enable_push_whitelist", False))
        rule.enable_push, rule.enable_push_whitelist = push, listed
        rule.push_whitelist_deploy_keys = listed and bool(value("push_whitelist_deploy_keys",
                                                                False))
    elif has("enable_push"):
        # Forgejo's edit: turning pushes off clears the allowlist switches; the
        # allowlist switch is read only when pushes are on.
        if not option.enable_push:
            rule.enable_push = rule.enable_push_whitelist = False
            rule.push_whitelist_deploy_keys = False
        else:
            rule.enable_push = True
            if has("enable_push_whitelist"):
                if not option.enable_push_whitelist:
                    rule.enable_push_whitelist = rule.push_whitelist_deploy_keys = False
                else:
                    rule.enable_push_whitelist = True
                    if has("push_whitelist_deploy_keys"):
                        rule.push_whitelist_deploy_keys = bool(option.push_whitelist_deploy_keys)
    for name in _FLAGS:
        if has(name):
            setattr(rule, name, bool(value(name, False)))
    if has("status_check_contexts"):
        rule.status_check_contexts = [c for c in value("status_check_contexts", []) if c]
    if has("required_approvals"):
        approvals = int(value("required_approvals", 0))
        if approvals >= 0 or create:
            rule.required_approvals = max(approvals, 0)
    for name in ("protected_file_patterns", "unprotected_file_patterns"):
        if has(name):
            setattr(rule, name, str(value(name, "")))
    for name, (field, minimum) in _USER_LISTS.items():
        if has(name):
            setattr(rule, field, user_ids(view, value(name, []), minimum))
    for name, field in _TEAM_LISTS.items():
        if has(name):
            setattr(rule, field, team_ids(view, value(name, [])))
    return rule


def create_branch_rule(view: RepoView, caller: Caller,
                       option: CreateBranchProtectionOption) -> BranchRule:
    _admin(view, caller, writing=True)
    name = (option.rule_name or "") or (option.branch_name or "")
    if not name:
        raise BadInput("both rule_name and branch_name are empty")
    if len(name) > MAX_NAME:
        raise InvalidInput(f"rule_name is longer than {MAX_NAME} characters")
    # Names to ids once, outside the retry loop (they do not depend on the rules).
    template = _apply_branch(view, BranchRule(name), option, create=True)

    def change(read: Protection):
        if read.branch_rule(name) is not None:
            raise PermissionDenied("Branch protection already exist")
        if len(read.branch_rules) >= MAX_RULES:
            raise InvalidInput(f"a repository has at most {MAX_RULES} branch protections")
        stamp = clock.seconds()
        rule = dataclasses.replace(template, id=max([r.id for r in read.branch_rules],
                                                    default=0) + 1,
                                   created=stamp, updated=stamp)
        return Protection([*read.branch_rules, rule], read.tag_rules, read.version), rule
    return _write(view, caller, change)


def edit_branch_rule(view: RepoView, caller: Caller, name: str,
                     option: EditBranchProtectionOption) -> BranchRule:
    _admin(view, caller, writing=True)
    if protection_of(view).branch_rule(name) is None:
        raise NotFoundError("branch protection does not exist")

    def change(read: Protection):
        current = read.branch_rule(name)
        if current is None:
            raise NotFoundError("branch protection does not exist")
        rule = _apply_branch(view, current, option, create=False)
        rule.updated = clock.seconds()
        rules = [rule if r.rule_name == name else r for r in read.branch_rules]
        return Protection(rules, read.tag_rules, read.version), rule
    return _write(view, caller, change)


def delete_branch_rule(view: RepoView, caller: Caller, name: str) -> None:
    _admin(view, caller, writing=True)

    def change(read: Protection):
        if read.branch_rule(name) is None:
            raise NotFoundError("branch protection does not exist")
        rules = [r for r in read.branch_rules if r.rule_name != name]
        return Protection(rules, read.tag_rules, read.version), None
    _write(view, caller, change)


# Tag rules ----------------------------------------------------------------------------------

def _pattern(text: str) -> str:
    pattern = text.strip()
    if len(pattern) > MAX_NAME:
        raise InvalidInput(f"name_pattern is longer than {MAX_NAME} characters")
    if not valid_tag_pattern(pattern):
        raise InvalidInput(f"name_pattern is not a valid glob or regular expression: {pattern}")
    return pattern


def create_tag_rule(view: RepoView, caller: Caller, option: CreateTagProtectionOption) -> TagRule:
    _admin(view, caller, writing=True)
    pattern = (option.name_pattern or "").strip()
    if not pattern:
        raise BadInput("name_pattern are empty")
    if not option.whitelist_usernames and not option.whitelist_teams:
        raise BadInput("both whitelist_usernames and whitelist_teams are empty")
    pattern = _pattern(pattern)
    users = user_ids(view, option.whitelist_usernames or [], Access.NONE)
    teams = team_ids(view, option.whitelist_teams or [])

    def change(read: Protection):
        if read.tag_rule_by_pattern(pattern) is not None:
            raise PermissionDenied("Tag protection already exist")
        if len(read.tag_rules) >= MAX_RULES:
            raise InvalidInput(f"a repository has at most {MAX_RULES} tag protections")
        stamp = clock.seconds()
        rule = TagRule(read.next_tag_id(), pattern, users, teams, stamp, stamp)
        return Protection(read.branch_rules, [*read.tag_rules, rule], read.version), rule
    return _write(view, caller, change)


def edit_tag_rule(view: RepoView, caller: Caller, rule_id: int,
                  option: EditTagProtectionOption) -> TagRule:
    _admin(view, caller, writing=True)
    if protection_of(view).tag_rule(rule_id) is None:
        raise NotFoundError("tag protection does not exist")
    pattern = _pattern(option.name_pattern) if option.name_pattern is not None and \
        given(option, "name_pattern") else None
    users = user_ids(view, option.whitelist_usernames, Access.NONE) \
        if option.whitelist_usernames is not None and given(option, "whitelist_usernames") \
        else None
    teams = team_ids(view, option.whitelist_teams) \
        if option.whitelist_teams is not None and given(option, "whitelist_teams") else None

    def change(read: Protection):
        current = read.tag_rule(rule_id)
        if current is None:
            raise NotFoundError("tag protection does not exist")
        rule = dataclasses.replace(
            current, name_pattern=pattern if pattern is not None else current.name_pattern,
            whitelist_user_ids=users if users is not None else current.whitelist_user_ids,
            whitelist_team_ids=teams if teams is not None else current.whitelist_team_ids,
            updated=clock.seconds())
        rules = [rule if r.id == rule_id else r for r in read.tag_rules]
        return Protection(read.branch_rules, rules, read.version), rule
    return _write(view, caller, change)


def delete_tag_rule(view: RepoView, caller: Caller, rule_id: int) -> None:
    _admin(view, caller, writing=True)

    def change(read: Protection):
        if read.tag_rule(rule_id) is None:
            raise NotFoundError("tag protection does not exist")
        rules = [r for r in read.tag_rules if r.id != rule_id]
        return Protection(read.branch_rules, rules, read.version), None
    _write(view, caller, change)


# Branch records -----------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class BranchGuard:
    """What branch records need to show a caller their branches' protection: the rules
    and the caller as a pusher (None: anonymous)."""
    protection: Protection
    pusher: Pusher | None


def branch_guard(view: RepoView, caller: Caller | None) -> BranchGuard:
    """The rules (one GetItem, none when preloaded with ``preload_more_keys``) and the
    caller as a pusher (their organization membership is among the access items)."""
    user = caller.user if caller is not None else None
    if not has_rules(view.repo):
        return BranchGuard(Protection(), None)
    return BranchGuard(store.get(int(view.repo.id)),
                       pusher_of(view, user) if user is not None else None)


# Preload ------------------------------------------------------------------------------------

def preload_more_keys(owner_name: str, repo_name: str, user_id: int | None) -> list:
    """The second preload batch of a protection route: the caller's access items and
    the repository's rules item."""
    from chalicelib import repos
    from chalicelib.repos import strip_git

    repo = repos.repo_by_name(owner_name, strip_git(repo_name))
    if repo is None:
        return []
    rules = [store.protection_key(int(repo.id))] if has_rules(repo) else []
    return [*repos.access_keys(repo, user_id), *rules]
