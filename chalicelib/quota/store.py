"""Quota in the table: the rules and groups, group memberships, and each account's usage.

| item | pk | sk | attributes | written with |
|---|---|---|---|---|
| rule | ``QUOTA`` | ``RULE#<name>`` | ``name``, ``limit``, ``subjects`` (list) | put/delete with the config version |
| group | ``QUOTA`` | ``GROUP#<name>`` | ``name``, ``rules`` (rule names, in link order) | same |
| config version | ``QUOTA`` | ``VERSION`` | ``version`` | every change of rules, groups or memberships sets it to the version read + 1, on condition it is unchanged |
| membership | ``QUOTAGROUP#<group>`` | ``USER#<id, 15 digits>`` | ``user_id`` | with the version and the account's ``groups`` |
| usage | ``A#<account id>`` | ``USAGE`` | counters ``repos_public``, ``repos_private``, ``attachments_issues``, ``attachments_releases``; ``groups`` (the account's quota groups); gsi2 ``USAGES`` / id | counters: ``ADD`` in the transaction of the change that uses or frees the space (the item is created by the first one); ``groups``: with the memberships |

Rules and groups are few and read together (one Query of ``QUOTA``), so evaluating an
account's quota costs that Query and one read of its usage item, which also names its
groups; both fit the two batched reads of a request.  Every administrative change
is conditional on the version it read, so two changes never interleave (a rule deleted
while a group links it, a member added to a group being deleted): the loser sees
``ConditionFailed(CONFIG)`` and starts again.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from chalicelib import accounts, repos
from chalicelib.quota.models import QuotaGroupItem, QuotaMember, QuotaRuleItem, QuotaVersion, Usage
from chalicelib.repos import Repo
from chalicelib.store import unit_of_work
from chalicelib.store.keys import keys
from chalicelib.store.table import Claim, Item

CONFIG = "quota config"      # ConditionFailed label: rules or groups changed since read
USAGE = "usage"
REPO = "repository"          # the repository changed (size or visibility) since read
CONFIG_PK = "QUOTA"
USAGES_GSI = "USAGES"
# What the usage item counts (Forgejo's QuotaUsed fields that are ours to count).
# git_lfs: the Git LFS objects the owner's repositories need, each counted once per
# owner (lfs/needs.py moves it with the owner's need items).
COUNTERS = ("repos_public", "repos_private", "attachments_issues", "attachments_releases",
            "git_lfs")


class qkeys:  # noqa: N801 - key builders of this module
    @staticmethod
    def rule(name: str) -> tuple[str, str]:
        return CONFIG_PK, f"RULE#{name}"

    @staticmethod
    def group(name: str) -> tuple[str, str]:
        return CONFIG_PK, f"GROUP#{name}"

    @staticmethod
    def version() -> tuple[str, str]:
        return CONFIG_PK, "VERSION"

    @staticmethod
    def members(group: str) -> str:
        return f"QUOTAGROUP#{group}"

    @staticmethod
    def member(group: str, user_id: int) -> tuple[str, str]:
        return f"QUOTAGROUP#{group}", f"USER#{int(user_id):015d}"

    @staticmethod
    def usage(owner_id: int) -> tuple[str, str]:
        return keys.account_partition(int(owner_id)), "USAGE"


# Plain data ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class RuleData:
    name: str
    limit: int
    subjects: tuple[str, ...]


@dataclass(frozen=True)
class Config:
    """Every rule and group, and the version they were read at."""
    version: int
    rules: dict[str, RuleData]
    groups: dict[str, tuple[str, ...]]      # group name -> its rule names


@dataclass(frozen=True)
class UsageData:
    owner_id: int
    counts: dict[str, int]
    groups: tuple[str, ...]
    exists: bool


def _usage(owner_id: int, item: Usage | None) -> UsageData:
    if item is None:
        return UsageData(int(owner_id), dict.fromkeys(COUNTERS, 0), (), False)
    return UsageData(int(owner_id), {name: int(getattr(item, name) or 0) for name in COUNTERS},
                     tuple(item.groups or ()), True)


# Reads ----------------------------------------------------------------------------------------

def read_config(*, consistent: bool = False) -> Config:
    """Rules, groups and the version: one Query (consistent before a change)."""
    version, rules, groups = 0, {}, {}
    for item in Item.query(CONFIG_PK, consistent_read=consistent):
        if isinstance(item, QuotaRuleItem):
            rules[item.name] = RuleData(item.name, int(item.limit), tuple(item.subjects or ()))
        elif isinstance(item, QuotaGroupItem):
            groups[item.name] = tuple(item.rules or ())
        elif isinstance(item, QuotaVersion):
            version = int(item.version or 0)
    return Config(version, rules, groups)


def usage_key(owner_id: int) -> tuple[str, str]:
    return qkeys.usage(owner_id)


def get_usage(owner_id: int, *, consistent: bool = False) -> UsageData:
    """An account's usage (through the unit of work: free when preloaded)."""
    return _usage(owner_id, unit_of_work.get(Usage, usage_key(owner_id), consistent=consistent))


def login_key(name: str) -> tuple[str, str]:
    """The name claim of an account (routes naming an account preload it)."""
    return accounts.login_claim_key(name)


