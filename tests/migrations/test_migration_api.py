"""repoMigrate of a project through the API: the git part fetched for real from C git's
HTTP server on loopback (with a pull request's ``refs/pull/3/head``), the rest from an
in-memory source; the queued steps run as the worker runs them; what a client sees
afterwards through the normal API, with Forgejo's field types."""
from __future__ import annotations

import pytest

from chalicelib import migrations
from tests.migrations.project_fakes import FakeSource, pump
from tests.repo_admin.test_migrations import git, local_networks_allowed  # noqa: F401


@pytest.fixture
def remote(tmp_path):
    from tests.git_backend import serve_http_backend

    root = tmp_path / "served"
    root.mkdir()
    bare = root / "proj.git"
    git("init", "-q", "--bare", "-b", "main", str(bare))
    work = tmp_path / "work"
    git("init", "-q", "-b", "main", str(work))
    (work / "a.txt").write_text("a\n")
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", "first", cwd=work)
    git("tag", "v1.0", cwd=work)
    git("checkout", "-q", "-b", "feature-3", cwd=work)
    (work / "b.txt").write_text("b\n")
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", "feature", cwd=work)
    head = git("rev-parse", "HEAD", cwd=work)
    git("push", "-q", str(bare), "main", "v1.0", "feature-3", "feature-3:refs/pull/3/head",
        cwd=work)
    server, url = serve_http_backend(root)
    yield {"url": f"{url}/proj.git", "head": head}
    server.shutdown()


@pytest.fixture
def source(remote):
    fake = FakeSource(issues_n=2, pulls_n=1, head_sha=remote["head"])
    migrations.use_source_opener(lambda *a, **kw: fake)
    yield fake
    migrations.use_source_opener(None)


@pytest.fixture
def alice(api):
    api.create_user("alice", email="alice@example.com")
    return api.create_token("alice")


def form(remote, **extra):
    return {"clone_addr": remote["url"], "repo_name": "proj", "service": "gitea",
            "auth_token": "s3cret-token-value", "issues": True, "labels": True,
            "milestones": True, "pull_requests": True, "releases": True, **extra}


def test_bad_input_is_refused_and_nothing_written(api, alice, remote, source,
                                                   local_networks_allowed):  # noqa: F811
    assert api.post("/repos/migrate", token=alice, json=form(remote, repo_name="")).status == 422
    r = api.post("/repos/migrate", token=alice, json=form(remote, repo_owner="nobody"))
    assert r.status == 422 and "message" in r.json
    source.fail_on = "repository"
    r = api.post("/repos/migrate", token=alice, json=form(remote))
    assert r.status >= 400
    assert api.get("/repos/alice/proj/migration", token=alice).status == 404
    assert api.post("/repos/migrate", json=form(remote)).status == 401


def test_loopback_refused_without_the_setting(api, alice, remote, source):
    r = api.post("/repos/migrate", token=alice, json=form(remote))
    assert r.status == 422, r
    assert api.get("/repos/alice/proj/migration", token=alice).status == 404


@pytest.fixture
def queued(monkeypatch):
    """No turn in the request: the migration is queued at once."""
    from chalicelib import settings as settings_module

    monkeypatch.setenv("NIMBUS__MIGRATIONS__INLINE_SECONDS", "0")
    settings_module.reset_settings_cache()
    yield
    monkeypatch.delenv("NIMBUS__MIGRATIONS__INLINE_SECONDS")
    settings_module.reset_settings_cache()


def test_project_migrates_through_the_queue(api, alice, remote, source, queued,
                                            local_networks_allowed):  # noqa: F811
    r = api.post("/repos/migrate", token=alice, json=form(remote))
    assert r.status == 201, r
    assert r.json["full_name"] == "alice/proj" and isinstance(r.json["id"], int)
    assert api.get("/repos/alice/proj", token=alice).status == 404      # being migrated
    status = api.get("/repos/alice/proj/migration", token=alice).json
    assert status["status"] == "queued" and status["step"] == "git"
    assert "s3cret" not in str(status)
    api.create_user("carol")
    assert api.get("/repos/alice/proj/migration", token=api.create_token("carol")).status == 404
    pump()
    status = api.get("/repos/alice/proj/migration", token=alice).json
    assert status["status"] == "done", status
    assert status["counts"]["issues"] == 2 and status["counts"]["pulls"] == 1
    repo = api.get("/repos/alice/proj", token=alice).json
    assert repo["open_issues_count"] == 2 and repo["open_pr_counter"] == 1
    assert repo["release_counter"] == 1 and repo["empty"] is False
    listed = api.get("/repos/alice/proj/issues?state=all&type=issues", token=alice).json
    by_number = {i["number"]: i for i in listed}
    assert sorted(by_number) == [1, 2]
    two = by_number[2]
    assert two["original_author"] == "stranger" and two["original_author_id"] == 77
    assert two["user"]["login"] == "alice" and two["created_at"].startswith("2023-11-14")
    assert two["body"] == "body of 2\n\n*verbatim*" and two["comments"] == 2
    assert by_number[1]["original_author"] == "" and by_number[1]["labels"][0]["name"] == "bug"
    comments = api.get("/repos/alice/proj/issues/2/comments", token=alice).json
    assert [c["body"] for c in comments] == ["comment 0 on 2", "comment 1 on 2"]
    assert comments[1]["original_author"] == "stranger"
    reactions = api.get("/repos/alice/proj/issues/2/reactions", token=alice).json
    assert sorted(r["content"] for r in reactions) == ["+1", "heart"]
    pull = api.get("/repos/alice/proj/pulls/3", token=alice).json
    assert pull["state"] == "open" and pull["head"]["sha"] == remote["head"]
    assert pull["merged"] is False and pull["mergeable"] is True
    refs = {r["ref"] for r in api.get("/repos/alice/proj/git/refs", token=alice).json}
    assert {"refs/heads/main", "refs/heads/feature-3", "refs/tags/v1.0",
            "refs/pull/3/head"} <= refs
    release = api.get("/repos/alice/proj/releases/tags/v1.0", token=alice).json
    assert release["name"] == "One" and release["assets"][0]["size"] == 6
    made = api.post("/repos/alice/proj/issues", token=alice, json={"title": "next"}).json
    assert made["number"] == 4


def test_plain_git_stays_synchronous(api, alice, remote, source,
                                     local_networks_allowed):  # noqa: F811
    r = api.post("/repos/migrate", token=alice, json={"clone_addr": remote["url"],
                                                      "repo_name": "plain", "service": "gitea"})
    assert r.status == 201 and api.get("/repos/alice/plain", token=alice).status == 200
