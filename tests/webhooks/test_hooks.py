"""Webhook records of repositories and organizations, and which hooks an event reaches."""
import pytest

from chalicelib.http import schemas
from tests.conftest import ADMIN
from tests.accounts.test_users import assert_matches_forgejo

HOOK = {"type": "gitea", "config": {"url": "https://ci.example.com/hook", "content_type": "json",
                                    "secret": "s3cret-value"}}


def account(name):
    from chalicelib.accounts.store import get_by_name

    return get_by_name(name)


def make_org(owner: str, name: str, **extra):
    from chalicelib.orgs import service as orgs
    from chalicelib.orgs.options import CreateOrgOption

    actor = account(owner)
    return orgs.create_org(actor, actor, CreateOrgOption(username=name, **extra))


def collaborate(owner: str, repo: str, user: str, mode: str) -> None:
    from chalicelib.repos import store as repo_store
    from chalicelib.repos.models import Collaboration
    from chalicelib.repos.models import keys

    repo_id, user_id = int(repo_store.get(owner, repo).id), int(account(user).id)
    Collaboration(*keys.collaboration(repo_id, user_id), user_id=user_id, mode=mode).save()


@pytest.fixture
def scene(api):
    """alice owns alice/app (public) and alice/vault (private); bob is a stranger, carol a
    read collaborator and dave an admin collaborator on alice/app."""
    for name in ("alice", "bob", "carol", "dave"):
        api.create_user(name)
    tokens = {name: api.create_token(name) for name in ("alice", "bob", "carol", "dave")}
    for repo, private in (("app", False), ("vault", True)):
        r = api.post("/user/repos", token=tokens["alice"], json={"name": repo, "private": private})
        assert r.status == 201, r
    collaborate("alice", "app", "carol", "read")
    collaborate("alice", "app", "dave", "admin")
    return tokens


def test_repo_hook_lifecycle_and_record(api, scene):
    alice = scene["alice"]
    r = api.post("/repos/alice/app/hooks", token=alice, json={
        **HOOK, "events": ["push", "Issues"], "branch_filter": "{main,release/*}",
        "authorization_header": "Bearer abc"})
    assert r.status == 201, r
    hook = r.json
    assert_matches_forgejo(hook, "Hook", nullable=("metadata",))
    assert list(hook) == list(schemas.RECORDS["Hook"])
    assert hook["type"] == "gitea" and hook["active"] is False       # Forgejo's default
    assert hook["url"] == hook["config"]["url"] == "https://ci.example.com/hook"
    assert hook["config"] == {"url": "https://ci.example.com/hook", "content_type": "json"}
    assert hook["content_type"] == "json" and hook["metadata"] is None
    assert hook["events"] == ["push", "issues", "issue_assign", "issue_label",
                              "issue_milestone", "issue_comment"]
    assert hook["branch_filter"] == "{main,release/*}"
    assert hook["authorization_header"] == "Bearer abc"   # Forgejo returns it in clear
    assert b"s3cret-value" not in r.body and b"secret" not in r.body

    listed = api.get("/repos/alice/app/hooks", token=alice)
    assert listed.status == 200 and listed.headers["x-total-count"] == "1"
    assert listed.json == [hook]
    got = api.get(f"/repos/alice/app/hooks/{hook['id']}", token=alice)
    assert got.status == 200 and got.json == hook

    assert api.delete(f"/repos/alice/app/hooks/{hook['id']}", token=alice).status == 204
    assert api.get(f"/repos/alice/app/hooks/{hook['id']}", token=alice).status == 404
    assert api.delete(f"/repos/alice/app/hooks/{hook['id']}", token=alice).status == 404
    assert api.patch(f"/repos/alice/app/hooks/{hook['id']}", token=alice,
                     json={"active": True}).status == 404
    assert api.get("/repos/alice/app/hooks", token=alice).json == []


