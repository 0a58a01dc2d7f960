"""Find and fix stored records that break today's input rules (``admin repair``).

Records written before ``chalicelib.http.input_rules`` existed may hold a lone
UTF-16 surrogate or a text longer than its written maximum.  A repair replaces each
lone surrogate with U+FFFD and cuts an over-long text to its maximum (a field without
a written maximum only gets its surrogates replaced: it may be a JSON snapshot that
cutting would break).  Each fixed record is one commit of the unit of work, raising
``RecordRepaired`` with what changed, so a repair can be audited afterwards.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterator

from chalicelib import accounts, events, issues, orgs, repo_admin
from chalicelib.errors import ConditionFailed
from chalicelib.http import input_rules
from chalicelib.store import maintenance, unit_of_work

# The limits each record's fields were written under: its create or edit body's.
_ACCOUNT = accounts.EditUserOption.max_lengths
_LABEL = issues.CreateLabelOption.max_lengths
_MILESTONE = issues.CreateMilestoneOption.max_lengths
_ISSUE = issues.CreateIssueOption.max_lengths
_REPO = repo_admin.EditRepoOption.max_lengths
_TEAM = orgs.CreateTeamOption.max_lengths

# Written maxima of stored attributes per record kind; "labels.*.name" names a field
# of every entry of a map attribute.
STORED_MAXIMA: dict[str, dict[str, int]] = {
    "account": {name: _ACCOUNT[name] for name in (
        "full_name", "website", "location", "description", "pronouns")},
    "repo": {"description": _REPO["description"], "website": _REPO["website"]},
    "issue": {"title": _ISSUE["title"], "body": _ISSUE["body"]},
    "comment": {"body": input_rules.BODY_MAX},
    "issuetracker": {"labels.*.name": _LABEL["name"],
                     "labels.*.description": _LABEL["description"],
                     "milestones.*.title": _MILESTONE["title"],
                     "milestones.*.description": _MILESTONE["description"]},
    "team": {"name": _TEAM["name"], "description": _TEAM["description"]},
    "publickey": {"title": accounts.CreateKeyOption.max_lengths["title"]},
}


@dataclass(frozen=True)
class Finding:
    """One text of one record that breaks a rule, and what the repair makes of it."""
    pk: str
    sk: str
    kind: str
    field: str
    problem: str
    fixed: bool = False             # written back (not in a dry run, nor lost to a race)


def _fix_text(text: str, maximum: int | None) -> tuple[str, list[str]]:
    problems = []
    if input_rules.has_lone_surrogate(text):
        problems.append("lone surrogate")
        text = input_rules.scrub(text)
    if maximum is not None and len(text) > maximum:
        problems.append(f"{len(text)} characters, more than {maximum}")
        text = text[:maximum]
    return text, problems


def _fix_value(value: Any, path: str, maxima: dict[str, int],
               found: list[tuple[str, str]]) -> Any:
    """``value`` with every text fixed; ``found`` collects (field path, problem)."""
    if isinstance(value, str):
        fixed, problems = _fix_text(value, maxima.get(path))
        found.extend((path, p) for p in problems)
        return fixed
    if isinstance(value, dict):
        # A map of entries keyed by id (labels, milestones) is named "labels.*".
        entries = any(m.startswith(f"{path}.*.") for m in maxima)
        return {k: _fix_value(v, f"{path}.*" if entries else f"{path}.{k}", maxima, found)
                for k, v in value.items()}
    if isinstance(value, list):
        return [_fix_value(v, path, maxima, found) for v in value]
    return value


def inspect(record) -> tuple[dict[str, Any], list[Finding]]:
    """The attribute changes that would bring ``record`` within the rules."""
    kind = maintenance.kind_of(record)
    pk, sk = maintenance.key_of(record)
    maxima = STORED_MAXIMA.get(kind, {})
    changes: dict[str, Any] = {}
    findings: list[Finding] = []
    for name, value in maintenance.attributes(record).items():
        found: list[tuple[str, str]] = []
        fixed = _fix_value(value, name, maxima, found)
        if found:
            changes[name] = fixed
            findings.extend(Finding(pk, sk, kind, path, problem) for path, problem in found)
    if kind == "account":
        # Users and organizations written before their index existed are not listed
        # (/admin/users, /orgs, /admin/orgs) until indexed.
        from chalicelib import accounts

        listed = accounts.account_index_key(record)
        if listed is not None and (record.gsi2pk, record.gsi2sk) != listed:
            changes["gsi2pk"], changes["gsi2sk"] = listed
            index = "user" if record.account_type == "user" else "organization"
            findings.append(Finding(pk, sk, kind, "gsi2pk", f"not in the {index} index"))
    if kind == "trackedtime":
        # Times written before the repository's and user's time lists existed are in
        # neither (/repos/{o}/{r}/times, /user/times) until indexed.
        listed = issues.time_index_keys(record)
        missing = {k: v for k, v in listed.items() if getattr(record, k, None) != v}
        if missing:
            changes.update(missing)
            findings.append(Finding(pk, sk, kind, "gsi1pk", "not in the tracked time lists"))
    return changes, findings


def repair(*, dry_run: bool = False) -> Iterator[Finding]:
    """Every finding in the table, fixed unless ``dry_run`` (one commit per record)."""
    for record in maintenance.scan_records():
        changes, findings = inspect(record)
        if not changes:
            continue
        if not dry_run:
            try:
                with unit_of_work.writing() as uow:
                    maintenance.stage_fix(record, changes)
                    uow.raise_event(events.RecordRepaired(
                        actor_id=None, pk=findings[0].pk, sk=findings[0].sk,
                        kind=findings[0].kind,
                        problems=tuple(f"{f.field}: {f.problem}" for f in findings)))
                findings = [replace(f, fixed=True) for f in findings]
            except ConditionFailed:
                pass    # deleted or edited since the scan: the next run sees it as it is now
        yield from findings
