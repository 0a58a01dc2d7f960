"""What every pull request route and page reads from its request: the tracker as this
caller sees it and the renderer of PullRequest records."""
from __future__ import annotations

from chalicelib.pulls import records as pull_records
from chalicelib.accounts import records as account_records
from chalicelib.http.message import ApiRequest
from chalicelib.issues.request import Renderer, issue_preload_more
from chalicelib.repos.request import caller, current_repo, repo_preload, repo_record
from chalicelib.pulls import views as pull_views
from chalicelib.pulls import service as pulls
from chalicelib.issues.context import Ctx, account_from


PULL = dict(tag="repository", scope="repository", preload=repo_preload,
            preload_more=issue_preload_more)


def ctx_of(req: ApiRequest) -> Ctx:
    return pulls.pull_context(caller(req), current_repo(req))


class PullRenderer(Renderer):
    """Issue rendering plus the base and head repositories, each rendered once."""

    def __init__(self, req: ApiRequest, ctx: Ctx):
        super().__init__(req, ctx)
        self.base_record = repo_record(req, ctx.view)
        self.head_records: dict[int, dict | None] = {ctx.repo_id: self.base_record}

    def pull(self, item) -> dict:
        pull = pulls.fields_of(item)
        if pull.head_repo_id not in self.head_records:
            view = pull_views.head_repo_view(self.ctx, item)
            self.head_records[pull.head_repo_id] = repo_record(self.req, view) if view else None
        merged_by = None
        if pull.merged and pull.merged_by:
            merged_by = account_records.user(account_from(pull.merged_by, self.fresh), self.req.actor)
        asked = pull_records.requested(pull, self.ctx.view.owner, self.req.actor,
                                       lambda s: account_from(s, self.fresh))
        return pull_records.pull_request(
            self.issue(item), item, pull, number=int(item.number), base_repo=self.base_record,
            head_repo=self.head_records[pull.head_repo_id], merged_by=merged_by,
            requested=asked)
