"""User webhooks end to end (moto, the Lambda handler): ``/user/hooks`` (userListHooks,
userCreateHook, userGetHook, userEditHook, userDeleteHook) answer Hook records as the
repository and organization hooks do, with their validation texts and status codes,
for the signed-in user's own hooks only; and a push or an issue in a repository the user
owns reaches the user's hook with the payload, headers and signatures a repository hook
gets, through the same delivery worker."""
from __future__ import annotations

import base64

import pytest

from chalicelib.http import schemas
from tests.accounts.test_users import assert_matches_forgejo
from tests.conftest import ADMIN
from tests.webhooks.test_webhooks_flow import SECRET, hook_settings, pump, receiver  # noqa: F401

HOOK = {"type": "gitea", "config": {"url": "https://ci.example.com/hook", "content_type": "json",
                                    "secret": "s3cret-value"}}
SCOPE_REFUSED = "token does not have at least one of required scope(s)"
PUSH = ["ref", "before", "after", "compare_url", "commits", "total_commits", "head_commit",
        "repository", "pusher", "sender"]
ISSUE = ["action", "number", "issue", "repository", "sender", "commit_id"]


@pytest.fixture
def people(api):
    for name in ("alice", "bob"):
        api.create_user(name)
    return {name: api.create_token(name) for name in ("alice", "bob")}


def test_user_hook_lifecycle_and_record(api, people):
    alice = people["alice"]
    r = api.post("/user/hooks", token=alice, json={
        **HOOK, "events": ["push", "Issues"], "branch_filter": "{main,release/*}",
        "authorization_header": "Bearer abc"})
    assert r.status == 201, r
    hook = r.json
    assert_matches_forgejo(hook, "Hook", nullable=("metadata",))
    assert list(hook) == list(schemas.RECORDS["Hook"])
    assert hook["type"] == "gitea" and hook["active"] is False        # Forgejo's default
    assert hook["config"] == {"url": "https://ci.example.com/hook", "content_type": "json"}
    assert hook["events"] == ["push", "issues", "issue_assign", "issue_label",
                              "issue_milestone", "issue_comment"]
    assert hook["branch_filter"] == "{main,release/*}"
    assert hook["authorization_header"] == "Bearer abc" and hook["metadata"] is None
    assert b"s3cret-value" not in r.body and b"secret" not in r.body
    # The record a repository hook made from the same body is the same but for id and times.
    api.post("/user/repos", token=alice, json={"name": "app"})
    same = api.post("/repos/alice/app/hooks", token=alice, json={
        **HOOK, "events": ["push", "Issues"], "branch_filter": "{main,release/*}",
        "authorization_header": "Bearer abc"}).json
    moving = ("id", "created_at", "updated_at")
    assert {k: v for k, v in same.items() if k not in moving} == \
        {k: v for k, v in hook.items() if k not in moving}

    listed = api.get("/user/hooks", token=alice)
    assert listed.status == 200 and listed.headers["x-total-count"] == "1"
    assert listed.json == [hook]                           # not the repository's hook
    url = f"/user/hooks/{hook['id']}"
    got = api.get(url, token=alice)
    assert got.status == 200 and got.json == hook

    # An edit follows Forgejo: omitted events reset to push, branch filter and
    # authorization header are rewritten, active changes when given, never the secret.
    edited = api.patch(url, token=alice, json={"active": True, "config": {
        "url": "http://new.example.com/x", "content_type": "form", "secret": "other"}})
    assert edited.status == 200, edited
    assert edited.json["events"] == ["push"] and edited.json["branch_filter"] == ""
    assert edited.json["authorization_header"] == "" and edited.json["active"] is True
    assert edited.json["url"] == "http://new.example.com/x"
    assert edited.json["content_type"] == "form"
    assert edited.json["created_at"] == hook["created_at"]
    assert api.get(url, token=alice).json == edited.json
    assert api.patch(url, token=alice, json={"branch_filter": "[z-a]"}).status == 422
    bad_url = api.patch(url, token=alice, json={"config": {"url": "ftp://x"}})
    assert bad_url.status == 422 and bad_url.json["message"] == "Invalid url"
    assert api.get(url, token=alice).json == edited.json  # a refused edit changed nothing

    assert api.delete(url, token=alice).status == 204
    assert api.get(url, token=alice).status == 404
    assert api.delete(url, token=alice).status == 404
    assert api.patch(url, token=alice, json={"active": True}).status == 404
    assert api.get("/user/hooks", token=alice).json == []


def test_list_is_paged_in_creation_order(api, people):
    alice = people["alice"]
    ids = [api.post("/user/hooks", token=alice, json=HOOK).json["id"] for _ in range(3)]
    page = api.get("/user/hooks?limit=2&page=2", token=alice)
    assert page.headers["x-total-count"] == "3" and [h["id"] for h in page.json] == ids[2:]
    first = api.get("/user/hooks?limit=2", token=alice)
    assert [h["id"] for h in first.json] == ids[:2] and 'rel="next"' in first.headers["link"]


