"""Pull requests through the API (in-process, under moto): open, list, get, edit, merge,
what a pull request shows, and how pushes keep it current.  Branches are pushed
through the smart HTTP route with packs built here (tests.repos.test_events_repos); the real
git CLI against the local runtime is tests/pulls/test_pulls_git.py."""
from __future__ import annotations

import time

import pytest

from chalicelib import events
from chalicelib.http import schemas
from chalicelib.jobs import consumers
from tests.conftest import drain_outbox
from tests.repos.test_events_repos import ZERO, make_commit, push
from tests.issues.test_issues import ISSUE_NULLABLE, assert_matches_forgejo

R = "/repos/alice/proj"
PULL_NULLABLE = ("milestone", "assignee", "assignees", "closed_at", "due_date", "merged_at",
                 "merge_commit_sha", "merged_by")


@pytest.fixture
def scene(api):
    """alice owns public ``proj`` with ``main`` (README) and branch ``feature`` (one more
    file); bob may write; carol is a stranger."""
    tokens = {}
    for name in ("alice", "bob", "carol"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    assert api.post("/user/repos", token=tokens["alice"], json={"name": "proj"}).status == 201
    assert api.put(f"{R}/collaborators/bob", token=tokens["alice"],
                   json={"permission": "write"}).status == 204
    base, feature = push_main_and_feature(api, tokens["alice"], "proj")
    drain_outbox()
    tokens.update(base=base.id.decode(), feature=feature.id.decode())
    return tokens


def push_main_and_feature(api, token, repo: str):
    """``main`` (a README) and ``feature`` (one commit more, adding a.txt), pushed to
    ``alice/<repo>``: the commits, base first."""
    base, objs = make_commit(None, {"README.md": b"hello\n"}, "initial")
    feature, more = make_commit(base.id.decode(), {"README.md": b"hello\n", "a.txt": b"a\n"},
                                "add a")
    report = push(api, token, repo, [
        (ZERO, base.id.decode(), "refs/heads/main"),
        (ZERO, feature.id.decode(), "refs/heads/feature")], [*objs, *more])
    assert "ok refs/heads/feature" in report, report
    return base, feature


def open_pull(api, token, head="feature", base="main", title="Add a", **extra):
    r = api.post(f"{R}/pulls", token=token, json={"head": head, "base": base, "title": title,
                                                  **extra})
    assert r.status == 201, r
    return r.json


def deliver_events() -> list:
    """Run every waiting event through the consumers, as the queue worker would."""
    found = drain_outbox()
    for event in found:
        consumers.handle_message(events.to_message(event))
    return found


def branch_to(api, token, branch: str, old: str, files: dict[str, bytes], message="more",
              parent: str | None = None) -> str:
    commit, objs = make_commit(parent or (old if old != ZERO else None), files, message)
    report = push(api, token, "proj", [(old, commit.id.decode(), f"refs/heads/{branch}")], objs)
    assert f"ok refs/heads/{branch}" in report, report
    return commit.id.decode()


def test_open_get_and_record(api, scene):
    pull = open_pull(api, scene["carol"], body="please")
    assert set(pull) == set(schemas.RECORDS["PullRequest"])
    assert_matches_forgejo(dict(pull, base={}, head={}), "PullRequest", PULL_NULLABLE)
    assert pull["number"] == 1 and pull["state"] == "open" and pull["user"]["login"] == "carol"
    assert pull["mergeable"] is True and pull["merged"] is False
    assert pull["head"]["label"] == "feature" and pull["head"]["sha"] == scene["feature"]
    # While the head branch exists, its name is the ref (Forgejo's convert/pull.go).
    assert pull["head"]["ref"] == "feature" and pull["head"]["repo_id"] == \
        pull["base"]["repo_id"]
    assert pull["base"]["label"] == pull["base"]["ref"] == "main"
    assert pull["base"]["sha"] == scene["base"] and pull["merge_base"] == scene["base"]
    assert (pull["additions"], pull["deletions"], pull["changed_files"]) == (1, 0, 1)
    assert pull["html_url"] == "http://nimbus.test/alice/proj/pulls/1"
    assert pull["diff_url"].endswith("/pulls/1.diff")
    got = api.get(f"{R}/pulls/1", token=scene["carol"]).json
    # The repositories' records moved on (open_pr_counter); the rest is the same.
    assert {k: v for k, v in got.items() if k not in ("base", "head")} == \
        {k: v for k, v in pull.items() if k not in ("base", "head")}
    assert got["base"]["repo"]["open_pr_counter"] == 1
    # It is an issue too: same number sequence, pull_request set, comments work.
    issue = api.get(f"{R}/issues/1").json
    assert issue["pull_request"] == {"merged": False, "merged_at": None, "draft": False,
                                     "html_url": "http://nimbus.test/alice/proj/pulls/1"}
    assert_matches_forgejo(issue, "Issue", ISSUE_NULLABLE)
    assert api.post(f"{R}/issues/1/comments", token=scene["bob"],
                    json={"body": "looks good"}).status == 201
    assert api.get(f"{R}/pulls/1").json["comments"] == 1
    assert api.post(f"{R}/issues", token=scene["bob"], json={"title": "x"}).json["number"] == 2
    assert api.get(R).json["open_pr_counter"] == 1
    # refs/pull/1/head names the head in the base repository.
    refs = api.get("/alice/proj.git/info/refs?service=git-upload-pack", raw=True).body
    assert f"{scene['feature']} refs/pull/1/head".encode() in refs
    assert api.get(f"{R}/pulls/2").status == 404      # an issue, not a pull request
    assert api.get(f"{R}/pulls/9").status == 404


def test_bad_input_answers_forgejo_shapes_and_writes_nothing(api, scene):
    alice = scene["alice"]
    cases = [
        ({"head": "feature", "base": "feature", "title": "t"}, 422),
        ({"head": "main", "base": "main", "title": "t"}, 422),
        ({"head": "nope", "base": "main", "title": "t"}, 404),
        ({"head": "feature", "base": "nope", "title": "t"}, 404),
        ({"head": "ghost:feature", "base": "main", "title": "t"}, 404),
        ({"head": "carol:feature", "base": "main", "title": "t"}, 404),   # no fork of carol's
        ({"head": "a:b:c", "base": "main", "title": "t"}, 404),
        ({"head": "feature", "base": "main"}, 422),
        ({"head": "feature", "base": "main", "title": "x" * 256}, 422),
        ({"head": "feature", "base": "main", "title": "t", "milestone": "x"}, 422),
    ]
    for body, status in cases:
        r = api.post(f"{R}/pulls", token=alice, json=body)
        assert r.status == status, (body, r)
        assert "message" in r.json
    assert api.post(f"{R}/pulls", json={"head": "feature", "base": "main",
                                        "title": "t"}).status == 401
    assert api.get(f"{R}/pulls?state=all").json == []
    assert api.get(R).json["open_pr_counter"] == 0
    open_pull(api, alice)
    dup = api.post(f"{R}/pulls", token=alice, json={"head": "feature", "base": "main",
                                                    "title": "again"})
    assert dup.status == 409 and "already exists" in dup.json["message"]
    assert api.patch(f"{R}/pulls/1", token=alice, json={"state": "sideways"}).status == 422
    assert api.post(f"{R}/pulls/1/merge", token=alice, json={"Do": "octopus"}).status == 422
    assert api.get(f"{R}/pulls?state=all").headers["x-total-count"] == "1"


def test_list_filters_sorts_and_pages(api, scene):
    alice, bob = scene["alice"], scene["bob"]
    label = api.post(f"{R}/labels", token=alice, json={"name": "bug", "color": "#ff0000"}).json
    for n, branch in enumerate(("b1", "b2", "b3")):
        branch_to(api, alice, branch, ZERO, {"README.md": b"hello\n", f"{branch}.txt": b"x\n"},
                  parent=scene["base"])
        open_pull(api, bob if n == 1 else alice, head=branch, title=f"pull {branch}",
                  labels=[label["id"]] if n == 2 else [])
    listed = api.get(f"{R}/pulls")
    assert [p["number"] for p in listed.json] == [3, 2, 1]
    assert listed.headers["x-total-count"] == "3"
    assert [p["number"] for p in api.get(f"{R}/pulls?sort=oldest").json] == [1, 2, 3]
    assert [p["number"] for p in api.get(f"{R}/pulls?poster=bob").json] == [2]
    assert [p["number"] for p in api.get(f"{R}/pulls?labels={label['id']}").json] == [3]
    page = api.get(f"{R}/pulls?limit=2&page=2")
    assert [p["number"] for p in page.json] == [1] and page.headers["x-total-count"] == "3"
    time.sleep(1.05)     # updated_at has Forgejo's whole seconds
    assert api.patch(f"{R}/pulls/2", token=bob, json={"title": "renamed"}).status == 201
    assert [p["number"] for p in api.get(f"{R}/pulls?sort=recentupdate").json][0] == 2
    assert [p["number"] for p in api.get(f"{R}/pulls?sort=leastupdate").json][-1] == 2
    assert api.patch(f"{R}/pulls/1", token=alice, json={"state": "closed"}).status == 201
    assert [p["number"] for p in api.get(f"{R}/pulls?state=closed").json] == [1]
    assert [p["number"] for p in api.get(f"{R}/pulls?state=all").json] == [3, 2, 1]
    assert api.get(f"{R}/pulls?sort=sideways").status == 422
    assert api.get(f"{R}/issues?type=pulls&state=all").headers["x-total-count"] == "3"
    assert api.get(R).json["open_pr_counter"] == 2


def test_edit_permissions_base_and_maintainer_edit(api, scene):
    alice, bob, carol = scene["alice"], scene["bob"], scene["carol"]
    open_pull(api, carol)
    assert api.patch(f"{R}/pulls/1", json={"title": "x"}).status == 401
    r = api.patch(f"{R}/pulls/1", token=carol, json={"title": "Better", "body": "b",
                                                    "allow_maintainer_edit": True})
    assert r.status == 201 and r.json["title"] == "Better" and r.json["allow_maintainer_edit"]
    assert api.patch(f"{R}/pulls/1", token=bob,
                     json={"allow_maintainer_edit": False}).status == 403
    dave = api.create_user("dave") and api.create_token("dave")
    assert api.patch(f"{R}/pulls/1", token=dave, json={"title": "mine"}).status == 403
    branch_to(api, alice, "develop", ZERO, {"README.md": b"hello\n", "d.txt": b"d\n"},
              parent=scene["base"])
    moved = api.patch(f"{R}/pulls/1", token=alice, json={"base": "develop"}).json
    assert moved["base"]["ref"] == "develop" and moved["merge_base"] == scene["base"]
    assert api.patch(f"{R}/pulls/1", token=alice, json={"base": "nope"}).status == 404
    assert api.get(f"{R}/pulls/develop/feature").json["number"] == 1
    assert api.get(f"{R}/pulls/main/feature").status == 404


def test_private_pull_requests_are_invisible(api, scene):
    alice, carol = scene["alice"], scene["carol"]
    assert api.post("/user/repos", token=alice, json={"name": "hidden", "private": True,
                                                      "auto_init": True}).status == 201
    assert api.get("/repos/alice/hidden/pulls", token=carol).status == 404
    assert api.get("/repos/alice/hidden/pulls/1", token=carol).status == 404
    assert api.post("/repos/alice/hidden/pulls", token=carol, json={
        "head": "x", "base": "main", "title": "t"}).status == 404


def test_merge_styles_and_merged_state(api, scene):
    alice, bob, carol = scene["alice"], scene["bob"], scene["carol"]
    open_pull(api, carol)
    drain_outbox()
    assert api.post(f"{R}/pulls/1/merge", token=carol, json={"Do": "merge"}).status == 403
    assert api.get(f"{R}/pulls/1/merge").status == 404
    assert api.post(f"{R}/pulls/1/merge", token=bob,
                    json={"Do": "merge", "head_commit_id": scene["base"]}).status == 409
    r = api.post(f"{R}/pulls/1/merge", token=bob, json={"Do": "squash",
                                                       "MergeTitleField": "Squashed"})
    assert r.status == 200, r
    assert api.get(f"{R}/pulls/1/merge").status == 204
    pull = api.get(f"{R}/pulls/1").json
    assert pull["merged"] and pull["state"] == "closed" and pull["merged_by"]["login"] == "bob"
    assert pull["mergeable"] is False and pull["merge_commit_sha"]
    main = api.get(f"{R}/branches/main").json["commit"]
    assert main["id"] == pull["merge_commit_sha"] and main["message"].startswith("Squashed")
    assert api.get(f"{R}/raw/a.txt").body == b"a\n"
    assert api.post(f"{R}/pulls/1/merge", token=bob, json={"Do": "merge"}).status == 405
    assert api.patch(f"{R}/pulls/1", token=alice, json={"state": "open"}).status == 409
    assert api.get(R).json["open_pr_counter"] == 0
    raised = [e for e in drain_outbox() if isinstance(e, events.IssueChanged)]
    assert [e.action for e in raised] == ["merged"] and raised[0].is_pull


def test_conflicts_make_it_unmergeable(api, scene):
    alice = scene["alice"]
    branch_to(api, alice, "main", scene["base"], {"README.md": b"main says\n"})
    branch_to(api, alice, "other", ZERO, {"README.md": b"other says\n"}, parent=scene["base"])
    pull = open_pull(api, alice, head="other")
    assert pull["mergeable"] is False
    assert api.post(f"{R}/pulls/{pull['number']}/merge", token=alice,
                    json={"Do": "merge"}).status == 405
    assert api.get(f"{R}/branches/main").json["commit"]["message"] == "more"


def test_disallowed_style_and_archived_repository(api, scene):
    alice = scene["alice"]
    open_pull(api, alice)
    assert api.patch(R, token=alice, json={"allow_squash_merge": False,
                                           "default_merge_style": "rebase"}).status == 200
    repo = api.get(R).json
    assert repo["allow_squash_merge"] is False and repo["default_merge_style"] == "rebase"
    r = api.post(f"{R}/pulls/1/merge", token=alice, json={"Do": "squash"})
    assert r.status == 405 and "not an allowed merge style" in r.json["message"]
    assert api.patch(R, token=alice, json={"default_merge_style": "octopus"}).status == 422
    assert api.patch(R, token=alice, json={"archived": True}).status == 200
    assert api.post(f"{R}/pulls/1/merge", token=alice, json={"Do": "merge"}).status == 423


def test_diff_patch_commits_files(api, scene):
    open_pull(api, scene["alice"])
    diff = api.get(f"{R}/pulls/1.diff")
    assert diff.status == 200 and b"+++ b/a.txt" in diff.body and b"+a" in diff.body
    patch = api.get(f"{R}/pulls/1.patch").body
    assert patch.startswith(b"From " + scene["feature"].encode())
    assert b"\nSubject: [PATCH] add a\n" in patch       # a series of one is not numbered
    assert api.get(f"{R}/pulls/1.zip").status == 404
    commits = api.get(f"{R}/pulls/1/commits").json
    assert [c["sha"] for c in commits] == [scene["feature"]]
    assert_matches_forgejo(commits[0], "Commit", ("author", "committer", "files", "stats"))
    files = api.get(f"{R}/pulls/1/files").json
    assert [(f["filename"], f["status"], f["additions"]) for f in files] == [("a.txt", "added", 1)]


def test_pushes_keep_the_pull_request_current(api, scene):
    alice = scene["alice"]
    open_pull(api, alice)
    drain_outbox()
    new_head = branch_to(api, alice, "feature", scene["feature"],
                         {"README.md": b"hello\n", "a.txt": b"a\n", "b.txt": b"b\n"})
    delivered = deliver_events()
    pull = api.get(f"{R}/pulls/1").json
    assert pull["head"]["sha"] == new_head and pull["changed_files"] == 2
    refs = api.get("/alice/proj.git/info/refs?service=git-upload-pack", raw=True).body
    assert f"{new_head} refs/pull/1/head".encode() in refs
    synced = [e for e in drain_outbox() if isinstance(e, events.IssueChanged)]
    assert [e.action for e in synced] == ["synchronized"] and delivered
    # The base moves to a conflicting change: no longer mergeable.
    branch_to(api, alice, "main", scene["base"], {"README.md": b"clash\n", "a.txt": b"z\n"})
    deliver_events()
    assert api.get(f"{R}/pulls/1").json["mergeable"] is False
    # A redelivered event changes nothing.
    assert api.post(f"{R}/pulls/1/merge", token=alice, json={"Do": "merge"}).status == 405


def test_fork_pull_request_is_merged_by_the_base_owner(api, scene):
    alice, carol = scene["alice"], scene["carol"]
    assert api.post(f"{R}/forks", token=carol, json={}).status == 202
    commit, objs = make_commit(scene["base"], {"README.md": b"hello\n", "c.txt": b"c\n"}, "c")
    report = push(api, carol, "proj", [(ZERO, commit.id.decode(), "refs/heads/fix")], objs,
                  owner="carol")
    assert "ok refs/heads/fix" in report, report
    pull = open_pull(api, carol, head="carol:fix", title="Fix from a fork")
    assert pull["head"]["repo"]["full_name"] == "carol/proj"
    assert pull["head"]["repo_id"] != pull["base"]["repo_id"] and pull["mergeable"]
    assert api.post(f"{R}/pulls/1/merge", token=carol, json={"Do": "merge"}).status == 403
    assert api.post(f"{R}/pulls/1/merge", json={"Do": "merge"}).status == 401
    assert api.post(f"{R}/pulls/1/merge", token=alice, json={"Do": "merge"}).status == 200
    assert api.get(f"{R}/raw/c.txt").body == b"c\n"
    main = api.get(f"{R}/branches/main").json["commit"]
    assert "from carol/proj:fix into main" in main["message"]


def test_merge_when_checks_succeed_and_cancel(api, scene):
    alice, bob = scene["alice"], scene["bob"]
    open_pull(api, alice)
    r = api.post(f"{R}/pulls/1/merge", token=bob, json={"Do": "merge",
                                                       "merge_when_checks_succeed": True})
    assert r.status == 201
    assert api.post(f"{R}/pulls/1/merge", token=bob, json={
        "Do": "merge", "merge_when_checks_succeed": True}).status == 409
    assert api.delete(f"{R}/pulls/1/merge", token=bob).status == 204
    assert api.delete(f"{R}/pulls/1/merge", token=bob).status == 404
    assert api.post(f"{R}/pulls/1/merge", token=bob, json={
        "Do": "squash", "merge_when_checks_succeed": True}).status == 201
    drain_outbox()
    status = api.post(f"{R}/statuses/{scene['feature']}", token=alice,
                      json={"state": "pending", "context": "ci"})
    assert status.status == 200, status
    deliver_events()
    assert api.get(f"{R}/pulls/1/merge").status == 404          # still waiting
    assert api.post(f"{R}/statuses/{scene['feature']}", token=alice,
                    json={"state": "success", "context": "ci"}).status == 200
    deliver_events()
    pull = api.get(f"{R}/pulls/1").json
    assert pull["merged"] and pull["merged_by"]["login"] == "bob"
    main = api.get(f"{R}/branches/main").json["commit"]
    assert main["message"].startswith("Add a (#1)")            # squash's default title


def test_update_brings_the_base_into_the_head(api, scene):
    alice = scene["alice"]
    open_pull(api, alice)
    moved = branch_to(api, alice, "main", scene["base"], {"README.md": b"hello\n",
                                                           "m.txt": b"m\n"})
    assert api.post(f"{R}/pulls/1/update?style=sideways", token=alice).status == 422
    assert api.post(f"{R}/pulls/1/update", token=scene["carol"]).status == 403
    assert api.post(f"{R}/pulls/1/update", token=alice).status == 200
    head = api.get(f"{R}/branches/feature").json["commit"]
    assert head["message"] == "Merge branch 'main' into feature\n"
    deliver_events()
    pull = api.get(f"{R}/pulls/1").json
    assert pull["head"]["sha"] == head["id"] and pull["merge_base"] == moved
    assert api.get(f"{R}/raw/m.txt?ref=feature").body == b"m\n"


def test_oversized_and_invalid_text_is_refused_and_writes_nothing(api, scene):
    alice = scene["alice"]
    for body, status in (({"head": "feature", "base": "main", "title": "t",
                           "body": "x" * 65_537}, 422),
                         ({"head": "feature", "base": "main", "title": "\ud800"}, 422),
                         ({"head": "f" * 600, "base": "main", "title": "t"}, 422)):
        r = api.post(f"{R}/pulls", token=alice, json=body)
        assert r.status == status, r
    open_pull(api, alice)
    r = api.post(f"{R}/pulls/1/merge", token=alice,
                 json={"Do": "merge", "MergeMessageField": "m" * 70_000})
    assert r.status == 422, r
    assert api.get(f"{R}/pulls/1").json["merged"] is False
    assert api.get(f"{R}/issues?state=all&type=pulls").json[0]["number"] == 1


def test_delete_branch_after_merge_and_manual_merge(api, scene):
    alice = scene["alice"]
    open_pull(api, alice)
    r = api.post(f"{R}/pulls/1/merge", token=alice,
                 json={"Do": "rebase", "delete_branch_after_merge": True})
    assert r.status == 200, r
    assert api.get(f"{R}/branches/feature").status == 404
    assert api.get(f"{R}/branches/main").json["commit"]["id"] == scene["feature"]
    # The head branch is gone: the pull request's head is named by refs/pull/1/head.
    deliver_events()
    assert api.get(f"{R}/pulls/1").json["head"]["ref"] == "refs/pull/1/head"
    assert api.get(f"{R}/pulls?state=closed").json[0]["head"]["ref"] == "refs/pull/1/head"
    branch_to(api, alice, "feature", ZERO, {"README.md": b"again\n"}, parent=scene["base"])
    deliver_events()
    assert api.get(f"{R}/pulls/1").json["head"]["ref"] == "feature"     # exists again
    # manually-merged: allowed only when the repository allows it, and only for a commit
    # already on the base branch.
    other = branch_to(api, alice, "other", ZERO, {"README.md": b"hello\n", "o.txt": b"o\n"},
                      parent=scene["base"])
    open_pull(api, alice, head="other")
    assert api.post(f"{R}/pulls/2/merge", token=alice, json={
        "Do": "manually-merged", "MergeCommitID": other}).status == 405
    assert api.patch(R, token=alice, json={"allow_manual_merge": True}).status == 200
    assert api.post(f"{R}/pulls/2/merge", token=alice, json={
        "Do": "manually-merged", "MergeCommitID": other}).status == 409   # not on main
    assert api.post(f"{R}/pulls/2/merge", token=alice, json={
        "Do": "manually-merged", "MergeCommitID": scene["feature"]}).status == 200
    pull = api.get(f"{R}/pulls/2").json
    assert pull["merged"] and pull["merge_commit_sha"] == scene["feature"]
