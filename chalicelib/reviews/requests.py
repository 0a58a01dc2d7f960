"""Review requests, and who may be asked (fj:services/issue/assignee.go
IsValidReviewRequest, IsValidTeamReviewRequest, CanDoerChangeReviewRequests;
models/issues/review.go AddReviewRequest, RemoveReviewRequest;
models/repo/user_repo.go GetReviewers, GetRepoAssignees).

A request is a REQUEST_REVIEW review, and the pull request keeps a copy of each open one
(``PullFields.requested_reviewers`` / ``requested_teams``): both are written in one
transaction conditional on the pull request's version, and whether someone is already
asked is decided on the copies inside that transaction (retried on a lost race), so two
clients asking for the same reviewer at once make one request.
"""
from __future__ import annotations

from chalicelib import accounts, clock, events, orgs, pulls, repos
from chalicelib.accounts import account_snapshot
from chalicelib.errors import InvalidInput, NotFoundError, PermissionDenied
from chalicelib.issues import PULLS_UNIT, Ctx, value_of
from chalicelib.pulls import PullFields
from chalicelib.repos import Access, access_keys, collaboration, is_org, membership, repo_access
from chalicelib.reviews import service, store
from chalicelib.reviews.options import PullReviewRequestOptions
from chalicelib.reviews.store import APPROVED, REQUEST_CHANGES, REQUEST_REVIEW, Review
from chalicelib.store import unit_of_work

CLOSED = "cannot request review on a closed or merged PR"


def _invalid(ctx: Ctx, reason: str) -> InvalidInput:
    return InvalidInput(f"{reason} [user_id: {int(ctx.user.id)}, repo_id: {ctx.repo_id}]")


def can_change_requests(ctx: Ctx, issue) -> bool:
    """CanDoerChangeReviewRequests: the poster, the owner, collaborators, members of the
    owning organization's teams that reach the pull requests; never when archived."""
    user = ctx.user
    if user is None or ctx.repo.archived:
        return False
    if int(user.id) in (int(issue.poster_id), int(ctx.repo.owner_id)):
        return True
    if collaboration(ctx.repo_id, int(user.id)) is not None:
        return True
    owner = ctx.view.owner
    return is_org(owner) and membership(int(owner.id), int(user.id)) is not None and \
        repo_access(user, ctx.repo, owner, unit=PULLS_UNIT) >= Access.READ


def _user(name: str, viewer):
    try:
        return accounts.get_user(name, viewer)
    except NotFoundError:
        raise NotFoundError(f"User '{name}' not exist") from None


def _team(ctx: Ctx, name: str):
    wanted = name.lower()
    for team in orgs.list_teams(int(ctx.view.owner.id)):
        if team.lower_name == wanted:
            return team
    raise NotFoundError(f"Team '{name}' not exist")


def _last_verdicts(ctx: Ctx, number: int) -> dict[int, Review]:
    """Each user's latest approval, rejection or request (GetReviewByIssueIDAndUserID)."""
    latest: dict[int, Review] = {}
    for review in store.reviews_of(ctx.repo_id, number, consistent=True):
        if review.reviewer_id and review.state in (APPROVED, REQUEST_CHANGES, REQUEST_REVIEW):
            latest[review.reviewer_id] = review
    return latest


def _check_user(ctx: Ctx, issue, reviewer, adding: bool, last: Review | None,
                may_change: bool) -> None:
    if reviewer.account_type == "org":
        raise _invalid(ctx, "Organization can't be added as reviewer")
    if adding:
        if repo_access(reviewer, ctx.repo, ctx.view.owner, unit=PULLS_UNIT) < Access.READ:
            raise _invalid(ctx, "Reviewer can't read")
        if int(reviewer.id) == int(issue.poster_id):
            raise _invalid(ctx, "poster of pr can't be reviewer")
        if not may_change:
            raise _invalid(ctx, "Doer can't choose reviewer")
        return
    if may_change or (last is not None and last.state == REQUEST_REVIEW
                      and last.reviewer_id == int(ctx.user.id)):
        return
    raise _invalid(ctx, "Doer can't remove reviewer")


