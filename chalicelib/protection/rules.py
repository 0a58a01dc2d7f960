"""Branch and tag protection rules as plain data, and what they allow (no I/O).

Forgejo's rules (``models/git/protected_branch.go``, ``protected_branch_list.go``,
``protected_tag.go``, ``services/pull/commit_status.go``):

- a branch rule's name is a plain branch name (matched case-insensitively) or, when it
  holds a glob special character, a glob with ``/`` as separator (gobwas syntax: ``*``
  stops at ``/``, ``**`` does not, ``?``, ``[a-z]``, ``[!…]``, ``{a,b}``, ``\\`` escapes);
  a glob that does not compile matches its text literally.  The rule of a branch is
  the first that matches, plain names before globs, then the oldest first;
- pushing needs ``enable_push`` and either the push allowlist (when enabled) or write
  access; deploy keys push when the allowlist is off or admits deploy keys;
- force pushing needs ``enable_force_push`` (off: refused for everyone), the force
  push allowlist when enabled, and the right to push;
- merging needs the merge allowlist when enabled, else write access; approvals count
  ("official") from the approvals allowlist when enabled, else from writers;
- file patterns are ``;``-separated globs with ``.`` and ``/`` as separators, matched
  against lower-cased paths;
- a tag rule's pattern is a glob (no separator) or, written ``/…/``, a regular
  expression searched in the name; a tag no rule matches is free, else the pusher
  must be on the allowlist of a matching rule.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

# gobwas/glob's special characters (syntax/lexer): a rule name holding one is a glob.
GLOB_SPECIALS = frozenset("*?\\[]{}")


@dataclass
class Pusher:
    """Who moves a ref, with what the rules look at."""
    user_id: int
    login: str
    team_ids: frozenset[int]
    can_write: bool
    is_repo_admin: bool
    is_site_admin: bool
    deploy_key: bool = False


# Globs --------------------------------------------------------------------------------------

class GlobError(ValueError):
    pass


def _class(pattern: str, i: int) -> tuple[str, int]:
    """A ``[...]`` class starting after ``[`` at ``i``: (regex, index after ``]``)."""
    negate = i < len(pattern) and pattern[i] == "!"
    if negate:
        i += 1
    parts = []
    while i < len(pattern) and pattern[i] != "]":
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            i += 1
            c = pattern[i]
        if i + 2 < len(pattern) and pattern[i + 1] == "-" and pattern[i + 2] != "]":
            hi = pattern[i + 2]
            if hi < c:
                raise GlobError("bad range")
            parts.append(f"{re.escape(c)}-{re.escape(hi)}")
            i += 3
            continue
        parts.append(re.escape(c))
        i += 1
    if i >= len(pattern) or not parts:
        raise GlobError("unclosed or empty character class")
    return f"[{'^' if negate else ''}{''.join(parts)}]", i + 1


def _parse(pattern: str, i: int, seps: str, in_terms: bool) -> tuple[str, int]:
    """Translate from ``i`` up to the end (or, inside ``{…}``, up to ``,``/``}``)."""
    out = []
    not_sep = f"[^{re.escape(seps)}]" if seps else "."
    while i < len(pattern):
        c = pattern[i]
        if in_terms and c in ",}":
            return "".join(out), i
        if c == "\\":
            if i + 1 >= len(pattern):
                raise GlobError("trailing escape")
            out.append(re.escape(pattern[i + 1]))
            i += 2
        elif c == "*":
            if pattern.startswith("**", i):
                out.append(".*")
                i += 2
            else:
                out.append(f"{not_sep}*")
                i += 1
        elif c == "?":
            out.append(not_sep)
            i += 1
        elif c == "[":
            part, i = _class(pattern, i + 1)
            out.append(part)
        elif c == "{":
            alternatives = []
            i += 1
            while True:
                part, i = _parse(pattern, i, seps, True)
                alternatives.append(part)
                if i >= len(pattern):
                    raise GlobError("unclosed alternatives")
                if pattern[i] == "}":
                    i += 1
                    break
                i += 1   # the comma
            out.append(f"(?:{'|'.join(alternatives)})")
        else:
            out.append(re.escape(c))
            i += 1
    if in_terms:
        raise GlobError("unclosed alternatives")
    return "".join(out), i


@functools.lru_cache(maxsize=1024)
def compile_glob(pattern: str, seps: str = "") -> re.Pattern:
    """A gobwas glob as a compiled regular expression (``GlobError`` when invalid)."""
    body, _ = _parse(pattern, 0, seps, False)
    return re.compile(f"(?s:{body})\\Z")


@functools.lru_cache(maxsize=1024)
def _glob_or_literal(pattern: str, seps: str) -> re.Pattern:
    try:
        return compile_glob(pattern, seps)
    except (GlobError, re.error):
        return re.compile(re.escape(pattern) + "\\Z")


def glob_match(pattern: str, name: str, seps: str = "/") -> bool:
    """Forgejo's branch-rule glob (``/`` separates); an invalid glob matches literally."""
    return _glob_or_literal(pattern, seps).match(name) is not None


