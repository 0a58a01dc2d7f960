"""Issue references through the API (in-process, under moto) and the real event pipeline
(relay, queue, consumers, webhook worker): a merged pull request and pushed commits
close what they name, mentions leave references, access decides, and a redelivered
event acts once.  Pushes go through the smart HTTP route with packs built here; the
real git CLI against the local runtime is tests/issues/test_issue_references_git.py."""
from __future__ import annotations

import pytest

from chalicelib import events
from chalicelib.jobs import consumers
from chalicelib.issues import consumers as consumer
from chalicelib.issues import reference_store
from chalicelib.store import outbox
from tests.conftest import drain_outbox
from tests.repos.test_events_repos import ZERO, make_commit, push
from tests.pulls.test_pulls import push_main_and_feature
from tests.webhooks.test_webhooks_flow import SECRET, add_hook, hook_settings, pump, receiver  # noqa: F401

P = "/repos/alice/proj"


def new_issue(api, token, path, title="bug", body="") -> int:
    r = api.post(f"{path}/issues", token=token, json={"title": title, "body": body})
    assert r.status == 201, r
    return r.json["number"]


def repo_id(api, token, path) -> int:
    return api.get(path, token=token).json["id"]


@pytest.fixture
def scene(api, hook_settings, receiver):  # noqa: F811 - fixtures imported above
    """alice owns public ``proj`` (``main``, branch ``feature``, issue 1) with bob as a
    writer, and private ``secret`` (issue 1); bob owns ``tools``, carol owns ``own``
    (issue 1 each).  ``proj`` and ``tools`` have an ``issues`` hook to the receiver."""
    tokens = {}
    for name in ("alice", "bob", "carol"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    for owner, name, private in (("alice", "proj", False), ("alice", "secret", True),
                                 ("bob", "tools", False), ("carol", "own", False)):
        r = api.post("/user/repos", token=tokens[owner], json={"name": name,
                                                               "private": private})
        assert r.status == 201, r
        assert new_issue(api, tokens[owner], f"/repos/{owner}/{name}") == 1
    assert api.put(f"{P}/collaborators/bob", token=tokens["alice"],
                   json={"permission": "write"}).status == 204
    base, feature = push_main_and_feature(api, tokens["alice"], "proj")
    for path in (P, "/repos/bob/tools"):
        owner = path.split("/")[2]
        add_hook(api, tokens[owner], receiver.url + "/" + owner, path=f"{path}/hooks",
                 events=["issues"])
    pump()
    receiver.received.clear()
    tokens.update(main=base.id.decode(), feature=feature.id.decode())
    return tokens


def state(api, token, path, number) -> str:
    return api.get(f"{path}/issues/{number}", token=token).json["state"]


def references(api, token, path, number) -> list:
    return reference_store.references_of(repo_id(api, token, path), number)


def closed_hooks(receiver, path_prefix) -> list[tuple[int, str]]:
    return [(r.payload["issue"]["number"], r.payload["sender"]["login"])
            for r in receiver.accepted(path_prefix)
            if r.event == "issues" and r.payload["action"] == "closed"]


def commit_to(api, token, owner, repo, branch, old, message, files=None, parent=None) -> str:
    """A commit on ``branch`` (at ``old``; its parent, unless ``parent`` is given)."""
    parent = parent or (old if old != ZERO else None)
    commit, objs = make_commit(parent, files or {"f.txt": message.encode()}, message)
    ref = f"refs/heads/{branch}"
    report = push(api, token, repo, [(old, commit.id.decode(), ref)], objs, owner=owner)
    assert f"ok {ref}" in report, report
    return commit.id.decode()


def test_a_merged_pull_request_closes_what_it_names(api, scene, receiver):
    alice, bob, carol = scene["alice"], scene["bob"], scene["carol"]
    commit_to(api, alice, "alice", "proj", "second", ZERO, "second",
              files={"README.md": b"hello\n", "b.txt": b"b\n"}, parent=scene["main"])
    other = api.post(f"{P}/pulls", token=alice, json={"head": "second", "base": "main",
                                                      "title": "Another"})
    assert other.status == 201 and other.json["number"] == 2
    body = ("Closes #1\nfixes bob/tools#1, closes alice/secret#1\nresolves carol/own#1\n"
            "closes #2 (a pull request: only named)\nFixes #3 (itself)")
    pull = api.post(f"{P}/pulls", token=bob, json={"head": "feature", "base": "main",
                                                   "title": "Add a", "body": body})
    assert pull.status == 201 and pull.json["number"] == 3
    pump()
    # Opened: references left, nothing closed before the merge.
    assert state(api, alice, P, 1) == "open" and closed_hooks(receiver, "/") == []
    [ref] = references(api, alice, P, 1)
    assert (ref.comment_type, ref.ref_issue_number, ref.ref_is_pull, ref.ref_action,
            ref.resolved) == ("pull_ref", 3, True, "closes", None)

    r = api.post(f"{P}/pulls/3/merge", token=bob, json={"Do": "merge"})
    assert r.status == 200, r
    pump()
    assert state(api, alice, P, 1) == "closed"
    assert state(api, bob, "/repos/bob/tools", 1) == "closed"      # bob may write there
    assert state(api, alice, "/repos/alice/secret", 1) == "open"   # bob cannot see it
    assert references(api, alice, "/repos/alice/secret", 1) == []
    assert state(api, carol, "/repos/carol/own", 1) == "open"
    [mention] = references(api, carol, "/repos/carol/own", 1)       # read, not write
    assert (mention.ref_action, mention.resolved) == ("none", None)
    assert state(api, alice, P, 2) == "open"                       # pull requests stay
    assert [(x.comment_type, x.ref_action) for x in references(api, alice, P, 2)] == [
        ("pull_ref", "none")]
    [ref] = references(api, alice, P, 1)
    bob_id = api.get("/user", token=bob).json["id"]
    assert (ref.resolved, ref.poster_id) == ("closes", bob_id)
    # The pull request names itself: no reference; the merge commit's "(#3)" is a
    # commit reference, as on Forgejo.
    assert [x.comment_type for x in references(api, alice, P, 3)] == ["commit_ref"]
    # The issues' own events, with the merger as sender; each close once.
    assert closed_hooks(receiver, "/alice") == [(1, "bob")]
    assert closed_hooks(receiver, "/bob") == [(1, "bob")]
    assert all(record.signature_ok(SECRET) for record in receiver.accepted())
    # Forgejo's comments API lists plain comments only.
    assert api.get(f"{P}/issues/1/comments", token=alice).json == []


def test_pushed_commits_close_from_the_default_branch_only(api, scene, receiver):
    alice, bob = scene["alice"], scene["bob"]
    for n in (2, 3):
        assert new_issue(api, alice, P, f"issue {n}") == n
    pump()
    receiver.received.clear()
    side = commit_to(api, bob, "alice", "proj", "feature", scene["feature"], "Fixes #3",
                     files={"README.md": b"hello\n", "a.txt": b"a\n", "side.txt": b"s\n"})
    pump()
    assert state(api, alice, P, 3) == "open"
    [ref] = references(api, alice, P, 3)
    assert (ref.comment_type, ref.commit_sha, ref.content, ref.ref_action, ref.resolved) == (
        "commit_ref", side, "Fixes #3", "closes", None)

    on_main = commit_to(api, bob, "alice", "proj", "main", scene["main"],
                        "Make it work\n\nfixes #2\nsee #1",
                        files={"README.md": b"hello\n", "main.txt": b"m\n"})
    pump()
    assert state(api, alice, P, 2) == "closed" and state(api, alice, P, 1) == "open"
    [mention] = references(api, alice, P, 1)
    assert (mention.commit_sha, mention.ref_action, mention.content) == (
        on_main, "none", "Make it work")
    assert closed_hooks(receiver, "/alice") == [(2, "bob")]

    # The branch merged later: its commit reaches the default branch and closes #3
    # then, with the one reference it already had.
    merge = api.post(f"{P}/pulls", token=bob, json={"head": "feature", "base": "main",
                                                    "title": "feature"}).json
    assert api.post(f"{P}/pulls/{merge['number']}/merge", token=bob,
                    json={"Do": "merge"}).status == 200
    pump()
    assert state(api, alice, P, 3) == "closed"
    assert [r.commit_sha for r in references(api, alice, P, 3)] == [side]
    assert closed_hooks(receiver, "/alice") == [(2, "bob"), (3, "bob")]


def test_a_long_push_is_read_past_the_commits_its_event_carries(api, scene):
    alice = scene["alice"]
    assert new_issue(api, alice, P, "old news") == 2
    parent, objects = scene["main"], []
    for n in range(25):            # the event carries the newest 20
        commit, objs = make_commit(parent, {"README.md": f"{n}\n".encode()},
                                   "fixes #2" if n == 0 else f"step {n}")
        objects += objs
        parent = commit.id.decode()
    report = push(api, alice, "proj", [(scene["main"], parent, "refs/heads/main")], objects)
    assert "ok refs/heads/main" in report, report
    pump()
    assert state(api, alice, P, 2) == "closed"


def test_access_decides_what_a_commit_does(api, scene, receiver):
    carol, bob, alice = scene["carol"], scene["bob"], scene["alice"]
    message = "fixes alice/proj#1\nfixes alice/secret#1\nfixes bob/tools#1"
    first = commit_to(api, carol, "carol", "own", "main", ZERO, message)
    pump()
    # Read access: a reference, no close.  No access: nothing at all.
    assert state(api, alice, P, 1) == "open"
    assert [r.ref_action for r in references(api, alice, P, 1)] == ["closes"]
    assert state(api, bob, "/repos/bob/tools", 1) == "open"
    assert len(references(api, bob, "/repos/bob/tools", 1)) == 1
    assert state(api, alice, "/repos/alice/secret", 1) == "open"
    assert references(api, alice, "/repos/alice/secret", 1) == []
    assert closed_hooks(receiver, "/") == []
    # The issue's poster may close it from wherever they push (Forgejo's rule); a
    # writer of its repository may reopen it from theirs.
    mine = new_issue(api, carol, P, "carol's")
    commit_to(api, carol, "carol", "own", "main", first, f"closes alice/proj#{mine}")
    pump()
    assert state(api, alice, P, mine) == "closed"
    commit_to(api, bob, "bob", "tools", "main", ZERO, f"Reopens alice/proj#{mine}")
    pump()
    assert state(api, alice, P, mine) == "open"
    hooked = [(r.payload["action"], r.payload["sender"]["login"])
              for r in receiver.accepted("/alice") if r.payload["issue"]["number"] == mine]
    assert hooked == [("opened", "carol"), ("closed", "carol"), ("reopened", "bob")]


def test_mentions_in_issues_and_comments_leave_references(api, scene):
    alice, carol = scene["alice"], scene["carol"]
    number = new_issue(api, carol, P, "related to #1", body="Fixes #1 (not from an issue)")
    r = api.post(f"{P}/issues/{number}/comments", token=carol,
                 json={"body": "also `#1` in code, and alice/secret#1 and #1 again"})
    assert r.status == 201
    api.patch(f"{P}/issues/{number}", token=carol, json={"body": "see #1"})
    pump()
    found = sorted(references(api, alice, P, 1), key=lambda x: x.comment_type)
    assert [(x.comment_type, x.ref_issue_number, x.ref_action) for x in found] == [
        ("comment_ref", number, "none"), ("issue_ref", number, "none")]
    assert found[0].ref_comment_id == r.json["id"] and state(api, alice, P, 1) == "open"
    assert references(api, alice, "/repos/alice/secret", 1) == []
    # References go with the issue they point at.
    assert api.delete(f"{P}/issues/1", token=alice).status == 204
    assert references(api, alice, P, 1) == []


def test_an_event_handled_again_closes_once_and_writes_one_reference(api, scene, receiver):
    alice, bob = scene["alice"], scene["bob"]
    pull = api.post(f"{P}/pulls", token=bob, json={"head": "feature", "base": "main",
                                                   "title": "Closes #1"}).json
    drain_outbox()
    assert api.post(f"{P}/pulls/{pull['number']}/merge", token=bob,
                    json={"Do": "merge"}).status == 200
    [merged] = [e for e in drain_outbox()
                if isinstance(e, events.IssueChanged) and e.action == "merged"]
    message = events.to_message(merged)
    # The queue delivers it twice: the delivery mark admits one run.
    assert consumers.handle_message(message) >= 1
    assert consumers.handle_message(message) == 0
    [closed] = [e for e in drain_outbox() if isinstance(e, events.IssueChanged)]
    assert (closed.action, closed.number, closed.actor["login"]) == ("closed", 1, "bob")
    assert state(api, alice, P, 1) == "closed"
    # Reopened meanwhile, then the consumer runs again (a lease that expired mid-run):
    # the reference has acted already, so the issue stays open and nothing is raised.
    assert api.patch(f"{P}/issues/1", token=alice, json={"state": "open"}).status == 201
    drain_outbox()
    outbox.release(merged.event_id, "issue-references")
    assert consumers.handle_message(message) >= 1
    consumer.on_event(merged)
    assert state(api, alice, P, 1) == "open" and drain_outbox() == []
    [ref] = references(api, alice, P, 1)
    assert (ref.comment_type, ref.resolved) == ("pull_ref", "closes")


def test_events_of_unknown_repositories_are_ignored(aws):
    for event in (events.IssueChanged(actor_id=1, repo_id=999, action="merged",
                                      issue={"id": 5, "number": 1, "body": "Closes #1"}),
                  events.RepositoryPushed(actor_id=1, repo_id=999, ref="refs/heads/main",
                                          before=ZERO, after="1" * 40, total_commits=1),
                  events.IssueCommentChanged(actor_id=1, repo_id=999, action="created",
                                             issue={"id": 5, "number": 1},
                                             comment={"id": 3, "body": "#1"})):
        consumer.on_event(event.stamped())
