"""Forgejo's quota rules as plain data: subjects, usage, and how rules and groups decide
(``shared/spec/signing-quota-migrate-merge-archive.md`` §2.3–2.4).  No storage here:
``quota`` reads what it evaluates and ``quota_admin`` what it edits.

Evaluation, for a subject S and an account's groups:

- a rule *matches* S when its subjects contain S or an ancestor of S (up to
  ``size:all``); when it matches, the usage it compares is the sum over ALL of its own
  subjects, and it allows iff its limit is -1 or that sum is below the limit (strict:
  the write that crosses the limit succeeded, the next one is refused; 0 refuses
  everything the rule covers);
- a group matches when one of its rules does, and allows only if every matching rule
  allows;
- the account is allowed iff some group both matches and allows; when no group has a
  rule for S (or an ancestor) the answer is no.

An account's groups are its own; with none, ``[quota] DEFAULT_GROUPS`` that exist; with
none of those either, one implicit group holding one rule ``[quota.default] TOTAL`` on
``size:all``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from chalicelib.errors import InvalidInput

# Every subject Forgejo knows, in its order, with its parent.
PARENTS: dict[str, str | None] = {
    "none": None,
    "size:all": None,
    "size:repos:all": "size:git:all",
    "size:repos:public": "size:repos:all",
    "size:repos:private": "size:repos:all",
    "size:git:all": "size:all",
    "size:git:lfs": "size:git:all",
    "size:assets:all": "size:all",
    "size:assets:attachments:all": "size:assets:all",
    "size:assets:attachments:issues": "size:assets:attachments:all",
    "size:assets:attachments:releases": "size:assets:attachments:all",
    "size:assets:artifacts": "size:assets:all",
    "size:assets:packages:all": "size:assets:all",
    "size:assets:wiki": "size:assets:all",
}
SUBJECTS = tuple(PARENTS)
UNLIMITED = -1


def check_subject(subject: str) -> str:
    """``subject`` if Forgejo knows it, else its 422."""
    if subject not in PARENTS:
        raise InvalidInput(f"unrecognized quota limit subject: [subject: {subject}]")
    return subject


@dataclass(frozen=True)
class Used:
    """What an account uses, in bytes.  Actions artifacts and packages are not hosted
    here, so they stay 0; the wiki is not measured (0, as in Forgejo)."""
    repos_public: int = 0
    repos_private: int = 0
    git_lfs: int = 0
    attachments_issues: int = 0
    attachments_releases: int = 0
    artifacts: int = 0
    packages: int = 0

    def of(self, subject: str) -> int:
        """The usage a subject measures."""
        repos = self.repos_public + self.repos_private
        attachments = self.attachments_issues + self.attachments_releases
        assets = attachments + self.artifacts + self.packages
        return {
            "none": 0, "size:all": repos + self.git_lfs + assets,
            "size:repos:all": repos, "size:repos:public": self.repos_public,
            "size:repos:private": self.repos_private, "size:git:all": repos + self.git_lfs,
            "size:git:lfs": self.git_lfs, "size:assets:all": assets,
            "size:assets:attachments:all": attachments,
            "size:assets:attachments:issues": self.attachments_issues,
            "size:assets:attachments:releases": self.attachments_releases,
            "size:assets:artifacts": self.artifacts,
            "size:assets:packages:all": self.packages, "size:assets:wiki": 0,
        }[subject]


@dataclass(frozen=True)
class Rule:
    name: str
    limit: int
    subjects: tuple[str, ...] = ()

    def matches(self, subject: str) -> bool:
        at: str | None = subject
        while at is not None:
            if at in self.subjects:
                return True
            at = PARENTS.get(at)
        return False

    def allows(self, used: Used, adding: int = 0) -> bool:
        """Forgejo's strict test; a caller that knows how many bytes it adds is also
        refused when they would pass the limit."""
        if self.limit == UNLIMITED:
            return True
        total = sum(used.of(subject) for subject in self.subjects)
        return total < self.limit and total + max(adding, 0) <= self.limit


@dataclass(frozen=True)
class Group:
    name: str
    rules: tuple[Rule, ...] = field(default_factory=tuple)

    def decide(self, used: Used, subject: str, adding: int = 0) -> tuple[bool, bool]:
        """(matches, allows) for one subject."""
        matching = [rule for rule in self.rules if rule.matches(subject)]
        return bool(matching), all(rule.allows(used, adding) for rule in matching)


def allowed(groups: list[Group], used: Used, subject: str, adding: int = 0) -> bool:
    """May an account with these groups (already resolved, see ``groups_for``) and this
    usage do something that uses ``subject``?"""
    for group in groups:
        matches, allows = group.decide(used, subject, adding)
        if matches and allows:
            return True
    return False


def groups_for(own: list[str], known: dict[str, Group], default_names: list[str],
               default_total: int) -> list[Group]:
    """An account's groups: its own that exist, else the default groups that exist,
    else the implicit group of ``[quota.default] TOTAL``."""
    for names in (own, default_names):
        found = [known[name] for name in dict.fromkeys(names) if name in known]
        if found:
            return found
    return [implicit_group(default_total)]


def implicit_group(total: int) -> Group:
    """Forgejo's built-in default: no name, one rule on ``size:all``."""
    return Group("", (Rule("", total, ("size:all",)),))


# Sizes as operators write them ([quota.default] TOTAL) ------------------------------------

_UNITS = {"": 1, "b": 1, "k": 10 ** 3, "kb": 10 ** 3, "m": 10 ** 6, "mb": 10 ** 6,
          "g": 10 ** 9, "gb": 10 ** 9, "t": 10 ** 12, "tb": 10 ** 12, "p": 10 ** 15,
          "pb": 10 ** 15, "e": 10 ** 18, "eb": 10 ** 18, "ki": 1 << 10, "kib": 1 << 10,
          "mi": 1 << 20, "mib": 1 << 20, "gi": 1 << 30, "gib": 1 << 30, "ti": 1 << 40,
          "tib": 1 << 40, "pi": 1 << 50, "pib": 1 << 50, "ei": 1 << 60, "eib": 1 << 60}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([a-z]*)\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """A humanized size (``1 GiB``, ``500MB``, ``1024``; go-humanize's ParseBytes:
    SI units are powers of 1000, IEC ones of 1024) in bytes; -1 (unlimited) for an empty
    or unparsable text, as Forgejo reads ``[quota.default] TOTAL``."""
    found = _SIZE.match(text or "")
    if not found or found.group(2).lower() not in _UNITS:
        return UNLIMITED
    return int(float(found.group(1)) * _UNITS[found.group(2).lower()])
