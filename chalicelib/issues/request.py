"""What every issue route and page reads from its request: the tracker as this caller sees
it (with the keys to preload alongside the token) and the renderer of its records."""
from __future__ import annotations

from chalicelib.http.message import ApiRequest
from chalicelib.issues import context as ictx
from chalicelib.issues import records as issue_records
from chalicelib.repos import caller, current_repo, repo_preload


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def issue_preload_more(req: ApiRequest, user_id: int | None) -> list:
    item_id = _int(req.params.get("id"))
    return ictx.preload_more_keys(
        req.params["owner"], req.params["repo"], user_id, number=_int(req.params.get("index")),
        comment_id=item_id if "/comments/" in req.path else None,
        time_id=item_id if "/times/" in req.path else None)


ISSUE = dict(tag="issue", scope="issue", preload=repo_preload, preload_more=issue_preload_more)


def ctx_of(req: ApiRequest) -> ictx.Ctx:
    return ictx.context(caller(req), current_repo(req))


class Renderer:
    """Builds records for one request: one tracker read, accounts from snapshots."""

    def __init__(self, req: ApiRequest, ctx: ictx.Ctx):
        self.req, self.ctx = req, ctx
        self.tracker = ctx.tracker()
        self.fresh = ictx.fresh_accounts(ctx)

    def issue(self, item) -> dict:
        labels = [(int(i), self.tracker.labels[int(i)]) for i in item.label_ids
                  if int(i) in self.tracker.labels]
        labels.sort(key=lambda kv: (kv[1].get("name", ""), kv[0]))
        milestone_id = int(item.milestone_id or 0)
        milestone = (milestone_id, self.tracker.milestones[milestone_id]) \
            if milestone_id in self.tracker.milestones else None
        return issue_records.issue(item, self.ctx.view, self.req.actor,
                             poster=ictx.account_from(item.poster, self.fresh),
                             assignees=ictx.assignee_accounts(item, self.fresh),
                             labels=labels, milestone_entry=milestone,
                             pin_order=self.tracker.pin_order(item))

    def comment(self, item, is_pull: bool = False) -> dict:
        return issue_records.comment(item, self.ctx.view, self.req.actor,
                               poster=ictx.account_from(item.poster, self.fresh), is_pull=is_pull)

    def labels(self, ids) -> list[dict]:
        found = [(int(i), self.tracker.labels[int(i)]) for i in ids if int(i) in self.tracker.labels]
        found.sort(key=lambda kv: (kv[1].get("name", ""), kv[0]))
        return [issue_records.label(i, entry, self.ctx.view) for i, entry in found]
