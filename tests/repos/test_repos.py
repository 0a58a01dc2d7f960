"""Repository operations through the API: status codes and record shapes."""
import io
import tarfile
import zipfile

import pytest

from tests.conftest import ADMIN
from tests.accounts.test_users import assert_matches_forgejo

NULLABLE = ("parent", "repo_transfer")


@pytest.fixture
def alice(api):
    api.create_user("alice")
    return api.create_token("alice")


def create(api, token, name, **options):
    r = api.post("/user/repos", token=token, json={"name": name, **options})
    assert r.status == 201, r
    return r.json


def test_create_repository_record(api, alice):
    repo = create(api, alice, "hello", description="first", auto_init=True)
    assert_matches_forgejo(repo, "Repository", nullable=NULLABLE)
    assert repo["full_name"] == "alice/hello" and repo["owner"]["login"] == "alice"
    assert repo["owner"]["username"] == "alice"
    assert repo["permissions"] == {"admin": True, "push": True, "pull": True}
    assert repo["clone_url"] == "http://nimbus.test/alice/hello.git"
    assert repo["html_url"] == "http://nimbus.test/alice/hello"
    assert repo["url"] == "http://nimbus.test/api/v1/repos/alice/hello"
    assert repo["default_branch"] == "main" and repo["empty"] is False
    assert repo["private"] is False and repo["fork"] is False and repo["parent"] is None
    empty = create(api, alice, "empty-one")
    assert empty["empty"] is True


def test_issue_dependencies_are_reported_on(api, alice):
    """Issue dependencies are served (tests/issues/test_dependencies.py): the record says
    so, and their lists answer."""
    repo = create(api, alice, "deps", auto_init=True)
    assert repo["internal_tracker"]["enable_issue_dependencies"] is True
    number = api.post("/repos/alice/deps/issues", token=alice, json={"title": "t"}).json["number"]
    for path in (f"/repos/alice/deps/issues/{number}/dependencies",
                 f"/repos/alice/deps/issues/{number}/blocks"):
        found = api.get(path, token=alice)
        assert found.status == 200 and found.json == []
        assert api.post(path, token=alice, json={"index": number}).status == 404


def test_create_repository_errors(api, alice):
    assert api.post("/user/repos", json={"name": "x"}).status == 401
    create(api, alice, "dup")
    r = api.post("/user/repos", token=alice, json={"name": "DUP"})
    assert r.status == 409
    assert r.json["message"] == "The repository with the same name already exists."
    for bad in ("", "has space", "x" * 101, "..", "name.git"):
        assert api.post("/user/repos", token=alice, json={"name": bad}).status == 422, bad
    r = api.post("/user/repos", token=alice, json={"name": "g", "auto_init": True,
                                                   "gitignores": "Nope"})
    assert r.status == 422
    # Nothing was left behind by the refused request.
    assert api.get("/repos/alice/g", token=alice).status == 404
    r = api.post("/user/repos", token=alice, json={"name": "b", "default_branch": "bad..name"})
    assert r.status == 422


def test_admin_create_repo(api, alice):
    r = api.post("/admin/users/alice/repos", auth=ADMIN, json={"name": "by-admin",
                                                               "private": True})
    assert r.status == 201 and r.json["owner"]["login"] == "alice" and r.json["private"]
    assert api.post("/admin/users/nobody/repos", auth=ADMIN, json={"name": "x"}).status == 404
    assert api.post("/admin/users/alice/repos", token=alice, json={"name": "x"}).status == 403
    # The user now owns a repository: deleting the user is refused.
    assert api.delete("/admin/users/alice", auth=ADMIN).status == 422


def test_visibility_of_private_repositories(api, alice):
    create(api, alice, "secret", private=True)
    create(api, alice, "open")
    api.create_user("bob")
    bob = api.create_token("bob")
    assert api.get("/repos/alice/secret").status == 404
    assert api.get("/repos/alice/secret", token=bob).status == 404
    assert api.get("/repos/alice/secret", token=alice).status == 200
    assert api.get("/repos/alice/secret", auth=ADMIN).status == 200
    anon = api.get("/repos/alice/open")
    assert anon.status == 200
    assert anon.json["permissions"] == {"admin": False, "push": False, "pull": True}
    assert api.get("/repos/alice/open", token=bob).json["permissions"]["push"] is False
    public_only = api.create_token("alice", scopes=["public-only", "read:repository"], name="po")
    assert api.get("/repos/alice/secret", token=public_only).status == 404
    assert api.get("/repos/alice/open", token=public_only).status == 200


