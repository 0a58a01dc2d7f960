"""What every release route and page reads from its request: the repository's releases as
this caller sees them, and the Release record."""
from __future__ import annotations

from chalicelib import accounts
from chalicelib.http.message import ApiRequest
from chalicelib.releases import records as release_records
from chalicelib.releases import service as releases
from chalicelib.repos import caller, current_repo, repo_preload


def _preload_more(req: ApiRequest, user_id: int | None) -> list:
    return releases.preload_more_keys(req.params["owner"], req.params["repo"], user_id,
                                      tag=req.params.get("tag"))


RELEASES = dict(tag="repository", scope="repository", preload=repo_preload,
                preload_more=_preload_more)


def ctx_of(req: ApiRequest) -> releases.Ctx:
    return releases.context(caller(req), current_repo(req))


def render(req: ApiRequest, ctx: releases.Ctx, release) -> dict:
    return release_records.release(release, ctx.view,
                                   accounts.user_record(ctx.publisher(release), None))