def test_list_is_paged_in_creation_order(api, scene):
    ids = [api.post("/repos/alice/app/hooks", token=scene["alice"], json=HOOK).json["id"]
           for _ in range(3)]
    page = api.get("/repos/alice/app/hooks?limit=2&page=2", token=scene["alice"])
    assert page.headers["x-total-count"] == "3" and [h["id"] for h in page.json] == ids[2:]
    first = api.get("/repos/alice/app/hooks?limit=2", token=scene["alice"])
    assert [h["id"] for h in first.json] == ids[:2] and 'rel="next"' in first.headers["link"]


def test_edit_follows_forgejo(api, scene):
    from chalicelib.webhooks.models import Hook
    from chalicelib.webhooks.models import keys
    from chalicelib.repos import store as repo_store

    alice = scene["alice"]
    hook = api.post("/repos/alice/app/hooks", token=alice, json={
        **HOOK, "events": ["create", "delete"], "branch_filter": "main", "active": True,
        "authorization_header": "Basic eA=="}).json
    url = f"/repos/alice/app/hooks/{hook['id']}"
    # Omitted events reset to push; branch filter and authorization header are always
    # rewritten; active only when given; the secret cannot change through the API.
    r = api.patch(url, token=alice, json={"config": {"url": "http://new.example.com/x",
                                                      "content_type": "form",
                                                      "secret": "other"}})
    assert r.status == 200, r
    assert r.json["events"] == ["push"] and r.json["branch_filter"] == ""
    assert r.json["authorization_header"] == "" and r.json["active"] is True
    assert r.json["url"] == "http://new.example.com/x" and r.json["content_type"] == "form"
    assert r.json["created_at"] == hook["created_at"]
    stored = Hook.get(*keys.repo_hook(int(repo_store.get("alice", "app").id), hook["id"]))
    assert stored.secret == "s3cret-value" and stored.http_method == "POST"

    r = api.patch(url, token=alice, json={"active": False, "events": ["pull_request"],
                                          "branch_filter": "feature/**"})
    assert r.json["active"] is False and r.json["branch_filter"] == "feature/**"
    assert r.json["events"] == [
        "pull_request", "pull_request_assign", "pull_request_label", "pull_request_milestone",
        "pull_request_comment", "pull_request_review_approved", "pull_request_review_rejected",
        "pull_request_review_comment", "pull_request_sync", "pull_request_review_request"]
    # Sending back what was read keeps the subscription.
    again = api.patch(url, token=alice, json={"events": r.json["events"],
                                              "branch_filter": "feature/**"})
    assert again.json["events"] == r.json["events"]
    assert api.patch(url, token=alice, json={"config": {"url": "ftp://x"}}).status == 422
    assert api.patch(url, token=alice, json={"config": {"content_type": "xml"}}).status == 422
    assert api.patch(url, token=alice, json={"branch_filter": "[z-a]"}).status == 422
    assert api.get(url, token=alice).json["branch_filter"] == "feature/**"  # unchanged


@pytest.mark.parametrize("body, message", [
    ({"config": HOOK["config"]}, "[Type]: Required"),
    ({"type": "gitea"}, "[Config]: Required"),
    ({"type": "gitea", "config": {}}, "[Config]: Required"),
    ({"type": "gitea", "config": {"url": 5}}, "[Config]: expected an object of strings"),
    ({"type": "jenkins", "config": HOOK["config"]}, "Invalid hook type: jenkins"),
    ({"type": "gitea", "config": {"content_type": "json"}}, "Missing config option: url"),
    ({"type": "gitea", "config": {"url": "https://x.example"}},
     "Missing config option: content_type"),
    ({"type": "gitea", "config": {"url": "https://x.example", "content_type": "xml"}},
     "Invalid content type"),
    ({"type": "gitea", "config": {"url": "ftp://x.example", "content_type": "json"}},
     "Invalid url"),
    ({"type": "gitea", "config": {"url": "example.com/hook", "content_type": "json"}},
     "Invalid url"),
    ({"type": "gitea", "config": {"url": "http://exa mple.com", "content_type": "json"}},
     "Invalid url"),
    ({**HOOK, "events": ["push", "tags"]}, "Invalid hook event: tags"),
    ({**HOOK, "events": "push"}, "[Events]: expected a list"),
    ({**HOOK, "active": "yes"}, "[Active]: expected true or false"),
    ({**HOOK, "branch_filter": "[main"}, "[BranchFilter]: unexpected end of input"),
    ({**HOOK, "branch_filter": "[a-zA-Z]"}, "[BranchFilter]: expected close range character"),
    ({**HOOK, "authorization_header": "Bearer x\r\nX-Evil: 1"},
     "[AuthorizationHeader]: must not contain control characters"),
    ({"type": "slack", "config": {"url": "https://hooks.slack.com/x", "content_type": "json"}},
     "Missing config option: channel"),
])
def test_create_validation(api, scene, body, message):
    r = api.post("/repos/alice/app/hooks", token=scene["alice"], json=body)
    assert r.status == 422, r
    assert r.json["message"] == message


