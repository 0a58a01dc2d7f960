"""The migration readers against fake GitHub, GitLab and Gitea servers on loopback
(``fake_services``), and the Gitea reader against a real Nimbus (which serves the
Forgejo API): the records each produces, where the token goes, the network guard,
and what a bad answer becomes."""
from __future__ import annotations

import pytest

from chalicelib import settings as settings_module
from chalicelib.errors import InvalidInput
from chalicelib.migrations import source_http
from chalicelib.migrations.project import Page, Person, Reaction
from chalicelib.migrations.sources import open_source
from tests.migrations import fake_services as fake
from tests.migrations.fake_services import (
    ASSET_BYTES,
    BASE_SHA,
    HEAD_SHA,
    MERGE_SHA,
    TOKEN,
    U1,
    U2,
    U3,
)
from tests.repo_admin.test_migrations import local_networks_allowed  # noqa: F401


@pytest.fixture
def named_hosts_allowed(monkeypatch):
    """Names the tests use without resolving them (no DNS here), allowed by name."""
    monkeypatch.setenv("NIMBUS__MIGRATIONS__ALLOWED_DOMAINS", "github.com,example.com")
    settings_module.reset_settings_cache()
    yield
    monkeypatch.delenv("NIMBUS__MIGRATIONS__ALLOWED_DOMAINS")
    settings_module.reset_settings_cache()


@pytest.fixture
def waits(monkeypatch):
    """The client's waits, recorded instead of slept."""
    seen: list[float] = []
    monkeypatch.setattr(source_http, "pause", seen.append)
    return seen


@pytest.fixture
def files():
    server = fake.asset_server()
    yield server
    server.stop()


@pytest.fixture
def gitea(files):
    server = fake.gitea(files)
    yield server
    server.stop()


def every(read, per_page=2):
    """All items of a paged reader method, and how many pages it took."""
    items, page = [], 1
    while True:
        answer = read(page, per_page)
        assert isinstance(answer, Page)
        items.extend(answer.items)
        if answer.last:
            return items, page
        page += 1


def auth_headers(server) -> list[str]:
    return [s.headers.get("authorization", "") + s.headers.get("private-token", "")
            for s in server.seen]


# --- Gitea / Forgejo -----------------------------------------------------------------

@pytest.mark.parametrize("service", ["gitea", "forgejo"])
def test_gitea_reader_reads_the_whole_project(gitea, files, local_networks_allowed, waits,
                                              service):
    source = open_source(service, f"{gitea.url}/alice/proj.git", token=TOKEN)
    repo = source.repository()
    assert (repo.owner, repo.name, repo.default_branch, repo.has_wiki) == \
        ("alice", "proj", "main", True)
    assert repo.original_url == f"{gitea.url}/alice/proj"
    assert source.wiki_clone_url() == f"{gitea.url}/alice/proj.wiki.git"

    labels = source.labels()
    assert [(lb.name, lb.color, lb.description) for lb in labels] == \
        [("bug", "ee0701", "broken"), ("feature", "00ff00", "")]
    assert waits == [0.0], "the 429 was retried after its Retry-After"
    milestones = source.milestones()
    assert [(m.title, m.state, m.deadline, m.created, m.closed) for m in milestones] == \
        [("v1", "open", U3, U1, 0), ("v0", "closed", 0, U1, U2)]

    issues, pages = every(source.issues)
    assert pages == 2, "max_response_items 2 and X-Total-Count 3"
    assert [i.number for i in issues] == [1, 2, 3]
    first = issues[0]
    assert first.author == Person(1, "alice", "alice@example.com")
    assert (first.labels, first.milestone, first.assignees) == (("bug",), "v1", ("bob",))
    assert (first.created, first.updated, first.comment_count) == (U1, U2, 1)
    assert first.reactions == (Reaction(Person(2, "bob", "bob@example.com"), "+1", U2),
                               Reaction(Person(1, "alice", "alice@example.com"), "rocket", U2))
    assert (issues[2].state, issues[2].closed) == ("closed", U2)
    [comment] = source.comments(1)
    assert (comment.id, comment.author.login, comment.body, comment.created) == \
        (11, "bob", "me too", U2)
    assert [(r.person.login, r.content) for r in comment.reactions] == [("alice", "heart")]

    pulls, _ = every(source.pull_requests)
    assert [p.number for p in pulls] == [4, 5]
    merged = pulls[0]
    assert (merged.state, merged.merged, merged.merged_at, merged.merge_commit_sha) == \
        ("closed", True, U3, MERGE_SHA)
    assert (merged.head.ref, merged.head.sha, merged.base.ref, merged.base.sha) == \
        ("feature", HEAD_SHA, "main", BASE_SHA)
    assert merged.source_ref == "refs/pull/4/head"
    assert (pulls[1].state, pulls[1].merged, pulls[1].merge_commit_sha) == ("open", False, "")
    [review] = source.reviews(4)          # the review request is not a review
    assert (review.id, review.state, review.author.login, review.body, review.official,
            review.created) == (7, "APPROVED", "bob", "ship it", True, U3)
    [line] = review.comments
    assert (line.body, line.path, line.line, line.commit_id) == \
        ("nice line", "a.txt", -3, HEAD_SHA)

    [release], _ = every(source.releases)
    assert (release.tag_name, release.name, release.prerelease, release.published) == \
        ("v1.0", "One", True, U2)
    [asset] = release.assets
    assert (asset.name, asset.size, asset.download_count) == ("app.bin", len(ASSET_BYTES), 3)
    assert b"".join(source.asset_stream(asset)) == ASSET_BYTES

    assert set(auth_headers(gitea)) == {f"token {TOKEN}"}
    assert auth_headers(files) == [""], "the asset's other host never sees the token"
    connections = {s.client_port for s in gitea.seen}
    assert len(connections) < len(gitea.seen) / 3, "JSON requests share a kept connection"