def claimed_id(name: str) -> int | None:
    """The id of the account called ``name``, from its claim (free when preloaded)."""
    claim = unit_of_work.get(Claim, login_key(name))
    return int(claim.owner_id) if claim is not None else None


def members_of(group: str) -> list[int]:
    """Ids of a group's members, in id order (one Query)."""
    return [int(item.user_id) for item in
            QuotaMember.query(qkeys.members(group), consistent_read=True)]


def every_usage() -> Iterator[UsageData]:
    """Every usage item (the quota check; gsi2, paged by DynamoDB)."""
    for item in Item.gsi2.query(USAGES_GSI):
        if isinstance(item, Usage):
            yield _usage(int(item.owner_id), item)


# Writes: configuration ------------------------------------------------------------------------

def stage_version(config: Config) -> None:
    """The version after ``config``'s, on condition nobody changed anything since."""
    uow = unit_of_work.current()
    item = QuotaVersion(*qkeys.version(), version=config.version + 1)
    if config.version == 0:
        uow.put(item, label=CONFIG, must_not_exist=True)
    else:
        uow.put(item, label=CONFIG, condition=QuotaVersion.version == config.version)


def stage_put_rule(rule: RuleData) -> None:
    unit_of_work.current().put(QuotaRuleItem(*qkeys.rule(rule.name), name=rule.name,
                                             limit=rule.limit, subjects=list(rule.subjects)),
                               label="rule")


def stage_delete_rule(name: str) -> None:
    unit_of_work.current().delete(QuotaRuleItem(*qkeys.rule(name)), label="rule")


def stage_put_group(name: str, rules: tuple[str, ...]) -> None:
    unit_of_work.current().put(QuotaGroupItem(*qkeys.group(name), name=name, rules=list(rules)),
                               label="group")


def stage_delete_group(name: str) -> None:
    unit_of_work.current().delete(QuotaGroupItem(*qkeys.group(name)), label="group")


def stage_member(group: str, user_id: int, *, present: bool) -> None:
    uow = unit_of_work.current()
    item = QuotaMember(*qkeys.member(group, user_id), user_id=int(user_id))
    if present:
        uow.put(item, label="member")
    else:
        uow.delete(item, label="member")


def _identity(owner_id: int) -> list:
    """What an update that may create the usage item sets besides its change: the
    discriminator (reads through a batch must know the kind) and its index keys."""
    return [Usage.kind.set(Usage), Usage.owner_id.set(int(owner_id)),
            Usage.gsi2pk.set(USAGES_GSI), Usage.gsi2sk.set(f"{int(owner_id):015d}")]


def stage_groups(owner_id: int, groups: list[str]) -> None:
    """The account's quota groups (its memberships' names) on its usage item."""
    unit_of_work.current().update(Usage(*usage_key(owner_id)),
                                  _identity(owner_id) + [Usage.groups.set(list(groups))],
                                  label=USAGE)


# Writes: usage ----------------------------------------------------------------------------------

def stage_usage(owner_id: int, counts: dict[str, int]) -> None:
    """``ADD`` to the account's counters (``COUNTERS``; amounts may be negative) in the
    current unit; several calls for one account in one unit become one update."""
    wrong = set(counts) - set(COUNTERS)
    if wrong:
        raise ValueError(f"not a usage counter: {sorted(wrong)}")
    unit_of_work.current().add_counts(Usage(*usage_key(owner_id)), counts, label=USAGE,
                                      actions=_identity(owner_id))


def stage_usage_repair(read: UsageData, counts: dict[str, int]) -> None:
    """Set counters to ``counts`` (the quota check), on condition that every counter
    still holds what was read: a change that landed since wins, and the next check
    looks again."""
    item = Usage(*usage_key(read.owner_id))
    condition = None
    for name in COUNTERS:
        attribute = getattr(Usage, name)
        same = attribute == read.counts[name]
        if read.counts[name] == 0:
            same = same | attribute.does_not_exist()
        condition = same if condition is None else condition & same
    actions = [getattr(Usage, name).set(int(value)) for name, value in counts.items()]
    unit_of_work.current().update(item, _identity(read.owner_id) + actions, label=USAGE,
                                  condition=condition)


# Writes: a repository's charge ---------------------------------------------------------------

def stage_repo_charge(repo: Repo, amount: int, *, private: bool) -> None:
    """Add ``amount`` bytes to the repository's quota size, on condition that it still
    exists with the visibility the charge was computed for (``REPO`` otherwise).  Staged
    before any other update of the repository in the unit, so the merged update keeps
    this label."""
    repos.stage_repo_counts(repo, {"quota_size": int(amount)}, label=REPO, private=private)


def stage_size_check(repo: Repo) -> None:
    """Join the repository's staged update (a visibility change) with the condition
    that its quota size is still what was read, so the bytes moved between the public
    and private counters are exactly the repository's."""
    repos.stage_unchanged_quota(repo, label=REPO)


def stage_repo_size_repair(repo: Repo, size: int) -> None:
    """Set the repository's quota size (the quota check), on condition that it is still
    what was read and the visibility too."""
    repos.stage_repo_count_values(repo, {"quota_size": int(size)}, label=REPO,
                                  private=bool(repo.private), unchanged_quota=True)


# The quota check ------------------------------------------------------------------------------

