"""Activity feeds and the heatmap as the API reads them (Forgejo's ``GetFeeds`` and
``GetUserHeatmapDataByUser`` rules, ``models/activities``).

- A feed is read newest first, a page of its index partition at a time; each page is
  filtered as Forgejo's query filters: only activities of repositories the caller may
  read, none of a private repository unless the feed includes them (a user's own feed
  to themself and site admins, an organization's to its members and site admins, a
  repository's and a team's always), none by an actor who hides their activity (to others), and
  with ``date`` those of that (UTC) day.
- A user who hides their activity (``hide_activity``) shows an empty feed and heatmap to
  everyone but themself and site admins.
- The heatmap counts the user's own contributions per 15-minute bucket over the last
  year, ascending; to others only those in public repositories (Forgejo filters by the
  caller's access: a collaborator on a private repository sees less here).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import islice
from typing import TYPE_CHECKING, Any

from chalicelib import accounts, clock, repos
from chalicelib.activity import states, store

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.activity.models import ActivityCopy

# Copies read past the page's end, at most, to fill it when many are hidden.
MAX_READ = 1000


@dataclass(frozen=True)
class FeedQuery:
    user_id: int | None = None          # an account's feed (a user's or an organization's)
    repo_id: int | None = None          # or a repository's
    # Or a team's (its record): only repositories the team covers now, as Forgejo reads
    # the team's repositories when it lists the feed.
    team: Any = None                    # (the orgs face names no team type)
    only_performed_by: bool = False
    include_private: bool = False
    # Private ones too for this organization's members (decided with the page's batch).
    members_of: int | None = None
    day: float | None = None            # the start of the day asked for (``date``)


@dataclass(frozen=True)
class Shown:
    """An activity as a caller may see it: its copy, its repository (as the caller sees
    it) and its actor."""
    copy: "ActivityCopy"
    view: "repos.RepoView"
    actor: "Account"


def parse_date(text: str | None) -> float | None:
    """``date`` as Forgejo takes it (2006-01-02); anything else is ignored, as Forgejo
    ignores it (with a warning)."""
    if not text:
        return None
    try:
        day = datetime.strptime(text.strip(), "%Y-%m-%d").replace(tzinfo=timezone.utc)
    except ValueError:
        return None
    return day.timestamp()


def privileged(viewer: "Account | None", account: "Account") -> bool:
    return viewer is not None and (viewer.is_admin or int(viewer.id) == int(account.id))


def activity_hidden(viewer: "Account | None", account: "Account") -> bool:
    """Forgejo's ActivityReadable, negated: the account hides its activity from others."""
    return bool(account.keep_activity_private) and not privileged(viewer, account)


def feed_page(caller: "repos.Caller", query: FeedQuery, *, offset: int,
              limit: int) -> tuple[list[Shown], int]:
    """One page of the feed as the caller may see it, and a total that says whether
    another page follows (the shown ones before and on this page, plus one when more
    follow: the feed is never counted through)."""
    want = offset + limit + 1
    before = query.day + states.DAY_SECONDS if query.day is not None else None
    team_id = int(query.team.id) if query.team is not None else None
    found = store.feed(user_id=query.user_id, repo_id=query.repo_id, team_id=team_id,
                       since=query.day, before=before, page_size=min(want, MAX_READ))
    shown: list[Shown] = []
    read = 0
    while len(shown) < want and read < want + MAX_READ:
        chunk = list(islice(found, min(want, MAX_READ)))
        if not chunk:
            break
        read += len(chunk)
        shown += visible(caller, query, chunk)
    return shown[offset:offset + limit], min(len(shown), want)


def visible(caller: "repos.Caller", query: FeedQuery, copies: list) -> list[Shown]:
    """The copies the caller may see, with their repositories and actors (one batch;
    one more for a repository renamed or transferred since)."""
    viewer = caller.user
    user_id = int(viewer.id) if viewer is not None else None
    if query.only_performed_by:
        copies = [c for c in copies if int(c.act_user_id) == int(query.user_id or 0)]
    store.prefetch_page(copies, user_id, members_of=query.members_of)
    include_private = query.include_private or _member(viewer, query.members_of)
    found = {}
    for copy in copies:
        repo = repos.repo_by_name(copy.repo_owner, copy.repo_name) if copy.repo_owner else None
        if repo is not None and int(repo.id) == int(copy.repo_id):
            found[int(repo.id)] = repo
    moved = sorted({int(c.repo_id) for c in copies} - set(found))
    if moved:
        found.update({int(r.id): r for r in repos.repos_by_ids(moved)})
        store.prefetch_page([c for c in copies if int(c.repo_id) in moved], user_id)
    shown = []
    for copy in copies:
        repo = found.get(int(copy.repo_id))
        owner = accounts.account_by_id(int(repo.owner_id)) if repo is not None else None
        actor = accounts.account_by_id(int(copy.act_user_id)) if copy.act_user_id else None
        if owner is None or actor is None:
            continue        # the repository or the actor is gone
        if repo.private and not include_private:
            continue
        if query.team is not None and not team_covers(query.team, repo):
            continue
        if activity_hidden(viewer, actor):
            continue
        access = repos.repo_access(viewer, repo, owner, public_only=caller.public_only)
        if access < repos.Access.READ:
            continue
        shown.append(Shown(copy, repos.RepoView(repo, owner, access), actor))
    return shown


def team_covers(team: Any, repo: "repos.Repo") -> bool:
    """Does the team cover the repository now: one of its organization's when the team
    includes every repository, else one given to it (a copy outlives a repository
    taken from the team or transferred away)."""
    from chalicelib import orgs

    if int(repo.owner_id) != int(team.org_id):
        return False
    return bool(team.includes_all_repositories) or orgs.team_covers(team, repo)


def _member(viewer: "Account | None", org_id: int | None) -> bool:
    from chalicelib import orgs

    if viewer is None or org_id is None:
        return False
    return orgs.get_member(int(org_id), int(viewer.id)) is not None


def heatmap(viewer: "Account | None", user: "Account") -> list[tuple[int, int]]:
    """(bucket start, contributions) over the last year, oldest first."""
    if activity_hidden(viewer, user):
        return []
    now = clock.now()
    cutoff = int(now) - states.HEATMAP_SECONDS
    field = states.all_field if privileged(viewer, user) else states.public_field
    found = []
    for item in store.heatmap_days(int(user.id), states.day_of(cutoff)):
        start = int(datetime.strptime(item.day, "%Y-%m-%d")
                    .replace(tzinfo=timezone.utc).timestamp())
        for bucket in range(states.BUCKETS_PER_DAY):
            count = getattr(item, field(bucket), None)
            stamp = start + bucket * states.BUCKET_SECONDS
            if count and stamp + states.BUCKET_SECONDS > cutoff and stamp <= now:
                found.append((stamp, int(count)))
    return found
