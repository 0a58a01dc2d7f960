"""repoMigrate of a project as Forgejo's clients expect it: the migration's first turn
runs in the request, so a small project is complete when the 201 comes (the repository,
its issues, reactions with their dates, releases and wiki readable at once); a slow one
answers with the record it will write and finishes as queued work; one that fails for
good answers the error with nothing left behind.  And a failed migration discarded
leaves nothing of what it wrote (git, wiki, releases' bytes and usage, tracker), so the
same name migrates again from a clean start."""
from __future__ import annotations

import pytest

from chalicelib import migrations
from chalicelib.errors import InvalidInput
from chalicelib.http.formats import rfc3339
from tests.migrations.project_fakes import BASE, FakeSource, pump
from tests.migrations.test_migration_api import alice, form, queued  # noqa: F401
from tests.repo_admin.test_migrations import git, local_networks_allowed  # noqa: F401


@pytest.fixture
def remote(tmp_path):
    """The project's git and its wiki on C git's HTTP server (loopback)."""
    from tests.git_backend import serve_http_backend

    root = tmp_path / "served"
    root.mkdir()
    for name, files, extra in (("proj", {"a.txt": "a\n"}, ("v1.0",)),
                               ("proj.wiki", {"Home.md": "# Welcome\n"}, ())):
        bare = root / f"{name}.git"
        git("init", "-q", "--bare", "-b", "main", str(bare))
        work = tmp_path / f"work-{name}"
        git("init", "-q", "-b", "main", str(work))
        for path, text in files.items():
            (work / path).write_text(text)
        git("add", ".", cwd=work)
        git("commit", "-q", "-m", "first", cwd=work)
        for tag in extra:
            git("tag", tag, cwd=work)
        git("push", "-q", str(bare), "main", *extra, cwd=work)
    server, url = serve_http_backend(root)
    yield {"url": f"{url}/proj.git", "wiki": f"{url}/proj.wiki.git",
           "head": git("rev-parse", "HEAD", cwd=tmp_path / "work-proj")}
    server.shutdown()


@pytest.fixture
def source(remote):
    fake = FakeSource(issues_n=2, pulls_n=0, head_sha=remote["head"], wiki_url=remote["wiki"])
    migrations.use_source_opener(lambda *a, **kw: fake)
    yield fake
    migrations.use_source_opener(None)


@pytest.fixture
def inline_seconds(monkeypatch):
    from chalicelib import settings as settings_module

    def set_to(seconds: int) -> None:
        monkeypatch.setenv("NIMBUS__MIGRATIONS__INLINE_SECONDS", str(seconds))
        settings_module.reset_settings_cache()

    yield set_to
    monkeypatch.delenv("NIMBUS__MIGRATIONS__INLINE_SECONDS", raising=False)
    settings_module.reset_settings_cache()


def project_form(remote):
    return form(remote, pull_requests=False, wiki=True)


def test_small_project_is_complete_when_the_answer_comes(api, alice, remote, source,  # noqa: F811
                                                         local_networks_allowed):  # noqa: F811
    r = api.post("/repos/migrate", token=alice, json=project_form(remote))
    assert r.status == 201, r
    # No worker ran: everything below was written by the request itself.
    read = api.get("/repos/alice/proj", token=alice)
    assert read.status == 200
    assert r.json["id"] == read.json["id"] and r.json["open_issues_count"] == 2
    assert r.json["release_counter"] == 1 and r.json["empty"] is False
    assert r.json["has_wiki"] is True and read.json["updated_at"] == r.json["updated_at"]
    status = api.get("/repos/alice/proj/migration", token=alice).json
    assert status["status"] == "done" and status["counts"]["wiki"] >= 1
    two = api.get("/repos/alice/proj/issues/2", token=alice).json
    assert two["original_author"] == "stranger" and two["comments"] == 2
    reactions = {x["content"]: x for x in
                 api.get("/repos/alice/proj/issues/2/reactions", token=alice).json}
    assert reactions["heart"]["created_at"] == rfc3339(BASE + 2 + 5)     # the source's time
    assert reactions["+1"]["created_at"] == two["created_at"]            # none: the issue's
    assert api.get("/repos/alice/proj/releases/tags/v1.0", token=alice).json["assets"]
    assert api.get("/repos/alice/proj/wiki/page/Home", token=alice).status == 200
    assert pump() == 0                      # nothing was left for the queue


