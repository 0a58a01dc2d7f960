"""What each kind of domain event says in the audit log: its action, its target, its
changes and the few details worth keeping (``entries.entry_of`` scrubs and bounds them).

One rule per event type, in the order of ``chalicelib/events/types.py``; a type with no
rule (one added later) still gets an entry: its name as the action
(``entries.generic_action``), its ids as the target.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from chalicelib import events
from chalicelib.audit import scrub as rules


@dataclass
class Shape:
    action: str
    target: dict
    changes: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)
    repo: Mapping | None = None      # a repository snapshot the event lacks
    owner_id: int = 0                # the owning account when there is no repository
    owner_login: str = ""


def _full_name(repo: Mapping) -> str:
    return f"{repo.get('owner_login', '')}/{repo.get('name', '')}" if repo.get("name") else ""


def _issue_name(event: Any) -> str:
    return f"{_full_name(event.repo)}#{int(event.number)}"


# Accounts ----------------------------------------------------------------------------------

def _user(event: Any, verb: str) -> Shape:
    details = {"fields": list(event.changed)} if hasattr(event, "changed") else {}
    return Shape(f"user.{verb}", {"kind": "user", "id": int(event.user_id),
                                   "name": getattr(event, "login", "")}, details=details)


def _renamed(event: Any) -> Shape:
    kind = "organization" if event.account_type == "org" else "user"
    shape = Shape(f"{kind}.renamed", {"kind": kind, "id": int(event.account_id),
                                      "name": event.new_login},
                  changes={"login": {"before": event.old_login, "after": event.new_login}})
    if kind == "organization":
        shape.owner_id, shape.owner_login = int(event.account_id), event.new_login
    return shape


def _owned(kind: str, verb: str, id_field: str) -> Callable[[Any], Shape]:
    """A key, a token or an application of the acting user: its id, the user in details."""
    def shape(event: Any) -> Shape:
        details = {"user_id": int(getattr(event, "user_id", 0) or 0)} \
            if hasattr(event, "user_id") else {}
        return Shape(f"{kind}.{verb}", {"kind": kind, "id": int(getattr(event, id_field))},
                     details=details)
    return shape


def _grant(event: Any) -> Shape:
    """An application let act for a user: the scopes it holds, before and after."""
    before = event.previous_scope if event.action == "edited" else None
    return Shape(f"oauth2_grant.{event.action}",
                 {"kind": "oauth2_grant", "id": int(event.app_id), "name": event.app_name},
                 changes={"scope": {"before": before, "after": event.scope}},
                 details={"user_id": int(event.user_id)})


# Organizations ------------------------------------------------------------------------------

def _organization(event: Any) -> Shape:
    org = event.org or {}
    verb = event.action or "edited"
    changes = rules.edited(event.changes, org) if event.changes else \
        rules.lifecycle(verb, org, "organization")
    return Shape(f"organization.{verb}",
                 {"kind": "organization", "id": int(event.org_id),
                  "name": org.get("login", "")},
                 changes=changes, owner_id=int(event.org_id), owner_login=org.get("login", ""))


def _membership(event: Any) -> Shape:
    user = event.user or {}
    return Shape(f"organization_member.{event.action}",
                 {"kind": "user", "id": int(event.user_id), "name": user.get("login", "")},
                 owner_id=int(event.org_id))


def _team(event: Any) -> Shape:
    team = event.team or {}
    verb = event.action or "edited"
    changes = rules.edited(event.changes, team) if event.changes else \
        rules.lifecycle(verb, team, "team")
    details: dict = {}
    if event.user_id:
        details["user_id"] = int(event.user_id)
    shape = Shape(f"team.{verb}", {"kind": "team", "id": int(event.team_id),
                                   "name": team.get("name", "")},
                  changes=changes, details=details, owner_id=int(event.org_id))
    if event.repo:
        shape.repo = event.repo
    return shape


# Repositories ----------------------------------------------------------------------------------

def _repository(verb: str) -> Callable[[Any], Shape]:
    def shape(event: Any) -> Shape:
        repo = event.repo or {}
        changes = rules.edited(getattr(event, "changes", ()), repo) \
            if getattr(event, "changes", ()) else rules.lifecycle(verb, repo, "repository")
        details = {name: getattr(event, name) for name in
                   ("restorable", "purge_at", "deleted_at", "mirror", "parent_id", "topics")
                   if getattr(event, name, None) not in (None, "", 0, False, ())}
        if getattr(event, "parent", None):
            details["parent"] = _full_name(event.parent)
        return Shape(f"repository.{verb}",
                     {"kind": "repository", "id": int(event.repo_id), "name": _full_name(repo)},
                     changes=changes, details=details)
    return shape


def _collaborator(event: Any) -> Shape:
    before = {"added": None, "edited": event.previous_permission or None}.get(
        event.action, event.permission or None)
    after = None if event.action == "removed" else event.permission
    return Shape(f"collaborator.{event.action}",
                 {"kind": "user", "id": int(event.user_id),
                  "name": (event.user or {}).get("login", "")},
                 changes={"permission": {"before": before, "after": after}})


def _access(event: Any) -> Shape:
    subject = event.subject or {}
    if event.kind == "deploy_key":
        target = {"kind": "deploy_key", "id": int(event.subject_id),
                  "name": subject.get("title") or subject.get("name", "")}
        changes = rules.lifecycle(event.action, subject, "deploy_key")
    else:
        target = {"kind": "user", "id": int(event.subject_id), "name": subject.get("login", "")}
        changes = {}
    return Shape(f"{event.kind}.{event.action}", target, changes=changes)


def _hook(event: Any, repo: Mapping) -> Shape:
    hook = event.hook or {}
    shape = Shape(f"hook.{event.action}",
                  {"kind": "hook", "id": int(event.hook_id), "name": hook.get("url", "")},
                  changes=rules.lifecycle(event.action, hook, "hook"),
                  details={"owner_kind": event.owner_kind})
    if event.owner_kind == "repo":
        shape.repo = dict(repo or {}, id=int(event.owner_id))
    else:
        shape.owner_id = int(event.owner_id)
    return shape


def _push(event: Any) -> Shape:
    return Shape("push", {"kind": "ref", "name": event.ref},
                 changes={"sha": {"before": event.before, "after": event.after}},
                 details={"forced": bool(getattr(event, "forced", False)),
                          "via": getattr(event, "via", ""),
                          "commits": int(event.total_commits or len(event.commits))})


def _ref(verb: str) -> Callable[[Any], Shape]:
    def shape(event: Any) -> Shape:
        kind = event.ref_type or "ref"
        sha = {"before": None, "after": event.sha} if verb == "created" else \
            {"before": event.sha, "after": None}
        return Shape(f"{kind}.{verb}", {"kind": kind, "name": event.ref}, changes={"sha": sha})
    return shape


# Issue tracker and review ---------------------------------------------------------------------

def _issue(event: Any) -> Shape:
    kind = "pull_request" if event.is_pull else "issue"
    issue = event.issue or {}
    if event.action == "edited":
        changes = rules.edited(event.changes, issue)
    elif event.action in ("closed", "reopened"):
        closed = event.action == "closed"
        changes = {"state": {"before": "open" if closed else "closed",
                             "after": "closed" if closed else "open"}}
    else:
        changes = rules.lifecycle(event.action, issue, kind)
    return Shape(f"{kind}.{event.action}",
                 {"kind": kind, "id": int(event.issue_id), "name": _issue_name(event)},
                 changes=changes)


def _comment(event: Any) -> Shape:
    comment = event.comment or {}
    if event.action == "edited":
        changes = {"body": {"before": event.body_before, "after": comment.get("body")}}
    else:
        changes = rules.lifecycle(event.action, comment, "comment")
    return Shape(f"issue_comment.{event.action}",
                 {"kind": "comment", "id": int(event.comment_id), "name": _issue_name(event)},
                 changes=changes, details={"issue_id": int(event.issue_id),
                                           "pull": bool(event.is_pull)})


def _label(event: Any) -> Shape:
    item = event.item or {}
    return Shape(f"{event.kind}.{event.action}",
                 {"kind": event.kind, "id": int(event.item_id),
                  "name": item.get("name") or item.get("title", "")},
                 changes=rules.lifecycle(event.action, item, event.kind))


def _review(event: Any) -> Shape:
    return Shape(f"pull_review.{event.action}",
                 {"kind": "review", "id": int(event.review_id), "name": _issue_name(event)},
                 details={"state": event.state})


def _review_request(event: Any) -> Shape:
    reviewer = (event.reviewer or {}).get("login") or (event.team or {}).get("name", "")
    return Shape(f"pull_request.{event.action}",
                 {"kind": "pull_request", "id": int(event.issue_id), "name": _issue_name(event)},
                 details={"reviewer": reviewer})


def _status(event: Any) -> Shape:
    return Shape("commit_status.created", {"kind": "commit", "name": event.sha},
                 details={"state": event.state, "context": event.context})


def _release(event: Any) -> Shape:
    release = event.release or {}
    verb = {"published": "published", "updated": "updated"}.get(event.action, event.action)
    return Shape(f"release.{verb}", {"kind": "release", "id": int(event.release_id),
                                     "name": event.tag_name},
                 changes=rules.lifecycle(verb, release, "release"))


def _times(event: Any) -> Shape:
    kind = "pull_request" if event.is_pull else "issue"
    return Shape(f"tracked_time.{event.action}",
                 {"kind": kind, "id": int(event.issue_id), "name": _issue_name(event)},
                 details={"user_id": int(event.user_id),
                          "seconds": sum(int(t.get("time", 0) or 0) for t in event.times)})


def _protection(event: Any) -> Shape:
    """A branch or tag protection rule (an event the protection domain is to raise:
    ``ProtectionChanged`` with kind, action, rule_name, rule and changes)."""
    kind = f"{getattr(event, 'kind', '') or 'branch'}_protection"
    rule, verb = getattr(event, "rule", None) or {}, getattr(event, "action", "") or "edited"
    pairs = getattr(event, "changes", ())
    return Shape(f"{kind}.{verb}", {"kind": kind, "name": getattr(event, "rule_name", "")},
                 changes=rules.edited(pairs, rule) if pairs else
                 {name: {"before": None, "after": value} if verb == "created" else
                  {"before": value, "after": None} for name, value in rule.items()
                  if verb in ("created", "deleted")})


def _repaired(event: Any) -> Shape:
    return Shape("record.repaired", {"kind": event.kind, "name": f"{event.pk} {event.sk}"},
                 details={"problems": list(event.problems)})


_RULES: dict[str, Callable[[Any], Shape]] = {
    "UserCreated": lambda e: _user(e, "created"),
    "UserDeleted": lambda e: _user(e, "deleted"),
    "UserEdited": lambda e: _user(e, "edited"),
    "AccountRenamed": _renamed,
    "PublicKeyAdded": _owned("public_key", "added", "key_id"),
    "PublicKeyDeleted": _owned("public_key", "deleted", "key_id"),
    "GpgKeyAdded": _owned("gpg_key", "added", "key_id"),
    "GpgKeyDeleted": _owned("gpg_key", "deleted", "key_id"),
    "TokenCreated": _owned("token", "created", "token_id"),
    "TokenDeleted": _owned("token", "deleted", "token_id"),
    "OAuth2ApplicationCreated": _owned("oauth2_application", "created", "app_id"),
    "OAuth2ApplicationEdited": _owned("oauth2_application", "edited", "app_id"),
    "OAuth2ApplicationDeleted": _owned("oauth2_application", "deleted", "app_id"),
    "OAuth2Granted": _grant,
    "OAuth2GrantRevoked": _owned("oauth2_grant", "revoked", "app_id"),
    "OrganizationChanged": _organization,
    "MembershipChanged": _membership,
    "TeamChanged": _team,
    "RepositoryCreated": _repository("created"),
    "RepositoryForked": _repository("forked"),
    "RepositoryMigrated": _repository("migrated"),
    "RepositoryMirrorSynced": _repository("mirror_synced"),
    "RepositoryEdited": _repository("edited"),
    "RepositoryDeleted": _repository("deleted"),
    "RepositoryRestored": _repository("restored"),
    "RepositoryPurged": _repository("purged"),
    "RepositoryTopicsChanged": _repository("topics_changed"),
    "CollaboratorChanged": _collaborator,
    "RepoAccessChanged": _access,
    "RepositoryPushed": _push,
    "RefCreated": _ref("created"),
    "RefDeleted": _ref("deleted"),
    "IssueChanged": _issue,
    "IssueCommentChanged": _comment,
    "LabelChanged": _label,
    "PullReviewChanged": _review,
    "ReviewRequestChanged": _review_request,
    "CommitStatusCreated": _status,
    "ReleaseChanged": _release,
    "TrackedTimeChanged": _times,
    "RecordRepaired": _repaired,
    "ProtectionChanged": _protection,
}


def describe(event: events.Event, *, repo: Mapping) -> Shape:
    """The event's action, target, changes and details (not yet scrubbed)."""
    name = type(event).__name__
    if name == "HookChanged":
        return _hook(event, repo)
    rule = _RULES.get(name)
    if rule is not None:
        return rule(event)
    return _generic(event)