def test_gogs_reads_what_its_api_has(gitea, files, local_networks_allowed, waits):
    source = open_source("gogs", f"{gitea.url}/alice/proj", username="alice", password="pw")
    assert [lb.name for lb in source.labels()] == ["bug", "feature"]
    issues, _ = every(source.issues)
    assert [i.number for i in issues] == [1, 2, 3] and issues[0].reactions == ()
    assert source.comments(1)[0].reactions == ()
    assert source.pull_requests(1, 50) == Page([], True)
    assert source.reviews(4) == [] and source.releases(1, 50) == Page([], True)
    assert not [s for s in gitea.seen if "reactions" in s.path or "pulls" in s.path]
    assert set(auth_headers(gitea)) == {"Basic YWxpY2U6cHc="}


# --- GitHub ---------------------------------------------------------------------------

@pytest.fixture
def github(files):
    server = fake.github(files)
    yield server
    server.stop()


def test_github_reader_reads_the_whole_project(github, files, local_networks_allowed, waits):
    source = open_source("github", f"{github.url}/alice/proj.git", token=TOKEN)
    repo = source.repository()
    assert (repo.owner, repo.name, repo.private, repo.clone_url) == \
        ("alice", "proj", True, "https://github.com/alice/proj.git")
    assert source.wiki_clone_url() == "https://github.com/alice/proj.wiki.git"
    assert [(lb.name, lb.color, lb.description) for lb in source.labels()] == \
        [("bug", "ee0701", "broken"), ("feature", "00ff00", "")]
    assert waits == [0.0]
    assert [(m.title, m.state, m.deadline, m.closed) for m in source.milestones()] == \
        [("v1", "open", U3, 0), ("v0", "closed", 0, U2)]

    issues, pages = every(source.issues)
    assert pages == 3 and [i.number for i in issues] == [1, 2, 3], "pull requests skipped"
    first = issues[0]
    assert (first.author, first.labels, first.milestone, first.assignees) == \
        (Person(1, "alice", ""), ("bug",), "v1", ("bob",))
    assert [(r.person.login, r.content, r.created) for r in first.reactions] == \
        [("bob", "+1", U2), ("alice", "hooray", U3)]
    [comment] = source.comments(1)
    assert (comment.id, comment.author.email, comment.body, comment.updated) == \
        (11, "bob@example.com", "me too", U2)
    assert [r.content for r in comment.reactions] == ["heart"]
    assert not github.requests_to("/api/v3/repos/alice/proj/issues/2/reactions"), \
        "no reactions asked for when the summary counts none"

    pulls, _ = every(source.pull_requests)
    merged, wip = pulls
    assert (merged.number, merged.state, merged.merged, merged.merged_at,
            merged.merge_commit_sha, merged.comment_count) == (4, "closed", True, U3,
                                                               MERGE_SHA, 2)
    assert (merged.head.ref, merged.head.sha, merged.head.repo_owner, merged.base.sha) == \
        ("feature", HEAD_SHA, "bob", BASE_SHA)
    assert [r.content for r in merged.reactions] == ["rocket"]
    assert (wip.number, wip.state, wip.merged, wip.merge_commit_sha) == (5, "open", False, "")
    approved, changes = source.reviews(4)
    assert (approved.state, approved.body, approved.created) == ("APPROVED", "ship it", U3)
    assert [(c.line, c.path) for c in approved.comments] == [(3, "a.txt")]
    assert changes.state == "REQUEST_CHANGES"
    assert [(c.line, c.in_reply_to) for c in changes.comments] == [(-2, 21)]

    [release], _ = every(source.releases)
    [asset] = release.assets
    assert (asset.name, asset.content_type, asset.size) == \
        ("app.bin", "application/x-binary", len(ASSET_BYTES))
    assert b"".join(source.asset_stream(asset)) == ASSET_BYTES
    assert set(auth_headers(github)) == {f"Bearer {TOKEN}"}
    [download] = files.seen
    assert download.query == {"signature": "x"} and "authorization" not in download.headers