def test_hook_types_and_metadata(api, scene):
    alice = scene["alice"]
    bad = api.post("/repos/alice/app/hooks", token=alice, json={
        "type": "slack", "config": {"url": "https://hooks.slack.com/x", "content_type": "json",
                                    "channel": "Not A Channel"}})
    assert bad.status == 400 and bad.json["message"] == "Invalid slack channel name"
    slack = api.post("/repos/alice/app/hooks", token=alice, json={
        "type": "slack", "config": {"url": "https://hooks.slack.com/x", "content_type": "json",
                                    "channel": " #builds ", "username": "bot"}}).json
    meta = {"channel": "#builds", "username": "bot", "icon_url": "", "color": ""}
    assert slack["metadata"] == meta
    assert slack["config"] == {"url": "https://hooks.slack.com/x", "content_type": "json", **meta}
    discord = api.post("/repos/alice/app/hooks", token=alice, json={
        **HOOK, "type": "discord"}).json
    assert discord["metadata"] == {"username": "", "icon_url": ""}
    for kind in ("forgejo", "gogs", "msteams", "matrix", "packagist", "sourcehut_builds"):
        r = api.post("/repos/alice/app/hooks", token=alice, json={**HOOK, "type": kind})
        assert r.status == 201 and r.json["type"] == kind, r


def test_who_may_manage_repository_hooks(api, scene):
    body = HOOK
    assert api.post("/repos/alice/app/hooks", json=body).status == 401
    assert api.get("/repos/alice/app/hooks", token=scene["bob"]).status == 403
    assert api.post("/repos/alice/app/hooks", token=scene["bob"], json=body).status == 403
    r = api.get("/repos/alice/app/hooks", token=scene["carol"])   # read collaborator
    assert r.status == 403
    assert r.json["message"] == ("user should be an owner or a collaborator with admin write "
                                 "of a repository")
    assert api.post("/repos/alice/vault/hooks", token=scene["bob"], json=body).status == 404
    assert api.get("/repos/alice/nope/hooks", token=scene["alice"]).status == 404
    made = api.post("/repos/alice/app/hooks", token=scene["dave"], json=body)  # admin collab
    assert made.status == 201
    assert api.get(f"/repos/alice/app/hooks/{made.json['id']}", token=scene["bob"]).status == 403
    assert api.post("/repos/alice/vault/hooks", auth=ADMIN, json=body).status == 201
    # A hook id is only found under its own repository.
    assert api.get(f"/repos/alice/vault/hooks/{made.json['id']}", auth=ADMIN).status == 404
    read_only = api.create_token("alice", scopes=["read:repository"], name="ro")
    assert api.get("/repos/alice/app/hooks", token=read_only).status == 200
    assert api.post("/repos/alice/app/hooks", token=read_only, json=body).status == 403


