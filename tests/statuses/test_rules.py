"""Commit statuses' rules, on the in-memory twin (the fast layer): the combined state of
a commit (the worst latest status of each context, ``error`` shown as ``failure``), the
summary that keeps the latest per context, who may report, which commit a status names,
the per-commit index and the list's orders and filter, and the state checked at the
HTTP edge."""
from __future__ import annotations

import base64

import pytest

from chalicelib import clock, contents, repos, statuses
from chalicelib.contents import service as files
from chalicelib.contents.options import CreateFileOptions
from chalicelib.errors import InvalidInput, PermissionDenied
from chalicelib.statuses import service
from chalicelib.statuses.options import CreateStatusOption
from tests import memory_scene as scene

NOT_WRITER = "user should have a permission to write to a repo"


class Ci(dict):
    """alice's public ``ci`` (with a first commit): bob writes to it, carol reads it,
    dave is a stranger.  ``ci["bob"]`` is (view, caller) as bob sees it now."""

    def __missing__(self, name):
        caller = scene.caller(self.people[name] if name else None)
        return repos.view_of(repos.repo_by_id(self.repo_id), caller), caller

    def head(self, branch="main"):
        return contents.branch_info(self.repo_id, branch).commit_id

    def post(self, who, sha, state, context="", **fields):
        option = CreateStatusOption(state=state, context=context, **fields)
        return service.create_status(*self[who], sha, option).status

    def combined(self, ref="main", who="alice", **paging):
        return service.combined_status(*self[who], ref, **paging)

    def summary(self, sha):
        return statuses.status_summary(self.repo_id, sha)


@pytest.fixture
def ci(memory):
    found = Ci()
    found.people, view = scene.shared_repo("ci", others=("dave",))
    found.people[None] = None
    found.repo_id = int(view.repo.id)
    return found


def latest_states(summary):
    return {s.context: s.state for s in summary.latest.values()}


def test_the_combined_state_is_the_worst_latest_status_of_each_context(ci):
    sha = ci.head()
    ci.post("bob", sha, "success", "build")
    ci.post("bob", sha, "pending", "lint")
    assert ci.combined().state == "pending"
    ci.post("bob", sha, "success", " lint ")                # the later status of lint wins
    assert ci.combined().state == "success"
    ci.post("bob", sha, "warning", "docs")
    assert ci.combined().state == "warning"
    ci.post("bob", sha, "error", "deploy")                  # the worst, shown as failure
    combined = ci.combined()
    assert (combined.sha, combined.state, combined.total) == (sha, "failure", 4)
    assert service.combined_state(ci.repo_id, sha) == "failure"
    # The summary keeps one latest status per context and counts every status.
    summary = ci.summary(sha)
    assert summary.count == 5
    assert latest_states(summary) == {"build": "success", "lint": "success",
                                      "docs": "warning", "deploy": "error"}
    # A page of contexts, the most recently updated first, is combined on its own.
    page = ci.combined(limit=2)
    assert [s.status.context for s in page.shown] == ["docs", "deploy"]
    assert (page.state, page.total) == ("failure", 4)
    assert ci.combined(offset=2, limit=2).state == "success"
    ci.post("bob", sha, "skipped", "deploy")
    assert service.combined_state(ci.repo_id, sha) == "warning"


def test_only_writers_report_statuses_and_the_reporter_is_kept(ci):
    sha = ci.head()
    for name in ("carol", "dave", None):                   # a reader, a stranger, anonymous
        with pytest.raises(PermissionDenied, match=NOT_WRITER):
            ci.post(name, sha, "success", "build")
    assert not ci.summary(sha).exists
    status = ci.post("bob", sha, "success", "build", description="  all green ")
    assert (status.creator_id, status.creator["login"], status.description) == (
        int(ci.people["bob"].id), "bob", "all green")
    # Readers and anonymous callers read what writers reported.
    for name in ("carol", None):
        assert ci.combined(who=name).state == "success"
        shown, total = service.list_statuses(*ci[name], sha)
        assert ([s.creator.login for s in shown], total) == (["bob"], 1)