def test_github_com_reads_api_github_com(named_hosts_allowed):
    source = open_source("github", "https://github.com/go-gitea/gitea.git")
    assert source.http.base_url == "https://api.github.com"
    assert (source.owner, source.name) == ("go-gitea", "gitea")


# --- GitLab ---------------------------------------------------------------------------

@pytest.fixture
def gitlab(files):
    server = fake.gitlab(files)
    yield server
    server.stop()


def test_gitlab_reader_reads_the_whole_project(gitlab, files, local_networks_allowed, waits):
    source = open_source("gitlab", f"{gitlab.url}/alice/proj.git", token=TOKEN)
    repo = source.repository()
    assert (repo.owner, repo.name, repo.private, repo.has_wiki) == ("alice", "proj", True, True)
    assert source.wiki_clone_url() == f"{gitlab.url}/alice/proj.wiki.git"
    assert [(lb.name, lb.color) for lb in source.labels()] == \
        [("bug", "ee0701"), ("feature", "00ff00")]
    assert waits == [0.0]
    assert [(m.title, m.state, m.deadline, m.closed) for m in source.milestones()] == \
        [("v1", "open", 1706745600, 0), ("v0", "closed", 0, U2)]

    issues, _ = every(source.issues)
    assert [(i.number, i.state) for i in issues] == [(1, "open"), (2, "open"), (3, "closed")]
    first = issues[0]
    assert (first.author, first.labels, first.milestone, first.assignees,
            first.comment_count) == (Person(1, "alice", "alice@example.com"), ("bug",), "v1",
                                     ("bob",), 1)
    assert [(r.person.login, r.content, r.created) for r in first.reactions] == \
        [("bob", "+1", U2), ("alice", "hooray", U3)], "an emoji Forgejo cannot name is left out"
    [comment] = source.comments(1)                       # the system note is not a comment
    assert (comment.id, comment.body, [r.content for r in comment.reactions]) == \
        (51, "me too", ["heart"])

    pulls, _ = every(source.pull_requests)
    assert [p.number for p in pulls] == [4, 5], "merge request iids after the last issue"
    merged = pulls[0]
    assert (merged.state, merged.merged, merged.merged_at, merged.merge_commit_sha) == \
        ("closed", True, U3, MERGE_SHA)
    assert (merged.head.ref, merged.head.sha, merged.base.ref, merged.base.sha,
            merged.source_ref) == ("feature", HEAD_SHA, "main", BASE_SHA,
                                   "refs/merge-requests/1/head")
    assert [c.body for c in source.comments(4)] == ["looks good"]
    [approval] = source.reviews(4)
    assert (approval.state, approval.author.login, approval.created) == ("APPROVED", "alice", U3)
    assert source.reviews(5) == []

    [release], _ = every(source.releases)
    assert (release.tag_name, release.target, release.published) == ("v1.0", HEAD_SHA, U2)
    [asset] = release.assets
    assert b"".join(source.asset_stream(asset)) == ASSET_BYTES
    assert set(auth_headers(gitlab)) == {TOKEN}
    assert auth_headers(files) == [""]


# --- the guard, addresses and bad answers -------------------------------------------------

@pytest.mark.parametrize("service", ["gitea", "github", "gitlab"])
def test_loopback_is_refused_without_the_setting(gitea, service):
    with pytest.raises(InvalidInput, match="disallowed hosts"):
        open_source(service, f"{gitea.url}/alice/proj").repository()
    assert gitea.seen == []


