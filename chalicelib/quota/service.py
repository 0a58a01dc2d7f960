"""Quota: what an account uses, what it may use, and the checks before writes that use
space (Forgejo's model, ``shared/spec/signing-quota-migrate-merge-archive.md`` §2;
rules and evaluation in ``quota_rules``, who is charged for what in ``quota_charges``,
the administration in ``quota_admin``, the recount in ``quota_check``; docs/quota.md).

Usage lives in one item per account (users and organizations alike), moved with ``ADD``
in the transaction of the change that uses or frees the space, so it is exact under
concurrent writers.  Checks happen before the action and do not predict it: the write
that crosses a limit succeeds, the next one is refused.  With ``[quota] ENABLED`` off,
every check passes (accounting goes on, so turning quota on needs no recount).

For other areas (attachments are wired by their owner):

- ``ensure_within(owner_id, subject, adding=0)`` raises ``QuotaExceeded`` (413
  ``{"message": "quota exceeded", "user_id", "username"}``) when the owner may not
  store more under ``subject`` (one of ``quota_rules.SUBJECTS``); call it before the
  upload, with ``adding`` the bytes when known;
- ``stage_attachment_usage(owner_id, kind, delta)`` moves the owner's
  ``size:assets:attachments:<kind>`` usage (``kind``: ``"issues"`` or ``"releases"``,
  ``delta`` bytes, negative to free) in the current unit of work: call it inside the
  ``unit_of_work.writing()`` block that writes or deletes the attachment (several calls
  for one owner in one unit are summed into one update);
- the quota lists and the recount read the release attachments
  (``services.release_usage``); ``register_attachments(lister, totals)`` replaces that
  source (tests).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from chalicelib import accounts, orgs, releases
from chalicelib.errors import NotFoundError, PermissionDenied, QuotaExceeded
from chalicelib.quota import rules as quota_rules
from chalicelib.quota import store
from chalicelib.quota.rules import Group, Rule, Used
from chalicelib.repos import can_see_account, is_org, is_org_owner
from chalicelib.settings import get_settings

if TYPE_CHECKING:
    from chalicelib.accounts import Account

ATTACHMENT_KINDS = {"issues": "attachments_issues", "releases": "attachments_releases"}


def enabled() -> bool:
    return get_settings().quota.ENABLED


# Reads -----------------------------------------------------------------------------------

def used(owner_id: int) -> Used:
    counts = store.get_usage(owner_id).counts
    return Used(repos_public=counts["repos_public"], repos_private=counts["repos_private"],
                attachments_issues=counts["attachments_issues"],
                attachments_releases=counts["attachments_releases"], git_lfs=counts["git_lfs"])


def known_groups(config: store.Config) -> dict[str, Group]:
    """The configured groups with their rules (links to rules that are gone skipped)."""
    return {name: Group(name, tuple(rule_of(config.rules[r]) for r in rule_names
                                    if r in config.rules))
            for name, rule_names in config.groups.items()}


def rule_of(data: store.RuleData) -> Rule:
    return Rule(data.name, data.limit, data.subjects)


def default_total() -> int:
    settings = get_settings()
    text = settings.quota_default.TOTAL.strip()
    return quota_rules.parse_size(text) if text else int(settings.quota.DEFAULT_TOTAL)


def default_group_names() -> list[str]:
    return [n.strip() for n in get_settings().quota.DEFAULT_GROUPS.split(",") if n.strip()]


def groups_of(owner_id: int, config: store.Config | None = None) -> list[Group]:
    """The groups that decide an account's quota (``quota_rules.groups_for``)."""
    config = config or store.read_config()
    return quota_rules.groups_for(list(store.get_usage(owner_id).groups), known_groups(config),
                                  default_group_names(), default_total())


def own_groups(owner_id: int, config: store.Config | None = None) -> list[Group]:
    """What Forgejo shows as an account's groups: its own, else the default groups that
    exist (the implicit default group is not listed)."""
    config = config or store.read_config()
    known = known_groups(config)
    for names in (list(store.get_usage(owner_id).groups), default_group_names()):
        found = [known[name] for name in dict.fromkeys(names) if name in known]
        if found:
            return found
    return []


@dataclass(frozen=True)
class QuotaInfo:
    used: Used
    groups: list[Group]


def info(owner_id: int) -> QuotaInfo:
    """An account's QuotaInfo: its usage item (usually preloaded) and one Query."""
    return QuotaInfo(used(owner_id), own_groups(owner_id))