def _check_team(ctx: Ctx, team, adding: bool, may_change: bool) -> None:
    if adding and ctx.repo.private and not orgs.team_covers(team, ctx.repo):
        raise _invalid(ctx, "Reviewing team can't read repo")
    if not may_change:
        raise _invalid(ctx, "Doer can't choose reviewer" if adding else
                       "Doer can't remove reviewer")


def team_snapshot(team) -> dict:
    return {name: value for name, value in events.snapshot(team).items()
            if name in ("id", "name", "description", "permission", "units", "units_map",
                        "includes_all_repositories", "can_create_org_repo", "org_id")}


def change_requests(ctx: Ctx, number: int, option: PullReviewRequestOptions,
                    adding: bool) -> list[Review]:
    """repoCreatePullReviewRequests (the REQUEST_REVIEW reviews made, for a 201) and
    repoDeletePullReviewRequests."""
    if ctx.user is None:
        raise PermissionDenied("sign in to request reviews")
    if ctx.user.account_type == "org":
        raise _invalid(ctx, "Organization can't be doer to add reviewer")
    issue = pulls.get_pull(ctx, number)
    may_change = can_change_requests(ctx, issue)
    latest = _last_verdicts(ctx, number)
    reviewers = []
    for name in dict.fromkeys(option.reviewers or []):
        reviewer = _user(name, ctx.user)
        _check_user(ctx, issue, reviewer, adding, latest.get(int(reviewer.id)), may_change)
        reviewers.append(reviewer)
    teams = []
    if is_org(ctx.view.owner):
        for name in dict.fromkeys(option.team_reviewers or []):
            team = _team(ctx, name)
            _check_team(ctx, team, adding, may_change)
            teams.append(team)
    if not reviewers and not teams:
        return []
    pull = pulls.pull_fields_of(issue)
    if adding and (issue.state != "open" or pull.merged) and \
            any(int(r.id) in latest for r in reviewers):
        raise PermissionDenied(CLOSED)
    officials = {int(r.id): service.is_official(ctx, r, pull.base_branch) for r in reviewers}
    existing = {r.id: r for r in store.reviews_of(ctx.repo_id, number, consistent=True)
                if r.state == REQUEST_REVIEW}
    outcome: dict = {}

    def pull_change(fields: PullFields) -> bool:
        outcome.clear()
        made, gone, notes = [], [], []
        asked = {int(s.get("id") or 0) for s in fields.requested_reviewers}
        asked_teams = {int(t.get("id") or 0) for t in fields.requested_teams}
        stamp = clock.seconds()
        for reviewer in reviewers:
            rid = int(reviewer.id)
            if adding and rid not in asked:
                review = Review(id=store.new_review_id(), number=number, reviewer_id=rid,
                                reviewer=account_snapshot(reviewer), state=REQUEST_REVIEW,
                                official=officials[rid], submitted_at=stamp, updated=stamp)
                made.append(review)
                fields.requested_reviewers.append(account_snapshot(reviewer))
                notes.append((review, "review_requested", account_snapshot(reviewer), {}))
            elif not adding and rid in asked:
                fields.requested_reviewers = [s for s in fields.requested_reviewers
                                              if int(s.get("id") or 0) != rid]
                for review in existing.values():
                    if review.reviewer_id == rid:
                        gone.append(review)
                        notes.append((review, "review_request_removed", account_snapshot(reviewer), {}))
        for team in teams:
            tid, snap = int(team.id), team_snapshot(team)
            if adding and tid not in asked_teams:
                review = Review(id=store.new_review_id(), number=number, team_id=tid,
                                team=snap, state=REQUEST_REVIEW, submitted_at=stamp,
                                updated=stamp)
                made.append(review)
                fields.requested_teams.append(snap)
                notes.append((review, "review_requested", {}, snap))
            elif not adding and tid in asked_teams:
                fields.requested_teams = [t for t in fields.requested_teams
                                          if int(t.get("id") or 0) != tid]
                for review in existing.values():
                    if review.team_id == tid:
                        gone.append(review)
                        notes.append((review, "review_request_removed", {}, snap))
        outcome.update(made=made, gone=gone, notes=notes)
        return bool(made or gone or notes)

    def stage() -> None:
        for review in outcome.get("made", []):
            store.stage_create(ctx.repo_id, review)
        for review in outcome.get("gone", []):
            store.stage_delete(ctx.repo_id, review, [])

    def raised(new_issue) -> list[events.Event]:
        return [events.ReviewRequestChanged(
            **ctx.event_fields(), issue_id=int(new_issue.id), number=number,
            review_id=review.id, action=action, reviewer=user, team=team,
            issue=events.snapshot(new_issue)) for review, action, user, team in
            outcome.get("notes", [])]

    def touched() -> tuple[list[Review], list[int]]:
        return list(outcome.get("made", [])), [r.id for r in outcome.get("gone", [])]

    service.commit(ctx, number, stage, pull_change, raised, touched=touched)
    return list(outcome.get("made", []))