def test_only_the_user_reaches_their_hooks(api, people):
    alice, bob = people["alice"], people["bob"]
    hook_id = api.post("/user/hooks", token=alice, json=HOOK).json["id"]
    url = f"/user/hooks/{hook_id}"
    # Signed in, scope user.
    assert api.get("/user/hooks").status == 401
    assert api.post("/user/hooks", json=HOOK).status == 401
    assert api.get(url).status == 401
    reader = api.create_token("alice", scopes=["read:user"], name="reader")
    assert api.get("/user/hooks", token=reader).status == 200
    refused = api.post("/user/hooks", token=reader, json=HOOK)
    assert refused.status == 403 and SCOPE_REFUSED in refused.json["message"]
    repository = api.create_token("alice", scopes=["write:repository"], name="repos")
    assert api.get("/user/hooks", token=repository).status == 403
    writer = api.create_token("alice", scopes=["write:user"], name="writer")
    assert api.patch(url, token=writer, json={"active": True}).status == 200
    # Another user, and the site admin, see only their own (none): alice's id is a 404.
    admin = api.create_token(*ADMIN, name="root")
    for token in (bob, admin):
        assert api.get("/user/hooks", token=token).json == []
        missing = api.get(url, token=token)
        assert missing.status == 404
        assert missing.json["message"] == "The target couldn't be found."   # Forgejo's NotFound()
        assert api.patch(url, token=token, json={"active": False}).status == 404
        assert api.delete(url, token=token).status == 404
    assert api.get(url, token=alice).json["active"] is True           # untouched
    # Password and Basic auth work as for every API route.
    assert api.get("/user/hooks", auth=("bob", "secret-pass-1")).json == []
    # Neither a repository's nor an organization's hook id is one of alice's.
    api.post("/user/repos", token=alice, json={"name": "app"})
    repo_hook = api.post("/repos/alice/app/hooks", token=alice, json=HOOK).json["id"]
    assert api.get(f"/user/hooks/{repo_hook}", token=alice).status == 404
    assert api.get("/user/hooks/nope", token=alice).status in (404, 422)


@pytest.mark.parametrize("body, status, message", [
    ({"config": HOOK["config"]}, 422, "[Type]: Required"),
    ({"type": "gitea"}, 422, "[Config]: Required"),
    ({"type": "gitea", "config": {"url": 5}}, 422, "[Config]: expected an object of strings"),
    ({"type": "jenkins", "config": HOOK["config"]}, 422, "Invalid hook type: jenkins"),
    ({"type": "gitea", "config": {"content_type": "json"}}, 422, "Missing config option: url"),
    ({"type": "gitea", "config": {"url": "https://x.example", "content_type": "xml"}}, 422,
     "Invalid content type"),
    ({"type": "gitea", "config": {"url": "ftp://x.example", "content_type": "json"}}, 422,
     "Invalid url"),
    ({**HOOK, "events": ["push", "tags"]}, 422, "Invalid hook event: tags"),
    ({**HOOK, "active": "yes"}, 422, "[Active]: expected true or false"),
    ({**HOOK, "branch_filter": "[main"}, 422, "[BranchFilter]: unexpected end of input"),
    ({**HOOK, "authorization_header": "Bearer x\r\nX-Evil: 1"}, 422,
     "[AuthorizationHeader]: must not contain control characters"),
    ({"type": "slack", "config": {"url": "https://hooks.slack.com/x", "content_type": "json",
                                  "channel": "Not A Channel"}}, 400, "Invalid slack channel name"),
])
def test_create_validation_is_the_repository_hooks(api, people, body, status, message):
    r = api.post("/user/hooks", token=people["alice"], json=body)
    assert r.status == status, r
    assert r.json["message"] == message
    assert api.get("/user/hooks", token=people["alice"]).json == []


def test_swagger_lists_user_hook_operations(api):
    doc = api.get("/swagger.v1.json").json
    assert set(doc["paths"]["/user/hooks"]) == {"get", "post"}
    assert set(doc["paths"]["/user/hooks/{id}"]) == {"get", "patch", "delete"}
    assert doc["paths"]["/user/hooks"]["get"]["operationId"] == "userListHooks"
    assert doc["paths"]["/user/hooks/{id}"]["patch"]["operationId"] == "userEditHook"


# --- delivery ----------------------------------------------------------------------------

def _add(api, token, path, url, **extra):
    body = {"type": "forgejo", "active": True, "events": ["push", "issues", "create"],
            "config": {"url": url, "content_type": "json", "secret": SECRET}, **extra}
    r = api.post(path, token=token, json=body)
    assert r.status == 201, r
    return r.json["id"]


