"""Webhook payloads against Forgejo's structs (``modules/structs/hook.go``): the fields
and their order for every event the service emits, Forgejo's request encoding (Go's
JSON, the gitea type's short refs, form bodies), the signatures, and the chat formats."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from chalicelib.webhooks import formats as webhook_formats
from chalicelib.webhooks import payloads as webhook_payloads
from chalicelib.webhooks import deliveries as webhook_deliveries
from tests.conftest import drain_outbox

PUSH = ["ref", "before", "after", "compare_url", "commits", "total_commits", "head_commit",
        "repository", "pusher", "sender"]
CREATE = ["sha", "ref", "ref_type", "repository", "sender"]
DELETE = ["ref", "ref_type", "pusher_type", "repository", "sender"]
ISSUE = ["action", "number", "issue", "repository", "sender", "commit_id"]
COMMENT = ["action", "issue", "comment", "repository", "sender", "is_pull"]
PULL = ["action", "number", "pull_request", "requested_reviewer", "repository", "sender",
        "commit_id", "review"]
REPOSITORY = ["action", "repository", "organization", "sender"]
FORK = ["forkee", "repository", "sender"]
COMMIT = ["id", "message", "url", "author", "committer", "verification", "timestamp",
          "added", "removed", "modified"]


def set_ref(name: str, ref: str, old: str | None, new: str | None) -> None:
    """Move a ref of alice/<name> as the API does (with its events)."""
    from chalicelib.contents import pushes
    from chalicelib.contents import files as repo_files
    from chalicelib.store import unit_of_work
    from chalicelib.accounts import store as accounts
    from chalicelib.repos import store as repo_store

    with unit_of_work.start():
        repo = repo_store.get("alice", name)
        pushes.apply_ref_updates(repo, repo_files.open_git(repo), [(ref, old, new)],
                                 actor=accounts.get_by_name("alice"))


def made(events) -> list:
    return [p for e in events for p in webhook_payloads.payloads(e)]


@pytest.fixture
def alice(api):
    api.create_user("alice")
    return api.create_token("alice")


def test_push_create_delete_and_repository_payloads(api, alice):
    assert api.post("/user/repos", token=alice, json={"name": "lib", "auto_init": True}).status == 201
    payloads = made(drain_outbox())
    kinds = [(p.event_type, p.action) for p in payloads]
    assert ("repository", "created") in kinds and ("create", "") in kinds and ("push", "") in kinds
    repo_payload = next(p for p in payloads if p.event_type == "repository")
    assert list(repo_payload.data) == REPOSITORY and repo_payload.indent == " "
    create = next(p for p in payloads if p.event_type == "create")
    assert list(create.data) == CREATE and create.data["ref"] == "refs/heads/main"
    assert create.branch == "main"
    assert create.data["repository"]["permissions"] == {"admin": False, "push": False,
                                                         "pull": False}
    push = next(p for p in payloads if p.event_type == "push")
    assert list(push.data) == PUSH and push.data["before"] == "0" * 40
    assert list(push.data["commits"][0]) == COMMIT
    assert push.data["head_commit"]["id"] == push.data["after"]
    assert "README.md" in push.data["commits"][0]["added"]
    assert push.data["compare_url"] == "http://nimbus.test/"    # a root commit: no base
    assert push.data["repository"]["permissions"]["admin"] is True
    # The gitea type gets the short ref in create (and delete), re-encoded compact.
    gitea = SimpleNamespace(hook_type="gitea", content_type="json", http_method="POST")
    request = webhook_formats.request_for(gitea, create)
    assert json.loads(request.text)["ref"] == "main" and "\n" not in request.text
    assert request.text.index('"ref"') < request.text.index('"ref_type"') < \
        request.text.index('"repository"') < request.text.index('"sha"')    # sorted keys
    forgejo = SimpleNamespace(hook_type="forgejo", content_type="form", http_method="POST")
    request = webhook_formats.request_for(forgejo, create)
    assert request.content_kind == "form" and json.loads(request.text)["ref"] == "refs/heads/main"
    # A new tag: push (no commits, its commit as head) and create; deleting a branch:
    # delete only.
    head = push.data["after"]
    set_ref("lib", "refs/tags/v1", None, head)
    tagged = made(drain_outbox())
    assert [p.event_type for p in tagged] == ["create", "push"]
    assert tagged[1].data["commits"] == [] and tagged[1].data["head_commit"]["id"] == head
    assert tagged[1].data["compare_url"].endswith(f"alice/lib/compare/{'0' * 40}...{head}")
    assert tagged[0].branch is None and tagged[0].data["ref_type"] == "tag"
    set_ref("lib", "refs/heads/gone", None, head)
    drain_outbox()
    set_ref("lib", "refs/heads/gone", head, None)
    deleted = made(drain_outbox())
    assert [p.event_type for p in deleted] == ["delete"] and list(deleted[0].data) == DELETE
    assert deleted[0].data["ref"] == "refs/heads/gone" and deleted[0].branch == "gone"


def test_issue_comment_and_pull_request_payloads(api, alice):
    api.post("/user/repos", token=alice, json={"name": "lib", "auto_init": True})
    base = next(p for p in made(drain_outbox()) if p.event_type == "push").data["after"]
    from chalicelib.gitops import commits, objects, trees
    from chalicelib.contents import files as repo_files
    from chalicelib.repos import store as repo_store

    git = repo_files.open_git(repo_store.get("alice", "lib"))
    with objects.staged(git.object_store) as staged:
        topic = commits.commit_edits(staged, parent=base.encode(),
                                     edits=[trees.write("topic.txt", b"topic")],
                                     author=commits.Identity("Alice", "alice@example.com"),
                                     message="topic").id.decode()
    set_ref("lib", "refs/heads/topic", None, topic)
    drain_outbox()
    issue = api.post("/repos/alice/lib/issues", token=alice, json={"title": "T", "body": "B"}).json
    api.patch(f"/repos/alice/lib/issues/{issue['number']}", token=alice,
              json={"title": "T2", "body": "B2"})
    api.post(f"/repos/alice/lib/issues/{issue['number']}/comments", token=alice, json={"body": "c"})
    payloads = made(drain_outbox())
    opened, edit_title, edit_body, comment = payloads
    assert list(opened.data) == ISSUE and opened.data["issue"]["title"] == "T"
    assert opened.event_type == "issues" and opened.event == "issues"
    assert list(edit_title.data) == ["action", "number", "changes", *ISSUE[2:]]
    changes = {**edit_title.data["changes"], **edit_body.data["changes"]}
    assert changes == {"title": {"from": "T"}, "body": {"from": "B"}}
    assert list(comment.data) == COMMENT and comment.data["is_pull"] is False
    pull = api.post("/repos/alice/lib/pulls", token=alice,
                    json={"head": "topic", "base": "main", "title": "P"})
    assert pull.status == 201, pull
    [opened] = made(drain_outbox())
    assert opened.event_type == "pull_request" and list(opened.data) == PULL
    assert opened.data["pull_request"]["number"] == pull.json["number"]
    api.post(f"/repos/alice/lib/issues/{pull.json['number']}/comments", token=alice,
             json={"body": "on the pull"})
    [on_pull] = made(drain_outbox())
    assert on_pull.event_type == "pull_request_comment" and on_pull.event == "issue_comment"
    assert list(on_pull.data) == ["action", "issue", "pull_request", "comment", "repository",
                                  "sender", "is_pull"]


def test_issue_label_assign_and_milestone_payloads_reach_issue_hooks(api, alice):
    """Labels, assignees and milestones of an issue are Forgejo's ``issue_label``,
    ``issue_assign`` and ``issue_milestone`` events (X-Forgejo-Event ``issues``); a hook
    subscribed to issues gets them (the delivery consumer once failed on them)."""
    from chalicelib.webhooks import service as webhook_service

    api.post("/user/repos", token=alice, json={"name": "lib", "auto_init": True})
    hook = api.post("/repos/alice/lib/hooks", token=alice, json={
        "type": "forgejo", "active": True, "events": ["issues"],
        "config": {"url": "https://hooks.example.com/in", "content_type": "json"}})
    assert hook.status == 201, hook
    label = api.post("/repos/alice/lib/labels", token=alice,
                     json={"name": "bug", "color": "#ff0000"}).json
    milestone = api.post("/repos/alice/lib/milestones", token=alice, json={"title": "m1"}).json
    issue = api.post("/repos/alice/lib/issues", token=alice, json={"title": "T"}).json
    drain_outbox()
    index = issue["number"]
    assert api.post(f"/repos/alice/lib/issues/{index}/labels", token=alice,
                    json={"labels": [label["id"]]}).status == 200
    assert api.delete(f"/repos/alice/lib/issues/{index}/labels/{label['id']}",
                      token=alice).status == 204
    assert api.patch(f"/repos/alice/lib/issues/{index}", token=alice,
                     json={"assignees": ["alice"], "milestone": milestone["id"]}).status == 201
    payloads = made(drain_outbox())
    kinds = {(p.event_type, p.action) for p in payloads}
    assert {("issue_label", "label_updated"), ("issue_label", "label_cleared"),
            ("issue_assign", "assigned"), ("issue_milestone", "milestoned")} <= kinds, kinds
    for p in payloads:
        assert p.event == "issues" and list(p.data) == ISSUE
        hooks = webhook_service.matching_hooks(p.repo, p.owner, p.event_type)
        assert [h.id for h in hooks] == [hook.json["id"]]


def test_signature_matches_the_specs_worked_example():
    body = '{\n  "ref": "refs/heads/main"\n}'
    sha1, sha256 = webhook_deliveries.signature("secret", body)
    assert sha256 == "ba3ef6ca27a1c8e0c374411bd8904182210c5861383b708db9743ce84049d541"
    assert sha1 == "cd1b243b115bac89f13b03bc1f74b8d5885c264e"
    headers = dict(webhook_deliveries.default_headers("g", "push", "push", "", body))
    assert headers["X-Hub-Signature-256"] == "sha256=" and headers["X-Gitea-Signature"] == ""
    assert headers["X-GitHub-Delivery"] == "g"


def test_go_json_escapes_as_go_does():
    text = webhook_formats.go_json({"a": "<&>\u2028", "b": []})
    assert text == '{\n  "a": "\\u003c\\u0026\\u003e\\u2028",\n  "b": []\n}'


def test_chat_formats(api, alice):
    api.post("/user/repos", token=alice, json={"name": "lib", "auto_init": True})
    payloads = made(drain_outbox())
    push = next(p for p in payloads if p.event_type == "push")
    issue_events = api.post("/repos/alice/lib/issues", token=alice, json={"title": "Hi"})
    assert issue_events.status == 201
    [issue] = made(drain_outbox())
    for kind, check in (
            ("slack", lambda b: b["text"].startswith("[alice/lib:<") and "1 new commit" in b["text"]),
            ("discord", lambda b: b["embeds"][0]["title"] == "[alice/lib:main] 1 new commit"),
            ("matrix", lambda b: b["io.gitea.commits"] and "pushed 1 commit to main" in b["body"]),
            ("msteams", lambda b: b["type"] == "AdaptiveCard")):
        hook = SimpleNamespace(hook_type=kind, content_type="json", http_method="POST",
                               config=json.dumps({"channel": "#ci"}))
        request = webhook_formats.request_for(hook, push)
        assert check(json.loads(request.text)), (kind, request.text)
        assert request.default_headers is (kind != "matrix")
        assert webhook_formats.request_for(hook, issue) is not None
    slack = json.loads(webhook_formats.request_for(
        SimpleNamespace(hook_type="slack", config="{}"), issue).text)
    assert slack["text"].startswith("[alice/lib] Issue opened: <") and "by `alice`" in slack["text"]
    telegram = SimpleNamespace(hook_type="telegram", config="{}")
    assert webhook_formats.request_for(telegram, push) is None