def test_a_status_names_a_commit_of_the_repository(ci):
    sha = ci.head()
    # A branch and an abbreviated id are stored under the full id.
    assert ci.post("alice", "main", "success", "a").sha == sha
    assert ci.post("alice", sha[:8], "success", "b").sha == sha
    assert ci.summary(sha).count == 2
    for name in ("0" * 40, "no-such-branch"):
        with pytest.raises(InvalidInput, match=f"No commit found for SHA: {name}"):
            ci.post("alice", name, "success", "c")
    # Only http(s) links are taken as the status's target.
    with pytest.raises(InvalidInput, match=r"\[TargetURL\]"):
        ci.post("alice", sha, "success", "c", target_url="javascript:alert(1)")
    assert ci.post("alice", sha, "success", "c", target_url="https://ci.example/1").index == 3
    # An unknown ref is no error: it has no statuses.
    nothing = ci.combined("no-such-ref")
    assert (nothing.sha, nothing.state, nothing.shown, nothing.total) == ("", "", [], 0)
    assert service.combined_state(ci.repo_id, "f" * 40) == ""


def test_indexes_count_per_commit_and_the_list_sorts_and_filters(ci):
    first = ci.head()
    view, caller = ci["alice"]
    option = CreateFileOptions(content=base64.b64encode(b"more\n").decode())
    second = files.change_one(view, caller.user, option, "more.txt").at.commit_id
    with clock.frozen(1_700_000_000) as at:
        for state, context in (("pending", "a"), ("failure", "b"), ("success", "a")):
            ci.post("bob", first, state, context)
            at.advance(60)
        assert ci.post("bob", second, "success", "a").index == 1     # its own numbering

    def listed(**query):
        shown, total = service.list_statuses(*ci["alice"], first, **query)
        return [s.status.index for s in shown], total

    assert listed() == ([3, 2, 1], 3)                          # newest first
    assert listed(sort="oldest") == ([1, 2, 3], 3)
    # Forgejo's index orders are named the wrong way round; clients see its order.
    assert listed(sort="leastindex") == ([3, 2, 1], 3)
    assert listed(sort="highestindex") == ([1, 2, 3], 3)
    assert listed(state="success") == ([3], 1)
    assert listed(state="bogus") == ([3, 2, 1], 3)            # an unknown filter filters none
    assert listed(sort="oldest", offset=1, limit=1) == ([2], 3)
    created = [s.status.created for s in service.list_statuses(*ci["alice"], first,
                                                               sort="oldest")[0]]
    assert created == [1_700_000_000, 1_700_000_060, 1_700_000_120]


def test_the_state_is_checked_at_the_edge(fast_api):
    alice = scene.user("alice")
    scene.repo(alice, "ci", auto_init=True)
    token = fast_api.create_token("alice", scene.PASSWORD)
    sha = fast_api.get("/repos/alice/ci/branches/main", token=token).json["commit"]["id"]
    path = f"/repos/alice/ci/statuses/{sha}"
    for body in ({}, {"state": "bogus"}, {"state": ""}, {"state": "success",
                                                         "context": "x" * 256}):
        refused = fast_api.post(path, token=token, json=body)
        assert refused.status == 422, (body, refused)
    bogus = fast_api.post(path, token=token, json={"state": "bogus"})
    assert "[State]" in bogus.json["message"]
    assert fast_api.get(path, token=token).json == []                    # nothing was stored
    made = fast_api.post(path, token=token, json={"state": "warning", "context": "ci"})
    # 200 by default ([api] STATUS_ROUTES = seed; Forgejo's 201 is test_statuses.py's).
    assert (made.status, made.json["status"], made.json["id"]) == (200, "warning", 1)