def _write_file(api, token, repo, path, text):
    r = api.post(f"/repos/{repo}/contents/{path}", token=token, json={
        "content": base64.b64encode(text.encode()).decode(), "message": f"add {path}"})
    assert r.status == 201, r


def test_a_push_and_an_issue_of_the_user_s_repository_reach_the_user_hook(
        api, people, hook_settings, receiver):  # noqa: F811
    alice, bob = people["alice"], people["bob"]
    assert api.post("/user/repos", token=alice, json={"name": "app",
                                                       "auto_init": True}).status == 201
    assert api.post("/user/repos", token=bob, json={"name": "lib"}).status == 201
    assert api.post("/orgs", token=alice, json={"username": "acme"}).status == 201
    assert api.post("/orgs/acme/repos", token=alice, json={"name": "tool"}).status == 201
    pump()                                       # what happened before the hooks
    user_hook = _add(api, alice, "/user/hooks", receiver.url + "/user")
    _add(api, alice, "/repos/alice/app/hooks", receiver.url + "/repo")
    _add(api, alice, "/user/hooks", receiver.url + "/release-only", branch_filter="release/*")
    _add(api, alice, "/user/hooks", receiver.url + "/inactive", active=False)
    _add(api, bob, "/user/hooks", receiver.url + "/bob")

    _write_file(api, alice, "alice/app", "notes.txt", "hello")
    assert api.post("/repos/alice/app/issues", token=alice,
                    json={"title": "Bug <1>", "body": "it & breaks"}).status == 201
    # Other owners' repositories: bob's reaches bob's hook; alice's organization's, neither.
    assert api.post("/repos/bob/lib/issues", token=bob, json={"title": "bob's"}).status == 201
    assert api.post("/repos/acme/tool/issues", token=alice, json={"title": "acme"}).status == 201
    pump()

    mine, repo = receiver.accepted("/user"), receiver.accepted("/repo")
    assert [r.event for r in mine] == ["push", "issues"], mine
    assert [r.event for r in repo] == ["push", "issues"], repo
    push, opened = mine
    # Exactly what the repository's hook got: the same signed text, the same headers.
    for got, twin in zip(mine, repo):
        assert got.body == twin.body and got.signature_ok(SECRET)
        assert {k for k in got.headers if k.startswith("x-")} == \
            {k for k in twin.headers if k.startswith("x-")}
        for name in ("x-forgejo-event", "x-forgejo-event-type", "x-gitea-event",
                     "x-gogs-event", "x-github-event", "x-forgejo-signature",
                     "x-hub-signature-256", "content-type", "user-agent"):
            assert got.headers.get(name) == twin.headers.get(name), name
        assert got.headers["x-forgejo-delivery"] != twin.headers["x-forgejo-delivery"]
    assert push.headers["x-forgejo-event-type"] == "push"
    assert push.headers["content-type"] == "application/json"
    assert list(push.payload) == PUSH
    assert push.payload["ref"] == "refs/heads/main"
    assert push.payload["commits"][0]["message"].startswith("add notes.txt")
    assert push.payload["repository"]["full_name"] == "alice/app"
    assert push.payload["pusher"]["login"] == push.payload["sender"]["login"] == "alice"
    assert list(opened.payload) == ISSUE and opened.payload["action"] == "opened"
    assert opened.payload["issue"]["title"] == "Bug <1>"
    assert b"Bug \\u003c1\\u003e" in opened.body           # Go's JSON, as Forgejo sends
    # A branch filter (on branch events only) and active apply as to any hook; bob's hook
    # heard bob's repository.
    assert [r.event for r in receiver.accepted("/release-only")] == ["issues"]
    assert receiver.accepted("/inactive") == []
    assert [r.payload["repository"]["full_name"] for r in receiver.accepted("/bob")] == [
        "bob/lib"]

    # The deliveries are the table's, under the user hook's own lane: delivered once each.
    from chalicelib.accounts.store import get_by_name
    from chalicelib.webhooks import delivery_store

    ref = delivery_store.hook_ref("user", int(get_by_name("alice").id), user_hook)
    assert delivery_store.queued(ref, 10) == []            # nothing left to send
    history = delivery_store.history(ref, before=None, limit=10)
    assert [(d.event, d.state) for d in history] == [("issues", "delivered"),
                                                     ("push", "delivered")]
    pump()
    assert len(receiver.accepted("/user")) == 2              # nothing sent twice

    # A deleted user hook hears nothing more.
    assert api.delete(f"/user/hooks/{user_hook}", token=alice).status == 204
    assert api.post("/repos/alice/app/issues", token=alice, json={"title": "later"}).status == 201
    pump()
    assert len(receiver.accepted("/user")) == 2 and len(receiver.accepted("/repo")) == 3