def test_delete_repository(api, alice):
    create(api, alice, "doomed", auto_init=True)
    create(api, alice, "hidden", private=True)
    api.create_user("bob")
    bob = api.create_token("bob")
    assert api.delete("/repos/alice/doomed", token=bob).status == 403
    assert api.delete("/repos/alice/hidden", token=bob).status == 404
    assert api.delete("/repos/alice/doomed").status == 401
    assert api.delete("/repos/alice/doomed", token=alice).status == 204
    assert api.get("/repos/alice/doomed", token=alice).status == 404
    # The name is free again.
    create(api, alice, "doomed")
    assert api.delete("/repos/alice/hidden", auth=ADMIN).status == 204


def test_search(api, alice):
    for name in ("alpha", "beta", "alphabet"):
        create(api, alice, name)
    create(api, alice, "alpha-private", private=True)
    r = api.get("/repos/search?q=alpha")
    assert r.status == 200 and r.json["ok"] is True
    assert [x["name"] for x in r.json["data"]] == ["alpha", "alphabet"]
    assert r.headers["x-total-count"] == "2"
    mine = api.get("/repos/search?q=alpha", token=alice)
    assert [x["name"] for x in mine.json["data"]] == ["alpha", "alpha-private", "alphabet"]
    assert api.get("/repos/search?mode=weird").status == 422
    page = api.get("/repos/search?limit=1&page=2")
    assert len(page.json["data"]) == 1 and 'rel="next"' in page.headers["link"]
    uid = api.get("/users/alice").json["id"]
    assert len(api.get(f"/repos/search?uid={uid}").json["data"]) == 3
    assert api.get("/repos/search?mode=fork").json["data"] == []
    r = api.get("/repos/search?limit=500")
    assert r.status == 200 and len(r.json["data"]) == 3


def test_user_repository_lists(api, alice):
    create(api, alice, "one")
    create(api, alice, "two", private=True)
    assert [r["name"] for r in api.get("/users/alice/repos").json] == ["one"]
    assert [r["name"] for r in api.get("/user/repos", token=alice).json] == ["one", "two"]
    assert api.get("/users/nobody/repos").status == 404
    assert api.get("/user/repos").status == 401


def test_branches_raw_editorconfig(api, alice):
    create(api, alice, "content", auto_init=True, license="MIT", gitignores="Python")
    branches = api.get("/repos/alice/content/branches")
    assert branches.status == 200 and [b["name"] for b in branches.json] == ["main"]
    branch = api.get("/repos/alice/content/branches/main", token=alice).json
    assert_matches_forgejo(branch, "Branch")
    assert_matches_forgejo(branch["commit"], "PayloadCommit",
                           nullable=("added", "removed", "modified"))
    assert branch["commit"]["author"]["username"] == "alice"
    assert branch["user_can_push"] is True
    assert api.get("/repos/alice/content/branches/nope").status == 404
    readme = api.get("/repos/alice/content/raw/README.md")
    assert readme.status == 200 and readme.body == b"# content\n"
    assert readme.headers["content-type"] == "text/plain; charset=utf-8"
    assert b"MIT License" in api.get("/repos/alice/content/raw/LICENSE?ref=main").body
    sha = branch["commit"]["id"]
    assert api.get(f"/repos/alice/content/raw/.gitignore?ref={sha[:10]}").status == 200
    assert api.get("/repos/alice/content/raw/missing.txt").status == 404
    assert api.get("/repos/alice/content/raw/README.md?ref=nope").status == 404
    assert api.get("/repos/alice/content/editorconfig/x.py").status == 404  # no .editorconfig
    empty = create(api, alice, "blank")
    assert api.get(f"/repos/alice/{empty['name']}/raw/README.md").status == 404