def valid_glob(pattern: str, seps: str = "/") -> bool:
    try:
        compile_glob(pattern, seps)
    except (GlobError, re.error):
        return False
    return True


def is_special(rule_name: str) -> bool:
    """Forgejo's ``IsRuleNameSpecial``: the name is a glob, not a branch name."""
    return any(c in GLOB_SPECIALS for c in rule_name)


def file_patterns(text: str) -> list[re.Pattern]:
    """``;``-separated globs (``.`` and ``/`` separate), lower-cased; invalid ones skipped."""
    found = []
    for expr in (text or "").lower().split(";"):
        expr = expr.strip()
        if expr:
            try:
                found.append(compile_glob(expr, "./"))
            except (GlobError, re.error):
                continue
    return found


def _matches_any(patterns: list[re.Pattern], path: str) -> bool:
    lowered = path.strip().lower()
    return any(p.match(lowered) for p in patterns)


# Branch rules -------------------------------------------------------------------------------

def _listed(p: Pusher, user_ids: list[int], team_ids: list[int]) -> bool:
    return p.user_id in user_ids or bool(p.team_ids & set(team_ids))


@dataclass
class BranchRule:
    """One branch protection (Forgejo's ProtectedBranch); allowlists hold ids."""
    rule_name: str
    id: int = 0
    enable_push: bool = False
    enable_push_whitelist: bool = False
    push_whitelist_user_ids: list[int] = field(default_factory=list)
    push_whitelist_team_ids: list[int] = field(default_factory=list)
    push_whitelist_deploy_keys: bool = False
    enable_force_push: bool = False
    enable_force_push_allowlist: bool = False
    force_push_allowlist_user_ids: list[int] = field(default_factory=list)
    force_push_allowlist_team_ids: list[int] = field(default_factory=list)
    force_push_allowlist_deploy_keys: bool = False
    enable_merge_whitelist: bool = False
    merge_whitelist_user_ids: list[int] = field(default_factory=list)
    merge_whitelist_team_ids: list[int] = field(default_factory=list)
    enable_status_check: bool = False
    status_check_contexts: list[str] = field(default_factory=list)
    required_approvals: int = 0
    enable_approvals_whitelist: bool = False
    approvals_whitelist_user_ids: list[int] = field(default_factory=list)
    approvals_whitelist_team_ids: list[int] = field(default_factory=list)
    block_on_rejected_reviews: bool = False
    block_on_official_review_requests: bool = False
    block_on_outdated_branch: bool = False
    dismiss_stale_approvals: bool = False
    ignore_stale_approvals: bool = False
    require_signed_commits: bool = False
    protected_file_patterns: str = ""
    unprotected_file_patterns: str = ""
    apply_to_admins: bool = False
    created: int = 0
    updated: int = 0

    @property
    def is_plain(self) -> bool:
        return not is_special(self.rule_name)

    def matches(self, branch: str) -> bool:
        if self.is_plain:
            return self.rule_name.casefold() == branch.casefold()
        return glob_match(self.rule_name, branch)

    def can_push(self, p: Pusher) -> bool:
        """Forgejo's ``CanUserPush`` (and the deploy-key rule of the pre-receive hook)."""
        if not self.enable_push or not p.can_write:
            return False
        if p.deploy_key:
            return not self.enable_push_whitelist or self.push_whitelist_deploy_keys
        if not self.enable_push_whitelist:
            return True
        return _listed(p, self.push_whitelist_user_ids, self.push_whitelist_team_ids)

    def can_force_push(self, p: Pusher) -> bool:
        """Forgejo's ``CanUserForcePush``: force pushing extends pushing."""
        if not self.enable_force_push:
            return False
        if self.enable_force_push_allowlist:
            if p.deploy_key:
                if not self.force_push_allowlist_deploy_keys:
                    return False
            elif not _listed(p, self.force_push_allowlist_user_ids,
                             self.force_push_allowlist_team_ids):
                return False
        return self.can_push(p)

    def can_merge(self, p: Pusher) -> bool:
        """Forgejo's ``IsUserMergeWhitelisted``."""
        if not self.enable_merge_whitelist:
            return p.can_write
        return _listed(p, self.merge_whitelist_user_ids, self.merge_whitelist_team_ids)

    def is_official_approver(self, p: Pusher) -> bool:
        """Forgejo's ``IsUserOfficialReviewer``: whose approvals count."""
        if not self.enable_approvals_whitelist:
            return p.can_write
        return _listed(p, self.approvals_whitelist_user_ids, self.approvals_whitelist_team_ids)

    def protected_files(self, paths) -> str | None:
        """The first of ``paths`` a protected file pattern matches (None: none)."""
        patterns = file_patterns(self.protected_file_patterns)
        if not patterns:
            return None
        return next((path for path in paths if _matches_any(patterns, path)), None)

    def only_unprotected(self, paths) -> bool:
        """Whether every one of ``paths`` matches an unprotected file pattern (False
        without patterns)."""
        patterns = file_patterns(self.unprotected_file_patterns)
        if not patterns:
            return False
        return all(_matches_any(patterns, path) for path in paths)

    def required_contexts_state(self, statuses: dict[str, str]) -> str:
        return required_contexts_state(statuses, self.status_check_contexts)


