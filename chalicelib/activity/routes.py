"""Activity feeds and the heatmap (Forgejo's ``user``, ``organization`` and
``repository`` tags): a user's, an organization's, a team's and a repository's feed, a
user's heatmap.

A feed page reads the named account (one Query of the name index; a repository's and a
team's feed have theirs from the gateway's batches), a page of the feed's index
partition (one Query), then the page's repositories, their owners, the caller's access
to them and the actors in one batch.  The heatmap reads the user and one Query of their heatmap days.
"""
from __future__ import annotations

from chalicelib import accounts, orgs
from chalicelib.activity import records as activity_records
from chalicelib.activity import service as svc
from chalicelib.http import paging
from chalicelib.http.message import ApiRequest, ApiResponse
from chalicelib.http.router import Param, route
from chalicelib.repos import IN_REPO, PAGE, caller, current_repo

DATE = Param("date", "string", "the date of the activities to be found")
FEEDS = {200: "ActivityList", 404: "notFound"}


def _true(req: ApiRequest, name: str) -> bool:
    return (req.arg(name) or "").strip().lower() in ("true", "1", "t")


def _feed(req: ApiRequest, query: svc.FeedQuery) -> ApiResponse:
    page = paging.page_of(req)
    shown, total = svc.feed_page(caller(req), query, offset=page.offset, limit=page.limit)
    resp = ApiResponse.json([activity_records.activity(s, req.actor) for s in shown])
    return paging.set_headers(resp, req, page, total)


@route("GET", "/users/{username}/activities/feeds", "userListActivityFeeds",
       summary="List a user's activity feeds",
       query=(Param("only-performed-by", "boolean",
                    "if true, only show actions performed by the requested user"),
              DATE, *PAGE),
       responses=FEEDS, tag="user", scope="user")
def user_list_activity_feeds(req: ApiRequest) -> ApiResponse:
    user = accounts.get_visible_user(req.actor, req.params["username"])
    if svc.activity_hidden(req.actor, user):
        return paging.set_headers(ApiResponse.json([]), req, paging.page_of(req), 0)
    return _feed(req, svc.FeedQuery(user_id=int(user.id),
                                    only_performed_by=_true(req, "only-performed-by"),
                                    include_private=svc.privileged(req.actor, user),
                                    day=svc.parse_date(req.arg("date"))))


@route("GET", "/orgs/{org}/activities/feeds", "orgListActivityFeeds",
       summary="List an organization's activity feeds", query=(DATE, *PAGE),
       responses=FEEDS, tag="organization", scope="organization")
def org_list_activity_feeds(req: ApiRequest) -> ApiResponse:
    org = orgs.get_org(req.actor, req.params["org"])
    admin = req.actor is not None and req.actor.is_admin
    return _feed(req, svc.FeedQuery(user_id=int(org.id), include_private=admin,
                                    members_of=int(org.id),
                                    day=svc.parse_date(req.arg("date"))))


def _team_id(req: ApiRequest) -> int | None:
    try:
        return int(req.params["id"])
    except ValueError:
        return None     # the handler answers it (after authentication)


def _team_preload(req: ApiRequest) -> list:
    team_id = _team_id(req)
    return orgs.team_preload_keys(team_id) if team_id is not None else []


def _team_preload_more(req: ApiRequest, user_id: int | None) -> list:
    team_id = _team_id(req)
    return orgs.team_preload_more_keys(team_id, user_id) if team_id is not None else []


# As the other /teams/{id} routes declare themselves (``organization`` tag and scope):
# the team's id link with the credential, then the team, its organization and the
# caller's membership in the gateway's second batch.
TEAM = dict(orgs.ORG, preload=_team_preload, preload_more=_team_preload_more)


@route("GET", "/teams/{id}/activities/feeds", "orgListTeamActivityFeeds",
       summary="List a team's activity feeds", signed_in=True, query=(DATE, *PAGE),
       responses=FEEDS, **TEAM)
def org_list_team_activity_feeds(req: ApiRequest) -> ApiResponse:
    # Who may see the team reads its feed (orgGetTeam's rule); 404 for anyone else.
    team, _ = orgs.find_team(req.actor, req.int_param("id"))
    return _feed(req, svc.FeedQuery(team=team, include_private=True,
                                    day=svc.parse_date(req.arg("date"))))


@route("GET", "/repos/{owner}/{repo}/activities/feeds", "repoListActivityFeeds",
       summary="List a repository's activity feeds", query=(DATE, *PAGE),
       responses=FEEDS, **IN_REPO)
def repo_list_activity_feeds(req: ApiRequest) -> ApiResponse:
    view = current_repo(req)
    return _feed(req, svc.FeedQuery(repo_id=int(view.repo.id), include_private=True,
                                    day=svc.parse_date(req.arg("date"))))


@route("GET", "/users/{username}/heatmap", "userGetHeatmapData",
       summary="Get a user's heatmap", responses={200: "UserHeatmapDataList", 404: "notFound"},
       tag="user", scope="user")
def user_get_heatmap_data(req: ApiRequest) -> ApiResponse:
    user = accounts.get_visible_user(req.actor, req.params["username"])
    return ApiResponse.json([activity_records.heatmap_data(stamp, count)
                             for stamp, count in svc.heatmap(req.actor, user)])
