"""The domain event types (every concrete event), apart from ``chalicelib.events`` so
that a request which raises no event does not pay for defining them: dataclass
creation is most of that module's import time.  ``chalicelib.events`` hands these out
by name on first use (``events.RepositoryPushed``), so callers never import this
module themselves."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from chalicelib.events import Event, RepoEvent

# Accounts -------------------------------------------------------------------------------

@dataclass(frozen=True)
class UserCreated(Event):
    user_id: int = 0
    login: str = ""


@dataclass(frozen=True)
class UserDeleted(Event):
    user_id: int = 0
    login: str = ""


@dataclass(frozen=True)
class UserEdited(Event):
    user_id: int = 0
    changed: tuple[str, ...] = ()


@dataclass(frozen=True)
class AccountRenamed(Event):
    """A user or an organization took a new login (``accounts.rename``); the
    repositories domain moves what is keyed by the old one (``repos.move_owned``)."""
    account_id: int = 0
    account_type: str = ""
    old_login: str = ""
    new_login: str = ""


@dataclass(frozen=True)
class PublicKeyAdded(Event):
    user_id: int = 0
    key_id: int = 0


@dataclass(frozen=True)
class PublicKeyDeleted(Event):
    user_id: int = 0
    key_id: int = 0


@dataclass(frozen=True)
class GpgKeyAdded(Event):
    user_id: int = 0
    key_id: int = 0


@dataclass(frozen=True)
class GpgKeyDeleted(Event):
    user_id: int = 0
    key_id: int = 0


@dataclass(frozen=True)
class TokenCreated(Event):
    user_id: int = 0
    token_id: int = 0


@dataclass(frozen=True)
class TokenDeleted(Event):
    user_id: int = 0
    token_id: int = 0


# OAuth2 applications (chalicelib/oauth2): the application's id; the actor is its owner.
@dataclass(frozen=True)
class OAuth2ApplicationCreated(Event):
    app_id: int = 0


@dataclass(frozen=True)
class OAuth2ApplicationEdited(Event):
    app_id: int = 0


@dataclass(frozen=True)
class OAuth2ApplicationDeleted(Event):
    app_id: int = 0


@dataclass(frozen=True)
class OAuth2Granted(Event):
    """A user let an application act for them (``action`` created), or granted it other
    scopes than before (edited; ``previous_scope`` what it had)."""
    user_id: int = 0
    app_id: int = 0
    app_name: str = ""
    action: str = ""
    scope: str = ""
    previous_scope: str = ""


@dataclass(frozen=True)
class OAuth2GrantRevoked(Event):
    """A user took back an application's access (or a replayed token made Nimbus do so)."""
    user_id: int = 0
    app_id: int = 0


# Organizations and teams ------------------------------------------------------------------
# action: created | edited | deleted (organizations, teams); added | removed (members).

@dataclass(frozen=True)
class OrganizationChanged(Event):
    org_id: int = 0
    action: str = ""
    org: Mapping = field(default_factory=dict)
    # (field, previous value) pairs for "edited".
    changes: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class MembershipChanged(Event):
    """A user joined or left an organization, or changed their public visibility
    (action: added | removed | publicized | concealed)."""
    org_id: int = 0
    user_id: int = 0
    action: str = ""
    user: Mapping = field(default_factory=dict)


@dataclass(frozen=True)
class TeamChanged(Event):
    """action: created | edited | deleted | member_added | member_removed |
    repo_added | repo_removed."""
    org_id: int = 0
    team_id: int = 0
    action: str = ""
    team: Mapping = field(default_factory=dict)
    user_id: int = 0          # member_* actions
    repo_id: int = 0          # repo_* actions
    repo: Mapping = field(default_factory=dict)
    changes: tuple[tuple[str, Any], ...] = ()      # (field, previous value), "edited"


# Repositories ---------------------------------------------------------------------------

@dataclass(frozen=True)
class RepositoryCreated(RepoEvent):
    pass


@dataclass(frozen=True)
class RepositoryForked(RepoEvent):
    parent_id: int = 0
    parent: Mapping = field(default_factory=dict)


@dataclass(frozen=True)
class RepositoryMigrated(RepoEvent):
    mirror: bool = False