# Requests a pull request is opened with ------------------------------------------------------

class OpeningRequests:
    """The review requests of a pull request being opened (CreatePullRequestOption's
    ``reviewers`` and ``team_reviewers``), checked by the rules ``change_requests``
    applies, before anything is written.  ``pulls.create_pull`` writes them in the
    transaction that creates the pull request: ``apply`` puts the copies on its fields
    before they are stored, ``stage`` the REQUEST_REVIEW reviews and their events once
    the number is known."""

    def __init__(self, ctx: Ctx, reviewers: list, teams: list, officials: dict[int, bool]):
        self.ctx, self.reviewers, self.teams, self.officials = ctx, reviewers, teams, officials
        self.made: list[Review] = []

    def apply(self, fields: PullFields) -> None:
        stamp = clock.seconds()
        self.made = []
        for reviewer in self.reviewers:
            rid = int(reviewer.id)
            self.made.append(Review(id=store.new_review_id(), number=0, reviewer_id=rid,
                                    reviewer=account_snapshot(reviewer), state=REQUEST_REVIEW,
                                    official=self.officials[rid], submitted_at=stamp,
                                    updated=stamp))
            fields.requested_reviewers.append(account_snapshot(reviewer))
        for team in self.teams:
            snap = team_snapshot(team)
            self.made.append(Review(id=store.new_review_id(), number=0, team_id=int(team.id),
                                    team=snap, state=REQUEST_REVIEW, submitted_at=stamp,
                                    updated=stamp))
            fields.requested_teams.append(snap)
        fields.verdicts = pulls.standing(self.made)

    def stage(self, issue, uow) -> None:
        """The reviews of the pull request ``issue`` (just numbered) and their events."""
        for review in self.made:
            review.number = int(issue.number)
            store.stage_create(self.ctx.repo_id, review)
            uow.raise_event(events.ReviewRequestChanged(
                **self.ctx.event_fields(), issue_id=int(issue.id), number=int(issue.number),
                review_id=review.id, action="review_requested", reviewer=review.reviewer,
                team=review.team, issue=events.snapshot(issue)))


def open_pull(ctx: Ctx, option: pulls.CreatePullRequestOption):
    """repoCreatePullRequest with its ``reviewers`` and ``team_reviewers``: the requests
    are checked first (a 422 creates nothing, not even a number), then written in the
    transaction that opens the pull request.  A missing base is the pull request
    domain's own 422."""
    base = (option.base or "").strip()
    extras = opening_requests(ctx, base, value_of(option.reviewers),
                              value_of(option.team_reviewers)) \
        if base and ctx.user is not None else None
    return pulls.create_pull(ctx, option, extras=extras)


