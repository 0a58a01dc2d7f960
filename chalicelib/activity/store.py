"""Feed copies and heatmap days in the table (the layout is ``models.py``'s).

An event's copies and its heatmap count are one transaction, every copy put only if
absent: a redelivered event fails on its first copy (``RECORDED``) and counts nothing
twice."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Iterable, Iterator

from chalicelib.activity.models import ActivityCopy, HeatmapDay
from chalicelib.activity.states import akeys, all_field, public_field
from chalicelib.store import ids, pages, unit_of_work
from chalicelib.store.table import Item

RECORDED = "activity recorded"     # ConditionFailed label: this event was recorded already


def new_activity_id() -> int:
    return ids.next_id("activity")


def new_copy(event_id: str, user_id: int, *, repo_feed: bool, **values) -> ActivityCopy:
    """A feed's copy, not yet written; ``repo_feed``: also the repository's feed."""
    copy = ActivityCopy(*akeys.copy(event_id, user_id), user_id=int(user_id),
                        event_id=event_id, **values)
    order = akeys.order(copy.created, copy.id)
    copy.gsi1pk, copy.gsi1sk = akeys.user_feed(user_id), order
    if repo_feed:
        copy.gsi2pk, copy.gsi2sk = akeys.repo_feed(copy.repo_id), order
    return copy


def new_team_copy(event_id: str, team_id: int, **values) -> ActivityCopy:
    """A team's copy of its organization's activity, not yet written: the organization's
    row (``user_id`` the organization, as Forgejo's team feed shows it) in the team's
    feed partition."""
    copy = ActivityCopy(*akeys.team_copy(event_id, team_id), event_id=event_id, **values)
    copy.gsi1pk, copy.gsi1sk = akeys.team_feed(team_id), akeys.order(copy.created, copy.id)
    return copy


def stage_recorded(copies: Iterable[ActivityCopy], heat: tuple[int, float, bool] | None,
                   event_id: str, team_copies: Iterable[ActivityCopy] = ()) -> None:
    """The copies, and (user, time, public) counted on the user's heatmap day, then the
    teams' copies: an organization with very many teams commits past DynamoDB's 100 items
    in chunks (``unit_of_work``), and staging the teams' copies last keeps the copies a
    redelivery checks and the heatmap count in the first chunk."""
    uow = unit_of_work.current()
    for copy in copies:
        uow.put(copy, label=RECORDED, must_not_exist=True)
    _stage_heat(uow, heat, event_id)
    for copy in team_copies:
        uow.put(copy, label=RECORDED, must_not_exist=True)


def _stage_heat(uow, heat: tuple[int, float, bool] | None, event_id: str) -> None:
    from chalicelib.activity.states import bucket_of, day_of

    if heat is not None:
        user_id, when, public = heat
        day, bucket = day_of(when), bucket_of(when)
        counts = {all_field(bucket): 1}
        if public:
            counts[public_field(bucket)] = 1
        uow.add_counts(HeatmapDay(*akeys.heatmap_day(user_id, day)), counts, label="heatmap",
                       actions=[HeatmapDay.kind.set(HeatmapDay),
                                HeatmapDay.user_id.set(int(user_id)), HeatmapDay.day.set(day),
                                HeatmapDay.last_event.set(event_id)])


def feed(*, user_id: int | None = None, repo_id: int | None = None,
         team_id: int | None = None, since: float | None = None, before: float | None = None,
         page_size: int = 50) -> Iterator[ActivityCopy]:
    """A feed's copies, newest first, a page of its index partition at a time: an
    account's (``user_id``), a repository's (``repo_id``) or a team's (``team_id``);
    ``since``/``before`` bound the time (inclusive, exclusive)."""
    if repo_id is not None:
        index, partition, sort = Item.gsi2, akeys.repo_feed(repo_id), Item.gsi2sk
    elif team_id is not None:
        index, partition, sort = Item.gsi1, akeys.team_feed(team_id), Item.gsi1sk
    else:
        index, partition, sort = Item.gsi1, akeys.user_feed(int(user_id or 0)), Item.gsi1sk
    low = akeys.order(since, 0) if since is not None else None
    high = akeys.order(before, 0) if before is not None else None
    for found in index.query(partition, pages.sort_range(sort, low, high), scan_index_forward=False,
                             page_size=page_size):
        if isinstance(found, ActivityCopy) and (high is None or found.created < before):
            yield found


def prefetch_page(copies: list, viewer_id: int | None, *,
                  members_of: int | None = None) -> None:
    """Everything rendering and filtering a page reads, in one batch: the repositories
    where the copies saw them, their owners, the caller's access to them (collaboration,
    membership), the actors and (``members_of``) the caller's membership of an
    organization."""
    from chalicelib import accounts, orgs, repos

    wanted = []
    if members_of is not None and viewer_id is not None:
        wanted.append(orgs.member_key(int(members_of), viewer_id))
    for copy in copies:
        if copy.repo_owner:
            wanted += repos.repo_preload_keys(copy.repo_owner, copy.repo_name)
        shape = SimpleNamespace(id=int(copy.repo_id), owner_id=int(copy.owner_id))
        wanted += repos.access_keys(shape, viewer_id)
        if copy.act_user_id:
            wanted.append(accounts.account_key(int(copy.act_user_id)))
    unit_of_work.prefetch(wanted)


def heatmap_days(user_id: int, first_day: str) -> list[HeatmapDay]:
    """The user's heatmap days from ``first_day`` on (one Query, oldest first)."""
    return [item for item in HeatmapDay.query(akeys.heatmap(user_id),
                                              HeatmapDay.sk >= f"D#{first_day}")
            if isinstance(item, HeatmapDay)]