def test_organization_hooks(api, scene):
    from chalicelib.orgs import service as orgs
    from chalicelib.orgs.options import CreateTeamOption

    org = make_org("alice", "acme")
    team = orgs.create_team(account("alice"), org,
                            CreateTeamOption(name="devs", permission="admin"))
    orgs.add_team_member(account("alice"), team, account("carol"))
    make_org("alice", "hidden", visibility="private")

    # The seed's path has a trailing slash; both spellings reach orgCreateHook.
    r = api.post("/orgs/acme/hooks/", token=scene["alice"], json={**HOOK, "active": True})
    assert r.status == 201, r
    assert_matches_forgejo(r.json, "Hook", nullable=("metadata",))
    hook_id = r.json["id"]
    assert api.post("/orgs/acme/hooks", token=scene["alice"], json=HOOK).status == 201
    listed = api.get("/orgs/acme/hooks", token=scene["alice"])
    assert listed.status == 200 and listed.headers["x-total-count"] == "2"
    assert listed.json[0] == r.json
    url = f"/orgs/acme/hooks/{hook_id}"
    assert api.get(url, token=scene["alice"]).json == r.json
    edited = api.patch(url, token=scene["alice"], json={"events": ["release"]})
    assert edited.status == 200 and edited.json["events"] == ["release"]
    assert api.get(url, auth=ADMIN).status == 200                   # site admins may

    # Members who are not owners get 403, so do outsiders of a public organization;
    # a private one is invisible to outsiders.
    member = api.get("/orgs/acme/hooks", token=scene["carol"])
    assert member.status == 403 and member.json["message"] == "Must be an organization owner"
    assert api.post("/orgs/acme/hooks", token=scene["bob"], json=HOOK).status == 403
    assert api.get("/orgs/hidden/hooks", token=scene["bob"]).status == 404
    assert api.get("/orgs/hidden/hooks", token=scene["alice"]).status == 200
    assert api.get("/orgs/nope/hooks", token=scene["alice"]).status == 404
    assert api.get("/orgs/bob/hooks", token=scene["bob"]).status == 404   # a user, not an org
    assert api.get("/orgs/acme/hooks").status == 401
    bad = api.post("/orgs/acme/hooks", token=scene["alice"], json={**HOOK, "type": "x"})
    assert bad.status == 422

    assert api.delete(url, token=scene["carol"]).status == 403
    assert api.delete(url, token=scene["alice"]).status == 204
    assert api.get(url, token=scene["alice"]).status == 404
    assert api.get("/orgs/acme/hooks", token=scene["alice"]).headers["x-total-count"] == "1"


def test_swagger_lists_hook_operations(api):
    doc = api.get("/swagger.v1.json").json
    assert set(doc["paths"]["/orgs/{org}/hooks"]) == {"get", "post"}
    assert set(doc["paths"]["/repos/{owner}/{repo}/hooks/{id}"]) == {"get", "patch", "delete"}
    assert set(doc["paths"]["/repos/{owner}/{repo}/hooks/{id}/tests"]) == {"post"}
    assert set(doc["paths"]["/admin/hooks/{id}"]) == {"get", "patch", "delete"}
    assert doc["responses"]["HookList"]["schema"]["items"] == {"$ref": "#/definitions/Hook"}
    assert doc["definitions"]["CreateHookOption"]["required"] == ["type", "config"]


# --- which hooks an event reaches ------------------------------------------------------

def _hook(api, token, path, *, events=("push",), branch_filter="", active=True):
    r = api.post(path, token=token, json={**HOOK, "events": list(events), "active": active,
                                          "branch_filter": branch_filter})
    assert r.status == 201, r
    return r.json["id"]


