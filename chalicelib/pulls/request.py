"""What every pull request route and page reads from its request: the tracker as this
caller sees it and the renderer of PullRequest records."""
from __future__ import annotations

from chalicelib import accounts, contents
from chalicelib.accounts import account_from
from chalicelib.http.message import ApiRequest
from chalicelib.issues import Ctx, IssueRenderer, issue_preload_more
from chalicelib.pulls import records as pull_records
from chalicelib.pulls import service as pulls
from chalicelib.pulls import views as pull_views
from chalicelib.repos import caller, current_repo, repo_preload, repo_record
from chalicelib.store import unit_of_work

PULL = dict(tag="repository", scope="repository", preload=repo_preload,
            preload_more=issue_preload_more)


def ctx_of(req: ApiRequest) -> Ctx:
    return pulls.pull_context(caller(req), current_repo(req))


class PullRenderer(IssueRenderer):
    """Issue rendering plus the base and head repositories, each rendered once."""

    def __init__(self, req: ApiRequest, ctx: Ctx):
        super().__init__(req, ctx)
        self.base_record = repo_record(req, ctx.view)
        self.head_records: dict[int, dict | None] = {ctx.repo_id: self.base_record}

    def pulls(self, items) -> list[dict]:
        """Records of a page of pull requests: the branch tips of them all in one read."""
        self._read_tips(items)
        return [self.pull(item) for item in items]

    def _read_tips(self, items) -> None:
        """The branch records of the open pull requests' bases and heads, strongly
        consistent, in one batch (none when every pull request is closed): a pull request
        whose base or head moved since it was examined reads "checking" (``mergeable``
        false) until the push consumer has examined it again — never a stale ``true``."""
        keys = []
        for item in items:
            pull = pulls.fields_of(item)
            if item.is_open and not pull.merged:
                keys.append(contents.branch_key(self.ctx.repo_id, pull.base_branch))
                if pull.head_branch and not pull.head_gone:
                    keys.append(contents.branch_key(pull.head_repo_id, pull.head_branch))
        unit_of_work.prefetch(keys, consistent=True)

    def _examined_on_tips(self, item, pull) -> bool:
        """Whether the stored mergeability was computed on today's tips of both branches."""
        if not item.is_open or pull.merged:
            return True
        self._read_tips([item])
        base = contents.branch_info(self.ctx.repo_id, pull.base_branch)
        if base is None or base.commit_id != pull.base_sha:
            return False
        if pull.head_gone or not pull.head_branch:
            return True
        head = contents.branch_info(pull.head_repo_id, pull.head_branch)
        return head is None or head.commit_id == pull.head_sha

    def pull(self, item) -> dict:
        pull = pulls.fields_of(item)
        if pull.head_repo_id not in self.head_records:
            view = pull_views.head_repo_view(self.ctx, item)
            self.head_records[pull.head_repo_id] = repo_record(self.req, view) if view else None
        merged_by = None
        if pull.merged and pull.merged_by:
            merged_by = accounts.user_record(account_from(pull.merged_by, self.fresh), self.req.actor)
        asked = pull_records.requested(pull, self.ctx.view.owner, self.req.actor,
                                       lambda s: account_from(s, self.fresh))
        return pull_records.pull_request(
            self.issue(item), item, pull, number=int(item.number), base_repo=self.base_record,
            head_repo=self.head_records[pull.head_repo_id], merged_by=merged_by,
            requested=asked, checking=not self._examined_on_tips(item, pull))