def test_a_source_redirect_to_another_host_is_not_followed(gitea, files,
                                                           local_networks_allowed, waits):
    gitea.routes["/api/v1/repos/alice/proj/milestones"] = lambda request: (
        302, {"Location": f"{files.url}/files/app.bin"}, b"")
    source = open_source("gitea", f"{gitea.url}/alice/proj", token=TOKEN)
    with pytest.raises(InvalidInput, match="redirected .* to another host"):
        source.milestones()
    assert files.seen == []


@pytest.mark.parametrize("answer, message", [
    ((200, {"Content-Type": "text/html"}, b"<html>login</html>"), "text/html, not JSON"),
    ((200, {"Content-Type": "application/json"}, b"{not json"), "invalid JSON"),
    ((404, {"Content-Type": "application/json"}, b'{"message":"Not Found"}'), "not found"),
    ((401, {"Content-Type": "application/json"},
      b'{"message":"token ' + TOKEN.encode() + b' is wrong"}'), "authentication failed"),
    ((200, {"Content-Type": "application/json"}, b'{"a": 1}'), "not a list"),
    ((503, {}, b"down"), "HTTP 503"),
])
def test_bad_answers_are_clear_errors(gitea, local_networks_allowed, waits, answer, message):
    gitea.routes["/api/v1/repos/alice/proj/labels"] = lambda request: answer
    source = open_source("gitea", f"{gitea.url}/alice/proj", token=TOKEN)
    with pytest.raises(InvalidInput, match=message) as caught:
        source.labels()
    assert TOKEN not in str(caught.value)
    if answer[0] == 503:
        assert len(waits) == source_http.ATTEMPTS - 1, "retried, then given up"


def test_a_long_rate_limit_wait_fails_now(gitea, local_networks_allowed, waits):
    gitea.routes["/api/v1/repos/alice/proj/labels"] = lambda request: fake.as_json(
        {}, 403, {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "4102444800"})
    source = open_source("gitea", f"{gitea.url}/alice/proj")
    with pytest.raises(InvalidInput, match="rate limit"):
        source.labels()
    assert waits == []


@pytest.mark.parametrize("service, addr, message", [
    ("bitbucket", "https://example.com/a/b", "unknown migration service"),
    ("gitea", "https://example.com/only-one", "names no <owner>/<repository>"),
    ("gitea", "ssh://git@example.com/a/b", "protocol is not allowed"),
    ("github", "git://example.com/a/b", "over http"),
    ("gitea", "/srv/repos/a/b", "not allowed to import local"),
])
def test_bad_addresses_are_refused(named_hosts_allowed, service, addr, message):
    with pytest.raises(InvalidInput, match=message):
        open_source(service, addr)


def test_gitea_sub_path_and_plain_git(named_hosts_allowed):
    source = open_source("forgejo", "https://example.com/code/alice/proj.git")
    assert source.http.base_url == "https://example.com/code/api/v1"
    plain = open_source("git", "https://example.com/alice/proj.git")
    assert plain.repository().clone_url == "https://example.com/alice/proj.git"
    assert plain.issues(1, 50) == Page([], True) and plain.wiki_clone_url() == ""


# --- a real Nimbus, read as a Forgejo --------------------------------------------------

def _upload(base: str, path: str, name: str, data: bytes, auth: tuple[str, str]) -> dict:
    import base64
    import json
    import urllib.request

    boundary = "nimbus-test-boundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"attachment\"; "
            f"filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n").encode() \
        + data + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(f"{base}{path}?name={name}", data=body, method="POST")
    request.add_header("Content-Type", f"multipart/form-data; boundary={boundary}")
    request.add_header("Authorization",
                       "Basic " + base64.b64encode(":".join(auth).encode()).decode())
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 201
        return json.loads(response.read())