def test_matching_hooks(api, scene):
    from chalicelib.repo_admin import service as repo_admin
    from chalicelib.repo_admin.options import CreateRepoOption
    from chalicelib.webhooks import service as hooks
    from chalicelib.repos.views import Caller
    from chalicelib.repos import store as repo_store
    from chalicelib.webhooks.models import Hook
    from chalicelib.webhooks.models import keys

    alice = scene["alice"]
    org = make_org("alice", "acme")
    repo_admin.create_repo(Caller(account("alice")), org, CreateRepoOption(name="svc"))
    repo = repo_store.get("acme", "svc")
    on_repo = "/repos/acme/svc/hooks"
    pushes = _hook(api, alice, on_repo)
    main_only = _hook(api, alice, on_repo, events=("push", "create"), branch_filter="main")
    releases = _hook(api, alice, on_repo, events=("push",), branch_filter="release/*")
    inactive = _hook(api, alice, on_repo, events=("push", "issues"), active=False)
    issues = _hook(api, alice, on_repo, events=("issues_only",))
    org_hook = _hook(api, alice, "/orgs/acme/hooks", events=("push", "pull_request_review"))
    _hook(api, alice, "/repos/alice/app/hooks")              # another repository's

    def ids(event, branch=None):
        return [h.id for h in hooks.matching_hooks(repo, org, event, branch)]

    # Repository hooks first, then the organization's; inactive ones never.
    assert ids("push", "main") == [pushes, main_only, org_hook]
    assert ids("push", "release/1.0") == [pushes, releases, org_hook]   # * crosses /
    assert ids("push", "dev") == [pushes, org_hook]
    assert ids("push") == [pushes, main_only, releases, org_hook]      # a tag: no filter
    assert ids("create", "main") == [main_only] and ids("create", "dev") == []
    assert ids("issues") == [issues] and ids("issue_comment") == []
    assert ids("pull_request_review_approved") == [org_hook]
    # Forgejo checks review comments against the pull_request_comment flag.
    assert ids("pull_request_review_comment") == []
    assert ids("release") == []
    with pytest.raises(ValueError):
        hooks.matching_hooks(repo, org, "tag_push")

    # push_only hooks (made in Forgejo's UI) get pushes whatever else they chose.
    item = Hook.get(*keys.repo_hook(int(repo.id), inactive))
    item.update(actions=[Hook.active.set(True), Hook.push_only.set(True),
                         Hook.choose_events.set(False)])
    assert inactive in ids("push", "dev") and inactive not in ids("issues")
    record = api.get(f"{on_repo}/{inactive}", token=alice).json
    assert record["events"] == ["push"]


@pytest.mark.parametrize("pattern, yes, no", [
    ("", ["main", "a/b"], []),
    ("*", ["main", "a/b"], []),
    ("main", ["main"], ["Main", "main2", "xmain"]),
    ("release/*", ["release/1", "release/1/2"], ["release", "releases/1"]),
    ("**/fix", ["a/b/fix", "/fix"], ["fix"]),
    ("v?.x", ["v1.x"], ["v10.x", "v.x"]),
    ("{main,dev*}", ["main", "dev", "develop"], ["mai", "xdev"]),
    ("feat-{a,{b,c}d}", ["feat-a", "feat-bd", "feat-cd"], ["feat-b"]),
    ("[abc]x", ["ax", "cx"], ["dx", "x"]),
    ("[!abc]x", ["dx"], ["ax"]),
    ("v[0-9].*", ["v1.0", "v9."], ["va.0", "v10.0"]),
    ("[!0-9]*", ["main"], ["1x"]),
    (r"a\*b", ["a*b"], ["axb"]),
    (r"[\]]", ["]"], ["a"]),
    ("a,b}", ["a,b}"], ["a"]),
    ("{a,b", ["a", "b"], ["{a,b"]),
    ("x.y+(z)", ["x.y+(z)"], ["xxy+(z)"]),
])
def test_branch_filter_globs(pattern, yes, no):
    from chalicelib.webhooks.branch_filters import branch_matches

    assert all(branch_matches(pattern, b) for b in yes), pattern
    assert not any(branch_matches(pattern, b) for b in no), pattern


@pytest.mark.parametrize("pattern", ["[", "[]", "[!]", "[a-", "[z-a]", "[a-zA-Z]", "x[ab"])
def test_invalid_branch_filters(pattern):
    from chalicelib.webhooks.branch_filters import branch_matches, compile_glob

    with pytest.raises(ValueError):
        compile_glob(pattern)
    assert branch_matches(pattern, "main") is False