def allows(owner_id: int, subject: str, adding: int = 0) -> bool:
    """May the account store more under ``subject``?  Always, when quota is off."""
    quota_rules.check_subject(subject)
    if not enabled():
        return True
    return quota_rules.allowed(groups_of(owner_id), used(owner_id), subject, adding)


def ensure_within(owner_id: int, subject: str, adding: int = 0) -> None:
    """Raise QuotaExceeded (413) unless ``allows(owner_id, subject, adding)``."""
    if not allows(owner_id, subject, adding):
        owner = accounts.account_by_id(int(owner_id))
        raise QuotaExceeded(int(owner_id), owner.login if owner is not None else "")


def check(owner_id: int, subject: str) -> bool:
    """orgCheckQuota / userCheckQuota: a missing subject is as unknown as a wrong one."""
    return allows(owner_id, quota_rules.check_subject(subject or ""))


# Accounting ---------------------------------------------------------------------------

def stage_attachment_usage(owner_id: int, kind: str, delta: int) -> None:
    """Move the owner's attachment usage (``kind``: issues or releases) by ``delta``
    bytes in the current unit of work (see the module docstring)."""
    if kind not in ATTACHMENT_KINDS:
        raise ValueError(f"attachment kind must be issues or releases, not {kind!r}")
    if delta:
        store.stage_usage(int(owner_id), {ATTACHMENT_KINDS[kind]: int(delta)})


@dataclass(frozen=True)
class UsedAttachment:
    """One attachment as the quota lists show it (Forgejo's QuotaUsedAttachment)."""
    name: str
    size: int
    api_url: str
    contained_in_api_url: str
    contained_in_html_url: str


@dataclass
class AttachmentSource:
    # owner id -> that owner's attachments (any order; the lists sort by size)
    lister: Callable[[int], list[UsedAttachment]] | None = None
    # () -> {owner id: (issue bytes, release bytes)} over every attachment (the recount)
    totals: Callable[[], dict[int, tuple[int, int]]] | None = None


def release_attachments(owner_id: int) -> list[UsedAttachment]:
    """The owner's stored release attachments (``services.release_usage``)."""
    return [UsedAttachment(**fields) for fields in releases.owner_release_attachments(owner_id)]


ATTACHMENTS = AttachmentSource(release_attachments, releases.release_attachment_totals)


def register_attachments(lister: Callable[[int], list[UsedAttachment]] | None,
                         totals: Callable[[], dict[int, tuple[int, int]]] | None) -> None:
    """Replace where the attachments come from (None: the release attachments again)."""
    ATTACHMENTS.lister = lister or release_attachments
    ATTACHMENTS.totals = totals or releases.release_attachment_totals


def attachments_of(owner_id: int) -> list[UsedAttachment]:
    """The owner's attachments, the largest first (Forgejo's order)."""
    return sorted(ATTACHMENTS.lister(int(owner_id)), key=lambda a: (-a.size, a.name))


# Whose quota a route shows ----------------------------------------------------------------

def name_keys(name: str) -> list:
    """First preload batch of a route naming an account: its name claim."""
    return [store.login_key(name)]


def account_keys(name: str, user_id: int | None) -> list:
    """Second preload batch: the account the claim names, its usage item and the
    caller's membership (organizations)."""
    found = store.claimed_id(name)
    if found is None:
        return []
    more = [accounts.account_key(found), store.usage_key(found)]
    if user_id is not None:
        more.append(orgs.member_key(found, int(user_id)))
    return more


def usage_keys(owner_id: int | None) -> list:
    return [store.usage_key(int(owner_id))] if owner_id is not None else []


def account_named(name: str) -> Account | None:
    """The account a preloaded name claim names (no read when preloaded)."""
    return accounts.accounts_by_login([name]).get(name.lower())


def org_for_quota(viewer: Account | None, name: str) -> Account:
    """Forgejo's orgAssignment then reqOrgOwnership: an organization the viewer cannot
    see (or none) is 404; one the viewer does not own is 403."""
    org = account_named(name)
    if org is None or not is_org(org) or not can_see_account(viewer, org):
        raise NotFoundError(f"organization does not exist [name: {name}]")
    if not is_org_owner(org, viewer):
        raise PermissionDenied("Must be an organization owner")
    return org


def account_for_admin(name: str) -> Account:
    """The account an admin route names: a user or an organization (both are users to
    Forgejo's quota)."""
    account = account_named(name)
    if account is None:
        raise NotFoundError(f"user redirect does not exist [name: {name}]")
    return account