@dataclass(frozen=True)
class ImportedIssuesIndexDue(RepoEvent):
    """The search index takes a migrated repository's issues a page at a time
    (``chalicelib.search``): those numbered above ``after`` come next."""
    after: int = 0


@dataclass(frozen=True)
class RepositoryMirrorSynced(RepoEvent):
    pass


@dataclass(frozen=True)
class MigrationStepDue(RepoEvent):
    """A project migration's next step may run (``chalicelib.migrations``): the worker
    that holds the task at ``version`` continues it.  ``repo`` is empty: the repository
    record is written when the migration finishes."""
    owner_login: str = ""
    repo_name: str = ""
    version: int = 0


@dataclass(frozen=True)
class RepositoryEdited(RepoEvent):
    """Settings changed; ``changes`` holds (field, previous value) pairs.  A rename or a
    transfer shows as ``name`` / ``owner_login`` changes."""
    changes: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class RepositoryDeleted(RepoEvent):
    """``restorable``: kept until ``purge_at`` ([repository] DELETED_RETENTION_DAYS), its
    data left in place; otherwise (retention 0) cleaned up at once."""
    restorable: bool = False
    purge_at: float = 0.0


@dataclass(frozen=True)
class RepositoryRestored(RepoEvent):
    """A deleted repository brought back (``repo`` as it is again), perhaps renamed."""
    deleted_at: float = 0.0


@dataclass(frozen=True)
class RepositoryPurged(RepoEvent):
    """A deleted repository's retention ran out: its data is removed for good."""


@dataclass(frozen=True)
class RepositoryTopicsChanged(RepoEvent):
    """The repository's topics are now ``topics`` (Forgejo sends no webhook for it; the
    search index lists repositories under their topics)."""
    topics: tuple[str, ...] = ()


@dataclass(frozen=True)
class CollaboratorChanged(RepoEvent):
    """action: added | edited | removed."""
    user_id: int = 0
    permission: str = ""
    action: str = ""
    previous_permission: str = ""    # for "edited"
    user: Mapping = field(default_factory=dict)


@dataclass(frozen=True)
class RepoAccessChanged(RepoEvent):
    """Stars, watches and deploy keys (kind: star | watch | deploy_key; action: added |
    removed)."""
    kind: str = ""
    action: str = ""
    subject_id: int = 0
    subject: Mapping = field(default_factory=dict)   # the user, or the deploy key


@dataclass(frozen=True)
class HookChanged(Event):
    """A webhook was created, edited or deleted (owner_kind: repo | org)."""
    owner_kind: str = ""
    owner_id: int = 0
    hook_id: int = 0
    action: str = ""
    hook: Mapping = field(default_factory=dict)      # secret and authorization left out


@dataclass(frozen=True)
class PushedCommit:
    id: str
    message: str
    author_name: str
    author_email: str
    committer_name: str
    committer_email: str
    timestamp: int
    tz_offset: int


@dataclass(frozen=True)
class RepositoryPushed(RepoEvent):
    """One ref moved (created, updated or deleted) by a push, the API or a mirror sync."""
    ref: str = ""
    before: str = ""
    after: str = ""
    commits: tuple[PushedCommit, ...] = ()
    total_commits: int = 0
    # The old tip is not in the new one's history (a force push, a tag moved).
    forced: bool = False
    # What moved it: push (git), merge, api (the API and the web), mirror, system.
    via: str = ""


@dataclass(frozen=True)
class RefCreated(RepoEvent):
    """A branch or tag appeared (ref_type: branch | tag); raised with RepositoryPushed."""
    ref: str = ""
    ref_type: str = ""
    sha: str = ""


@dataclass(frozen=True)
class ProtectionChanged(RepoEvent):
    """A branch or tag protection rule was created, edited or deleted (``kind``: branch
    or tag); ``rule``: the rule after the change (before it, for deleted); ``changes``:
    (field, previous value) pairs for "edited"."""
    kind: str = ""
    action: str = ""
    rule_name: str = ""
    rule: Mapping = field(default_factory=dict)
    changes: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class RefDeleted(RepoEvent):
    ref: str = ""
    ref_type: str = ""
    sha: str = ""


# Issue tracker --------------------------------------------------------------------------
# Actions follow Forgejo's webhook payloads: issues -> opened, edited, closed, reopened,
# deleted, label_updated, label_cleared, milestoned, demilestoned, assigned, unassigned;
# issue_comment -> created, edited, deleted.