def test_archives(api, alice):
    create(api, alice, "arch", auto_init=True)
    z = api.get("/repos/alice/arch/archive/main.zip")
    assert z.status == 200 and z.headers["content-type"] == "application/zip"
    assert 'filename="arch-main.zip"' in z.headers["content-disposition"]
    assert zipfile.ZipFile(io.BytesIO(z.body)).read("arch/README.md") == b"# arch\n"
    t = api.get("/repos/alice/arch/archive/main.tar.gz")
    assert t.status == 200
    with tarfile.open(fileobj=io.BytesIO(t.body), mode="r:gz") as tf:
        assert tf.extractfile("arch/README.md").read() == b"# arch\n"
    b = api.get("/repos/alice/arch/archive/main.bundle")
    assert b.status == 200 and b.body.startswith(b"# v2 git bundle\n")
    again = api.get("/repos/alice/arch/archive/main.zip")  # served from the cache
    assert again.body == z.body
    assert api.get("/repos/alice/arch/archive/nope.zip").status == 404
    assert api.get("/repos/alice/arch/archive/main.rar").status == 400


def test_fork(api, alice):
    create(api, alice, "upstream", auto_init=True)
    api.create_user("bob")
    bob = api.create_token("bob")
    r = api.post("/repos/alice/upstream/forks", token=bob, json={})
    assert r.status == 202
    fork = r.json
    assert fork["fork"] is True and fork["full_name"] == "bob/upstream"
    assert fork["parent"]["full_name"] == "alice/upstream"
    assert fork["permissions"] == {"admin": True, "push": True, "pull": True}
    assert api.get("/repos/bob/upstream/raw/README.md").body == b"# upstream\n"
    assert [b["name"] for b in api.get("/repos/bob/upstream/branches").json] == ["main"]
    forks = api.get("/repos/alice/upstream/forks")
    assert [f["full_name"] for f in forks.json] == ["bob/upstream"]
    assert api.get("/repos/alice/upstream").json["forks_count"] == 1
    assert api.post("/repos/alice/upstream/forks", token=bob, json={}).status == 409
    named = api.post("/repos/alice/upstream/forks", token=bob, json={"name": "mine"})
    assert named.status == 202 and named.json["name"] == "mine"
    # Deleting the parent leaves the forks standing, now independent.
    assert api.delete("/repos/alice/upstream", token=alice).status == 204
    assert api.get("/repos/bob/upstream/raw/README.md").body == b"# upstream\n"
    assert api.get("/repos/bob/upstream").json["fork"] is False


def test_search_results_record(api, alice):
    create(api, alice, "found")
    r = api.get("/repos/search?q=found")
    assert_matches_forgejo(r.json, "SearchResults")
    assert_matches_forgejo(r.json["data"][0], "Repository", nullable=NULLABLE)


def test_compaction_job_repacks_pools(api, alice, monkeypatch):
    """The scheduled job finds every pool (with its forks) and compacts it; content
    stays readable through the API and the fork afterwards."""
    from chalicelib.gitstore import compaction, packdb
    from chalicelib.jobs import schedules
    from chalicelib.repos import store as repo_store

    create(api, alice, "packed", auto_init=True)
    api.create_user("bob")
    assert api.post("/repos/alice/packed/forks", token=api.create_token("bob"), json={}).status == 202
    # A second pack in the pool, holding an object no ref reaches.
    from dulwich.objects import Blob

    from chalicelib.gitstore import repo as gitrepo
    repo = repo_store.get("alice", "packed")
    git = gitrepo.open_repo(repo.id, repo.pool_id)
    git.object_store.add_objects([(Blob.from_string(b"loose object\n"), None)])
    assert len(packdb.list_packs(repo.pool_id)) == 2
    original = compaction.compact_pool
    monkeypatch.setattr(compaction, "compact_pool",
                        lambda pool, ids, **kw: original(pool, ids, min_age_seconds=0, **kw))
    assert schedules.compact_packs() == 1
    # Reachable objects in one compacted pack; the unreachable blob waits in a garbage
    # pack for one grace period before it is dropped.
    roles = sorted(info.role for info in packdb.list_packs(repo.pool_id).values())
    assert roles == ["compacted", "garbage"]
    assert api.get("/repos/alice/packed/raw/README.md").body == b"# packed\n"
    assert api.get("/repos/bob/packed/raw/README.md").body == b"# packed\n"
