"""Administering quota: rules, groups, which rules a group holds and which accounts are
in it (Forgejo's ``/admin/quota/…`` and ``/admin/users/{username}/quota…``, with its
status codes and messages: ``shared/spec/signing-quota-migrate-merge-archive.md`` §2.6).

Every change reads the whole configuration consistently (one Query), stages what it
changes and the next configuration version, conditional on the version read
(``store.quota``): concurrent changes never interleave; the one that lost reads again
and is applied again, so a client sees each change either refused or done whole.
Organizations are accounts, so they can be put in groups as users are (Forgejo too).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, TypeVar

from chalicelib import accounts
from chalicelib.errors import ConditionFailed, ConflictError, InvalidInput, NotFoundError
from chalicelib.http.options import UNSET, UnsetType
from chalicelib.quota import rules as quota_rules
from chalicelib.quota import service as quota
from chalicelib.quota import store
from chalicelib.quota.options import (CreateQuotaGroupOptions, CreateQuotaRuleOptions,
                                      EditQuotaRuleOptions, SetUserQuotaGroupsOptions)
from chalicelib.quota.rules import Group, Rule
from chalicelib.quota.store import Config, RuleData
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account

T = TypeVar("T")
ATTEMPTS = 8
MAX_NAME = 255     # names become keys; Forgejo keeps them in VARCHAR(255)


def _change(apply: Callable[[Config], T]) -> T:
    """Run ``apply(config)`` (which stages a change) with the next version, again on a
    concurrent change."""
    for _ in range(ATTEMPTS):
        config = store.read_config(consistent=True)
        try:
            with unit_of_work.writing():
                result = apply(config)
                store.stage_version(config)
            return result
        except ConditionFailed as failed:
            if failed.label != store.CONFIG:
                raise
    raise ConflictError("the quota configuration keeps changing; try again")


def _name(value: str | None | UnsetType, field: str = "Name") -> str:
    if not value:
        raise InvalidInput(f"[{field}]: Required")
    if len(value) > MAX_NAME:
        raise InvalidInput(f"[{field}]: MaxSize")
    return value


def _subjects(values: list[str] | None | UnsetType) -> tuple[str, ...]:
    return tuple(quota_rules.check_subject(s) for s in values or ())


def _limit(option: CreateQuotaRuleOptions | EditQuotaRuleOptions, *,
           required: bool) -> int | None:
    """The limit sent (0 is one), None when it was left out or null."""
    value = None if option.limit is UNSET else option.limit
    if value is None and required:
        raise InvalidInput("[Limit]: Required")
    return value


def _known_rule(config: Config, name: str) -> RuleData:
    if name not in config.rules:
        raise NotFoundError(f"rule does not exist [name: {name}]")
    return config.rules[name]


def _known_group(config: Config, name: str) -> tuple[str, ...]:
    if name not in config.groups:
        raise NotFoundError(f"group does not exist [name: {name}]")
    return config.groups[name]


# Rules ----------------------------------------------------------------------------------

def list_rules() -> list[Rule]:
    rules = store.read_config().rules
    return [quota.rule_of(rules[name]) for name in sorted(rules)]


def get_rule(name: str) -> Rule:
    return quota.rule_of(_known_rule(store.read_config(), name))


def create_rule(option: CreateQuotaRuleOptions) -> Rule:
    """adminCreateQuotaRule: 422 without a limit or for an unknown subject, 409 for a
    name that is taken."""
    name = _name(option.name)
    limit = _limit(option, required=True)
    rule = RuleData(name, int(limit), _subjects(option.subjects))

    def apply(config: Config) -> Rule:
        if name in config.rules:
            raise ConflictError(f"rule already exists: [name: {name}]")
        store.stage_put_rule(rule)
        return quota.rule_of(rule)
    return _change(apply)


def edit_rule(name: str, option: EditQuotaRuleOptions) -> Rule:
    """adminEditQuotaRule: only the fields given change ([] clears the subjects)."""
    limit = _limit(option, required=False)
    given_subjects = option.subjects is not None and option.subjects is not UNSET
    subjects = _subjects(option.subjects) if given_subjects else None

    def apply(config: Config) -> Rule:
        old = _known_rule(config, name)
        new = RuleData(name, old.limit if limit is None else int(limit),
                       old.subjects if subjects is None else subjects)
        store.stage_put_rule(new)
        return quota.rule_of(new)
    return _change(apply)


def delete_rule(name: str) -> None:
    """adminDeleteQuotaRule: the rule leaves every group that held it."""
    def apply(config: Config) -> None:
        _known_rule(config, name)
        for group, rules in config.groups.items():
            if name in rules:
                store.stage_put_group(group, tuple(r for r in rules if r != name))
        store.stage_delete_rule(name)
    _change(apply)


# Groups -----------------------------------------------------------------------------------

def list_groups() -> list[Group]:
    known = quota.known_groups(store.read_config())
    return [known[name] for name in sorted(known)]


def get_group(name: str) -> Group:
    config = store.read_config()
    _known_group(config, name)
    return quota.known_groups(config)[name]


def create_group(option: CreateQuotaGroupOptions) -> Group:
    """adminCreateQuotaGroup: listed rules that do not exist are created (a missing
    limit is 0), existing ones are linked as they are."""
    name = _name(option.name)
    listed = option.rules or []     # any empty value means no rules
    if not isinstance(listed, list):
        raise InvalidInput("[Rules]: expected a list of rules")
    wanted = [RuleData(_name(r.name, "Rules.Name"), int(_limit(r, required=False) or 0),
                       _subjects(r.subjects)) for r in listed]

    def apply(config: Config) -> Group:
        if name in config.groups:
            raise ConflictError(f"group already exists: [name: {name}]")
        # A name listed twice is the first listing's rule: the one staged and answered.
        first: dict[str, RuleData] = {}
        for rule in wanted:
            first.setdefault(rule.name, rule)
        linked = list(first)
        for rule_name, rule in first.items():
            if rule_name not in config.rules:
                store.stage_put_rule(rule)
        store.stage_put_group(name, tuple(linked))
        rules = {**first, **config.rules}
        return Group(name, tuple(quota.rule_of(rules[r]) for r in linked))
    return _change(apply)


def delete_group(name: str) -> None:
    """adminDeleteQuotaGroup: its memberships and rule links go with it."""
    def apply(config: Config) -> None:
        _known_group(config, name)
        for user_id in store.members_of(name):
            _stage_membership(config, user_id, _groups_of(user_id), remove=(name,))
        store.stage_delete_group(name)
    _change(apply)


def add_rule(group: str, rule: str) -> None:
    def apply(config: Config) -> None:
        rules = _known_group(config, group)
        _known_rule(config, rule)
        if rule in rules:
            raise ConflictError(f"rule already in group: [group: {group}, rule: {rule}]")
        store.stage_put_group(group, rules + (rule,))
    _change(apply)


def remove_rule(group: str, rule: str) -> None:
    def apply(config: Config) -> None:
        rules = _known_group(config, group)
        if rule not in rules:
            raise NotFoundError(f"rule not in group: [group: {group}, rule: {rule}]")
        store.stage_put_group(group, tuple(r for r in rules if r != rule))
    _change(apply)


# Memberships ------------------------------------------------------------------------------

def _groups_of(user_id: int) -> tuple[str, ...]:
    return store.get_usage(user_id, consistent=True).groups


def _stage_membership(config: Config, user_id: int, listed: tuple[str, ...], *,
                      add: tuple[str, ...] = (), remove: tuple[str, ...] = ()) -> None:
    """Put the account (in groups ``listed``, as its usage item says) in ``add`` and
    take it out of ``remove``: the membership items and the names on its usage item."""
    current = tuple(g for g in listed if g in config.groups)
    kept = tuple(g for g in current if g not in remove)
    result = kept + tuple(g for g in dict.fromkeys(add) if g not in kept)
    for group in set(current) - set(result):
        store.stage_member(group, user_id, present=False)
    for group in set(result) - set(current):
        store.stage_member(group, user_id, present=True)
    for group in set(remove) - set(current):      # a dangling item, if any
        store.stage_member(group, user_id, present=False)
    store.stage_groups(user_id, list(result))


def group_members(name: str) -> list[Account]:
    _known_group(store.read_config(), name)
    return accounts.accounts_by_ids(store.members_of(name))


def add_member(group: str, account: Account) -> None:
    def apply(config: Config) -> None:
        _known_group(config, group)
        listed = _groups_of(int(account.id))
        if group in listed:
            raise ConflictError(f"user already in group: [group: {group}, userID: {account.id}]")
        _stage_membership(config, int(account.id), listed, add=(group,))
    _change(apply)


def remove_member(group: str, account: Account) -> None:
    def apply(config: Config) -> None:
        _known_group(config, group)
        listed = _groups_of(int(account.id))
        if group not in listed:
            raise NotFoundError(f"user not in group: [group: {group}, userID: {account.id}]")
        _stage_membership(config, int(account.id), listed, remove=(group,))
    _change(apply)


def set_groups(account: Account, option: SetUserQuotaGroupsOptions) -> None:
    """adminSetUserQuotaGroups: the account's groups become exactly the listed ones
    (``[]`` clears them; a missing or null list changes nothing, as in Forgejo)."""
    listed = option.groups
    if listed is None or listed is UNSET:
        return

    def apply(config: Config) -> None:
        for group in listed:
            if group not in config.groups:
                raise InvalidInput(f"group not found: [group: {group}]")
        current = _groups_of(int(account.id))
        _stage_membership(config, int(account.id), current, add=tuple(listed),
                          remove=tuple(g for g in current if g not in listed))
    _change(apply)