@dataclass(frozen=True)
class IssueChanged(RepoEvent):
    issue_id: int = 0
    number: int = 0
    is_pull: bool = False
    action: str = ""
    # (field, previous value) pairs for "edited": title, body, ref.
    changes: tuple[tuple[str, str], ...] = ()
    issue: Mapping = field(default_factory=dict)      # the issue after the change


@dataclass(frozen=True)
class IssueCommentChanged(RepoEvent):
    issue_id: int = 0
    number: int = 0
    is_pull: bool = False
    comment_id: int = 0
    action: str = ""
    body_before: str = ""        # for "edited"
    comment: Mapping = field(default_factory=dict)
    issue: Mapping = field(default_factory=dict)        # the issue after the change


@dataclass(frozen=True)
class LabelChanged(RepoEvent):
    """A repository label or milestone was created, edited or deleted (kind: label |
    milestone)."""
    kind: str = ""
    item_id: int = 0
    action: str = ""
    item: Mapping = field(default_factory=dict)


# Code review --------------------------------------------------------------------------
# Forgejo notifies a submitted review (approved, rejected, commented: one webhook each),
# and a review request added or removed; dismissals and stale marks raise these too,
# with their action, for the timeline and future consumers.

@dataclass(frozen=True)
class PullReviewChanged(RepoEvent):
    """action: submitted | dismissed | undismissed | deleted; ``review``: the review
    after the change (reviews/store.py Review as a dict); ``issue``: the pull request's
    issue item after it."""
    issue_id: int = 0
    number: int = 0
    review_id: int = 0
    action: str = ""
    state: str = ""
    review: Mapping = field(default_factory=dict)
    issue: Mapping = field(default_factory=dict)


@dataclass(frozen=True)
class ReviewRequestChanged(RepoEvent):
    """A review was requested from a user or a team, or the request withdrawn (action:
    review_requested | review_request_removed).  ``reviewer``: the user's snapshot
    (empty for a team); ``team``: the team's (empty for a user)."""
    issue_id: int = 0
    number: int = 0
    review_id: int = 0
    action: str = ""
    reviewer: Mapping = field(default_factory=dict)
    team: Mapping = field(default_factory=dict)
    issue: Mapping = field(default_factory=dict)


# Commit statuses ------------------------------------------------------------------------

@dataclass(frozen=True)
class CommitStatusCreated(RepoEvent):
    """A status was posted for a commit (``sha``: the full id; ``status_id``: the
    status's per-commit index, which the API shows as its id)."""
    sha: str = ""
    status_id: int = 0
    state: str = ""
    context: str = ""
    description: str = ""
    target_url: str = ""


# Releases -------------------------------------------------------------------------------

@dataclass(frozen=True)
class ReleaseChanged(RepoEvent):
    """A release was published (created non-draft, a draft published, or a tag turned
    into a release), updated (a published release edited) or deleted (a published one);
    drafts raise nothing, as Forgejo notifies.  ``release``: the release after the change
    (before it, for deleted) with its ``assets``, as ``services.releases.snapshot`` makes
    it."""
    release_id: int = 0
    tag_name: str = ""
    action: str = ""
    release: Mapping = field(default_factory=dict)


# Issue tracker: tracked times -------------------------------------------------------------

@dataclass(frozen=True)
class TrackedTimeChanged(RepoEvent):
    """Time tracked on an issue was added or deleted (action: added | deleted | reset,
    the last deleting all of the user's entries on the issue at once).  ``times`` are
    the snapshots of the entries added or deleted."""
    issue_id: int = 0
    number: int = 0
    is_pull: bool = False
    action: str = ""
    user_id: int = 0
    times: tuple[Mapping, ...] = ()


# Operator maintenance (input rules, issue 10) ---------------------------------------------

@dataclass(frozen=True)
class RecordRepaired(Event):
    """``admin repair`` rewrote a stored record that broke the input rules (a lone
    surrogate replaced, an over-long text cut); ``problems`` says what, per field."""
    pk: str = ""
    sk: str = ""
    kind: str = ""
    problems: tuple[str, ...] = ()


# Events that schedule the service's own work rather than record a change: no audit
# entry, nothing on an EventBridge bus.
WORK_ITEMS = (ImportedIssuesIndexDue, MigrationStepDue)