# The order of commit status states, worst first (structs.commitStatusPriorities).
_PRIORITY = {"error": 0, "failure": 1, "warning": 2, "pending": 3, "success": 4, "skipped": 5}


def _worst(states) -> str:
    result = ""
    for state in states:
        if result == "" or _PRIORITY.get(state, 0) <= _PRIORITY.get(result, 0):
            result = state
    return result


def required_contexts_state(statuses: dict[str, str], contexts: list[str]) -> str:
    """Forgejo's ``MergeRequiredContextsCommitStatus`` over the latest state of each
    context: no statuses is ``pending``; no required contexts, the worst state of all;
    else each required glob (no separator) takes the worst state of the contexts it
    matches, ``pending`` when none, and the worst of those wins."""
    if not statuses:
        return "pending"
    if not contexts:
        return _worst(statuses.values()) or "pending"
    result = "success"
    for pattern in dict.fromkeys(contexts):
        try:
            compiled = compile_glob(pattern, "")
        except (GlobError, re.error):
            continue   # Forgejo logs and skips a context glob that does not compile
        matched = [state for context, state in statuses.items() if compiled.match(context)]
        state = _worst(matched) or "pending"
        if _PRIORITY.get(state, 0) <= _PRIORITY.get(result, 0):
            result = state
    return result


# Tag rules ----------------------------------------------------------------------------------

def is_regexp_pattern(pattern: str) -> bool:
    return len(pattern) >= 2 and pattern.startswith("/") and pattern.endswith("/")


def valid_tag_pattern(pattern: str) -> bool:
    if is_regexp_pattern(pattern):
        try:
            re.compile(pattern[1:-1])
        except re.error:
            return False
        return True
    return valid_glob(pattern, "")


@dataclass
class TagRule:
    """One tag protection (Forgejo's ProtectedTag)."""
    id: int
    name_pattern: str
    whitelist_user_ids: list[int] = field(default_factory=list)
    whitelist_team_ids: list[int] = field(default_factory=list)
    created: int = 0
    updated: int = 0

    def matches(self, tag: str) -> bool:
        if is_regexp_pattern(self.name_pattern):
            try:
                return re.search(self.name_pattern[1:-1], tag) is not None
            except re.error:
                return self.name_pattern == tag
        return _glob_or_literal(self.name_pattern, "").match(tag) is not None

    def allows(self, p: Pusher) -> bool:
        return _listed(p, self.whitelist_user_ids, self.whitelist_team_ids)


# The rules of a repository ------------------------------------------------------------------

@dataclass
class Protection:
    """Every rule of one repository, with the version of the item they came from
    (0: none stored yet) and the highest tag rule id given out (ids are not reused)."""
    branch_rules: list[BranchRule] = field(default_factory=list)
    tag_rules: list[TagRule] = field(default_factory=list)
    version: int = 0
    tag_id_mark: int = 0

    def next_tag_id(self) -> int:
        return max([self.tag_id_mark, *(r.id for r in self.tag_rules)]) + 1

    def ordered_branch_rules(self) -> list[BranchRule]:
        """Forgejo's order: plain names first, then the oldest first."""
        return sorted(self.branch_rules, key=lambda r: (not r.is_plain, r.created, r.id))

    def rule_for(self, branch: str) -> BranchRule | None:
        """The rule protecting ``branch`` (Forgejo's ``GetFirstMatched``), or None."""
        return next((r for r in self.ordered_branch_rules() if r.matches(branch)), None)

    def branch_rule(self, rule_name: str) -> BranchRule | None:
        """The rule stored under exactly this name (the API's ``{name}``)."""
        return next((r for r in self.branch_rules if r.rule_name == rule_name), None)

    def tag_rule(self, rule_id: int) -> TagRule | None:
        return next((r for r in self.tag_rules if r.id == rule_id), None)

    def tag_rule_by_pattern(self, pattern: str) -> TagRule | None:
        return next((r for r in self.tag_rules if r.name_pattern == pattern), None)

    def tag_allowed(self, tag: str, p: Pusher) -> bool:
        """Forgejo's ``IsUserAllowedToControlTag``: free unless a rule matches; then
        allowed when any matching rule lists the pusher."""
        allowed = True
        for rule in sorted(self.tag_rules, key=lambda r: r.id):
            if not rule.matches(tag):
                continue
            allowed = rule.allows(p)
            if allowed:
                break
        return allowed