def opening_requests(ctx: Ctx, base_branch: str, reviewer_names, team_names
                     ) -> OpeningRequests | None:
    """The checked requests of a pull request ``ctx.user`` is opening onto
    ``base_branch`` (None when it asks for none).  As ``change_requests`` with the
    opener as the poster: someone who does not exist, an organization, a user who cannot
    read the pull requests, the opener themself, or an organization's team that does not
    exist or cannot read the repository is a 422, and nothing is created."""
    reviewer_names = list(dict.fromkeys(reviewer_names or []))
    team_names = list(dict.fromkeys(team_names or []))
    if not reviewer_names and not team_names:
        return None
    if ctx.user.account_type == "org":
        raise _invalid(ctx, "Organization can't be doer to add reviewer")
    opening = _Opening(int(ctx.user.id))
    may_change = not ctx.repo.archived      # the poster may always choose, as Forgejo
    reviewers = []
    for name in reviewer_names:
        try:
            reviewer = _user(name, ctx.user)
        except NotFoundError as missing:    # a field of the body names nobody: 422
            raise InvalidInput(f"[Reviewers]: {missing.message}") from None
        _check_user(ctx, opening, reviewer, True, None, may_change)
        reviewers.append(reviewer)
    teams = []
    # A user's repository has no teams: its team names are ignored, as change_requests does.
    for name in team_names if is_org(ctx.view.owner) else []:
        try:
            team = _team(ctx, name)
        except NotFoundError as missing:
            raise InvalidInput(f"[TeamReviewers]: {missing.message}") from None
        _check_team(ctx, team, True, may_change)
        teams.append(team)
    officials = {int(r.id): service.is_official(ctx, r, base_branch) for r in reviewers}
    return OpeningRequests(ctx, reviewers, teams, officials)


class _Opening:
    """What ``_check_user`` reads of the pull request: its poster, before it exists."""

    def __init__(self, poster_id: int):
        self.poster_id = poster_id


# Who may be asked, who may be assigned -------------------------------------------------------

def _sorted(found: dict) -> list:
    return sorted(found.values(), key=lambda a: a.lower_name)


def _team_members(ctx: Ctx, minimum: Access) -> dict:
    """Members of the owning organization's teams that give ``minimum`` or more here."""

    found = {}
    if not is_org(ctx.view.owner):
        return found
    covered = set(int(t) for t in (ctx.repo.team_ids or ()))
    wanted = set()
    for team in orgs.list_teams(int(ctx.view.owner.id)):
        if not (team.includes_all_repositories or int(team.id) in covered):
            continue
        if Access.parse(team.permission) >= minimum or team.permission == "owner":
            wanted |= {int(m.user_id) for m in orgs.list_team_members(int(team.id))}
    for account in accounts.accounts_by_ids(sorted(wanted)):
        found[int(account.id)] = account
    return found


def _collaborators(ctx: Ctx, minimum: Access) -> dict:
    found = {}
    accounts = repos.collaborators(ctx.view)
    # What deciding each one's access reads, in one batch: not a read per collaborator.
    unit_of_work.prefetch(key for account in accounts
                          for key in access_keys(ctx.repo, int(account.id)))
    for account in accounts:
        if repo_access(account, ctx.repo, ctx.view.owner) >= minimum:
            found[int(account.id)] = account
    return found


def reviewers(ctx: Ctx) -> list:
    """repoGetReviewers: everyone who can read the repository (with the owner), and on
    a public one its watchers and the owning organization's members; active users."""
    found = {**_collaborators(ctx, Access.READ), **_team_members(ctx, Access.READ)}
    owner = ctx.view.owner
    if not is_org(owner):
        found[int(owner.id)] = owner
    if not ctx.repo.private and owner.visibility != "private":
        for account in repos.followers(repos.WATCHES, ctx.view):
            found[int(account.id)] = account
    return [a for a in _sorted(found) if a.active and a.account_type != "org"]


def assignees(ctx: Ctx) -> list:
    """repoGetAssignees: those who may write (the owner when a user, collaborators with
    write, members of teams that write)."""
    found = {**_collaborators(ctx, Access.WRITE), **_team_members(ctx, Access.WRITE)}
    owner = ctx.view.owner
    if not is_org(owner):
        found[int(owner.id)] = owner
    return [a for a in _sorted(found) if a.active and a.account_type != "org"]