def test_slow_source_falls_back_to_the_queue(api, alice, remote, source,  # noqa: F811
                                            inline_seconds, local_networks_allowed):  # noqa: F811
    source.delay = 0.6                      # each issue's comments: longer than the turn
    inline_seconds(1)
    r = api.post("/repos/migrate", token=alice, json=project_form(remote))
    assert r.status == 201 and r.json["full_name"] == "alice/proj"
    assert api.get("/repos/alice/proj", token=alice).status == 404      # being migrated
    status = api.get("/repos/alice/proj/migration", token=alice).json
    assert status["status"] == "running" and status["step"] in ("issues", "releases")
    assert pump() >= 1
    assert api.get("/repos/alice/proj/migration", token=alice).json["status"] == "done"
    repo = api.get("/repos/alice/proj", token=alice).json
    assert repo["open_issues_count"] == 2
    assert len(api.get("/repos/alice/proj/issues/2/comments", token=alice).json) == 2


def test_failure_in_the_request_answers_the_error_and_leaves_nothing(
        api, alice, remote, source, local_networks_allowed):  # noqa: F811
    source.fail_on, source.fail_with = "labels", InvalidInput
    r = api.post("/repos/migrate", token=alice, json=project_form(remote))
    assert r.status == 422 and "source said no" in r.json["message"]
    assert "s3cret" not in r.json["message"]
    assert api.get("/repos/alice/proj/migration", token=alice).status == 404
    assert api.get("/repos/alice/proj", token=alice).status == 404
    source.fail_on = ""
    assert api.post("/repos/migrate", token=alice, json=project_form(remote)).status == 201
    assert api.get("/repos/alice/proj", token=alice).status == 200


def test_discard_removes_what_every_step_wrote(api, alice, remote, source, queued,  # noqa: F811
                                               local_networks_allowed):  # noqa: F811
    from chalicelib import aws
    from chalicelib.gitstore import refdb
    from chalicelib.settings import get_settings
    from chalicelib.wiki.gitrepo import wiki_id_of

    planned = api.post("/repos/migrate", token=alice, json=project_form(remote)).json
    repo_id = int(planned["id"])
    # A repository made under the name meanwhile: the finish step fails for good, after
    # every other step wrote its part.
    assert api.post("/user/repos", token=alice, json={"name": "proj"}).status == 201
    pump()
    status = api.get("/repos/alice/proj/migration", token=alice).json
    assert status["status"] == "failed" and status["step"] == "finish", status
    bucket = get_settings().aws.BUCKET

    def attachment_bytes() -> list:
        listed = aws.client("s3").list_objects_v2(Bucket=bucket,
                                                  Prefix=f"attachments/{repo_id}/")
        return listed.get("Contents", [])

    owner_id = int(api.get("/users/alice", token=alice).json["id"])

    def releases_used() -> int:
        from chalicelib.quota import service as quota_service

        return int(quota_service.used(owner_id).attachments_releases)

    assert refdb.load_refs(repo_id) and refdb.load_refs(wiki_id_of(repo_id))
    assert attachment_bytes() and releases_used() == 6

    assert api.delete("/repos/alice/proj/migration", token=alice).status == 204
    assert not refdb.load_refs(repo_id), "the git refs stayed"
    assert not refdb.load_refs(wiki_id_of(repo_id)), "the wiki's refs stayed"
    assert not attachment_bytes(), "the release attachments' bytes stayed"
    assert releases_used() == 0, "the attachments' usage stayed charged"
    assert api.get("/repos/alice/proj/migration", token=alice).status == 404

    # The name again, from a clean start.
    assert api.delete("/repos/alice/proj", token=alice).status == 204
    again = api.post("/repos/migrate", token=alice, json=project_form(remote))
    assert again.status == 201 and int(again.json["id"]) != repo_id
    pump()
    status = api.get("/repos/alice/proj/migration", token=alice).json
    assert status["status"] == "done" and status["counts"]["issues"] == 2
    assert status["counts"]["releases"] == 1 and status["counts"]["assets"] == 1
    assert len(api.get("/repos/alice/proj/issues/1/comments", token=alice).json) == 2
    assert api.get("/repos/alice/proj/wiki/page/Home", token=alice).status == 200