def test_the_forgejo_reader_reads_a_real_nimbus(tmp_path, monkeypatch, local_networks_allowed):
    import base64

    from chalicelib.accounts.service import ensure_admin
    from chalicelib.local.runtime import LocalRuntime
    from tests.local_server import ADMIN_PASSWORD, call

    root = ("root", ADMIN_PASSWORD)
    bob = ("bob", "bob-password-1")
    r = "/api/v1/repos/root/proj"

    def ok(answer, *statuses):
        status, data = answer
        assert status in (statuses or (200, 201)), (status, data)
        return data

    # Unconfigured, the runtime's links (asset downloads) name where it listens.
    monkeypatch.delenv("NIMBUS__SERVER__ROOT_URL", raising=False)
    settings_module.reset_settings_cache()
    with LocalRuntime(port=0, data_dir=tmp_path / "nimbus", access_log=False) as runtime:
        base = runtime.url
        ensure_admin("root", ADMIN_PASSWORD, "root@example.test")
        ok(call(base, "POST", "/api/v1/admin/users", {
            "username": "bob", "password": bob[1], "email": "bob@example.test",
            "must_change_password": False}))
        ok(call(base, "POST", "/api/v1/user/repos", {"name": "proj", "auto_init": True,
                                                     "description": "a project"}))
        ok(call(base, "POST", f"{r}/branches", {"new_branch_name": "feature"}))
        ok(call(base, "POST", f"{r}/contents/b.txt", {
            "content": base64.b64encode(b"one\ntwo\n").decode(), "branch": "feature",
            "message": "add b"}))
        label = ok(call(base, "POST", f"{r}/labels", {"name": "bug", "color": "#ee0701",
                                                      "description": "broken"}))
        milestone = ok(call(base, "POST", f"{r}/milestones", {"title": "v1",
                                                              "description": "first"}))
        issue = ok(call(base, "POST", f"{r}/issues", {
            "title": "Crash", "body": "it crashes", "labels": [label["id"]],
            "milestone": milestone["id"]}))
        comment = ok(call(base, "POST", f"{r}/issues/1/comments", {"body": "me too"}, auth=bob))
        ok(call(base, "POST", f"{r}/issues/1/reactions", {"content": "+1"}, auth=bob))
        ok(call(base, "POST", f"{r}/issues/comments/{comment['id']}/reactions",
                {"content": "heart"}))
        pull = ok(call(base, "POST", f"{r}/pulls", {"head": "feature", "base": "main",
                                                    "title": "Add b", "body": "please"}))
        review = ok(call(base, "POST", f"{r}/pulls/{pull['number']}/reviews", {
            "event": "APPROVED", "body": "ship it",
            "comments": [{"path": "b.txt", "body": "nice", "new_position": 2}]}, auth=bob))
        release = ok(call(base, "POST", f"{r}/releases", {
            "tag_name": "v1.0", "target_commitish": "main", "name": "One", "body": "notes"}))
        _upload(base, f"{r}/releases/{release['id']}/assets", "app.bin", ASSET_BYTES, root)

        source = open_source("forgejo", f"{base}/root/proj.git", username=root[0],
                             password=root[1])
        repo = source.repository()
        assert (repo.owner, repo.name, repo.description, repo.default_branch) == \
            ("root", "proj", "a project", "main")
        assert [(lb.name, lb.color, lb.description) for lb in source.labels()] == \
            [("bug", "ee0701", "broken")]
        [read_milestone] = source.milestones()
        assert (read_milestone.title, read_milestone.description, read_milestone.state) == \
            ("v1", "first", "open")

        issues, _ = every(source.issues, per_page=50)
        [read_issue] = issues                         # the pull request is not an issue
        assert (read_issue.number, read_issue.title, read_issue.body, read_issue.author.login,
                read_issue.labels, read_issue.milestone, read_issue.comment_count) == \
            (issue["number"], "Crash", "it crashes", "root", ("bug",), "v1", 1)
        assert read_issue.created > 0
        assert [(x.person.login, x.content) for x in read_issue.reactions] == [("bob", "+1")]
        assert read_issue.reactions[0].created >= read_issue.created > 0
        [read_comment] = source.comments(1)
        assert (read_comment.id, read_comment.author.login, read_comment.body) == \
            (comment["id"], "bob", "me too")
        assert [(x.person.login, x.content) for x in read_comment.reactions] == \
            [("root", "heart")]

        pulls, _ = every(source.pull_requests, per_page=50)
        [read_pull] = pulls
        assert (read_pull.number, read_pull.title, read_pull.state, read_pull.merged) == \
            (pull["number"], "Add b", "open", False)
        assert (read_pull.head.ref, read_pull.head.sha, read_pull.base.ref) == \
            ("feature", pull["head"]["sha"], "main")
        [read_review] = source.reviews(pull["number"])
        assert (read_review.id, read_review.state, read_review.author.login,
                read_review.body) == (review["id"], "APPROVED", "bob", "ship it")
        assert [(c.path, c.body, c.line) for c in read_review.comments] == \
            [("b.txt", "nice", 2)]

        [read_release], _ = every(source.releases, per_page=50)
        assert (read_release.tag_name, read_release.name, read_release.body) == \
            ("v1.0", "One", "notes")
        [asset] = read_release.assets
        assert (asset.name, asset.size) == ("app.bin", len(ASSET_BYTES)), asset
        assert b"".join(source.asset_stream(asset)) == ASSET_BYTES