def _generic(event: events.Event) -> Shape:
    """An event type without a rule: its name, its ids, its verb when it carries one."""
    action = generic_action(type(event).__name__)
    verb = getattr(event, "action", "")
    if verb:
        action = f"{action.rsplit('.', 1)[0]}.{verb}"
    ids = {name: value for name, value in vars(event).items()
           if name.endswith("_id") and name not in ("actor_id", "event_id")
           and isinstance(value, int)}
    target = {"kind": action.split(".", 1)[0]}
    own = [value for name, value in ids.items() if name != "repo_id"]
    if own or ids:
        target["id"] = (own or list(ids.values()))[-1]       # the type's own id, if any
    changes = rules.edited(getattr(event, "changes", ()), {}) \
        if isinstance(getattr(event, "changes", None), tuple) else {}
    return Shape(action, target, changes=changes, details=ids)


def snake(name: str) -> str:
    """``RepositoryTopicsChanged`` -> ``repository_topics_changed``; ``OAuth2…`` kept whole."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.replace("OAuth2", "Oauth2")).lower()


def generic_action(type_name: str) -> str:
    """A type the rules do not name: its words, the last one as the verb
    (``RefHistoryRestored`` -> ``ref_history.restored``)."""
    words = snake(type_name).split("_")
    if len(words) == 1:
        return words[0]
    return f"{'_'.join(words[:-1])}.{words[-1]}"
