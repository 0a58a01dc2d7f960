"""Releases through the API: records, tags, drafts, permissions, events, lists, races."""
from __future__ import annotations

from collections import Counter

import pytest

from chalicelib import events
from chalicelib.http import schemas
from tests.conftest import drain_outbox
from tests.statuses.test_statuses import atomic_requests  # noqa: F401 - a fixture
from tests.accounts.test_users import assert_matches_forgejo

R = "/repos/alice/proj"


@pytest.fixture
def people(api):
    """alice owns public ``proj`` and private ``hidden`` (both with a first commit) and
    an empty ``bare``; bob writes to ``proj``; carol reads it; dave is a stranger."""
    tokens = {}
    for name in ("alice", "bob", "carol", "dave"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    for repo, private in (("proj", False), ("hidden", True)):
        assert api.post("/user/repos", token=tokens["alice"], json={
            "name": repo, "private": private, "auto_init": True}).status == 201
    assert api.post("/user/repos", token=tokens["alice"], json={"name": "bare"}).status == 201
    for name, mode in (("bob", "write"), ("carol", "read")):
        assert api.put(f"{R}/collaborators/{name}", token=tokens["alice"],
                       json={"permission": mode}).status == 204
    return tokens


def create(api, token, repo=R, **body):
    body.setdefault("name", f"release {body.get('tag_name')}")
    return api.post(f"{repo}/releases", token=token, json=body)


def refs(api) -> dict[str, str]:
    """The refs of the public ``proj``, read from the refs table."""
    from chalicelib.gitstore import refdb

    repo_id = api.get(R).json["id"]
    return {name: value.sha for name, value in refdb.load_refs(repo_id).items()}


def head(api, token, repo=R, branch="main") -> str:
    return api.get(f"{repo}/branches/{branch}", token=token).json["commit"]["id"]


def assert_release_record(record: dict) -> None:
    assert_matches_forgejo(record, "Release")
    assert set(record) == set(schemas.RECORDS["Release"])
    assert set(record["archive_download_count"]) == {"zip", "tar_gz"}
    for asset in record["assets"]:
        assert_matches_forgejo(asset, "Attachment")


def release_counter(api, token, repo=R) -> int:
    return api.get(repo, token=token).json["release_counter"]


def test_create_answers_forgejos_record_and_creates_the_tag(api, people):
    alice = people["alice"]
    sha = head(api, alice)
    r = create(api, alice, tag_name="v1.0", name="First", body="notes")
    assert r.status == 201, r
    record = r.json
    assert_release_record(record)
    rid = record["id"]
    base = f"http://nimbus.test/api/v1{R}"
    assert record == {**record, "tag_name": "v1.0", "target_commitish": "main", "name": "First",
                      "body": "notes", "draft": False, "prerelease": False,
                      "hide_archive_links": False, "assets": [],
                      "url": f"{base}/releases/{rid}", "upload_url": f"{base}/releases/{rid}/assets",
                      "html_url": "http://nimbus.test/alice/proj/releases/tag/v1.0",
                      "tarball_url": f"{base}/archive/v1.0.tar.gz",
                      "zipball_url": f"{base}/archive/v1.0.zip",
                      "archive_download_count": {"zip": 0, "tar_gz": 0}}
    assert record["author"]["login"] == "alice"
    assert record["published_at"] == record["created_at"]
    assert refs(api)["refs/tags/v1.0"] == sha          # a lightweight tag on main
    assert release_counter(api, alice) == 1
    assert api.get(f"{R}/releases/{rid}").json == record


def test_create_rules(api, people):
    alice = people["alice"]
    assert create(api, alice, name="x").status == 422                    # tag_name required
    missing = create(api, alice, tag_name="", name="x")
    assert missing.status == 422 and "TagName" in missing.json["message"]
    assert create(api, alice, tag_name="v1", name="").status == 422       # title is empty
    empty = create(api, alice, repo="/repos/alice/bare", tag_name="v1")
    assert empty.status == 422 and empty.json["message"] == "repo is empty"
    for bad in ("a..b", "-x", "x y", "x.lock", "x/", "a~b"):
        assert create(api, alice, tag_name=bad).status == 422, bad
    unknown = create(api, alice, tag_name="v9", target_commitish="no-such-branch")
    assert unknown.status == 404
    assert 'target "no-such-branch" not found' in unknown.json["errors"][0]
    assert "refs/tags/v9" not in refs(api)
    assert create(api, alice, tag_name="v1").status == 201
    again = create(api, alice, tag_name="V1")      # tags are unique without regard to case
    assert again.status == 409
    assert again.json["message"] == "release tag already exist [tag_name: V1]"
    # The existing release is found before the option's other fields are checked.
    assert create(api, alice, tag_name="v1", name="").status == 409
    assert release_counter(api, alice) == 1


def test_release_on_another_branch_and_on_an_existing_tag(api, people):
    from chalicelib.gitops import commits, objects, trees
    from chalicelib.contents import pushes
    from chalicelib.contents import files as repo_files
    from chalicelib.repos import store as repo_store
    from chalicelib.store import unit_of_work

    alice = people["alice"]
    main = head(api, alice)
    with unit_of_work.start():
        repo = repo_store.get("alice", "proj")
        git = repo_files.open_git(repo)
        with objects.staged(git.object_store) as staged:
            made = commits.commit_edits(staged, parent=main.encode(),
                                        edits=[trees.write("next.txt", b"next")],
                                        author=commits.Identity("A", "a@example.com"),
                                        message="next")
        pushes.apply_ref_updates(repo, git, [("refs/heads/next", None, made.id.decode())])
    r = create(api, alice, tag_name="v2", target_commitish="next")
    assert r.status == 201 and r.json["target_commitish"] == "next"
    assert refs(api)["refs/tags/v2"] == made.id.decode()
    # A release for a tag that exists takes the tag as it is.
    assert api.delete(f"{R}/releases/{r.json['id']}", token=alice).status == 204
    assert refs(api)["refs/tags/v2"] == made.id.decode()               # the tag stays
    drain_outbox()
    again = create(api, alice, tag_name="v2", target_commitish="main")
    assert again.status == 201 and again.json["id"] != r.json["id"]
    assert refs(api)["refs/tags/v2"] == made.id.decode()
    raised = drain_outbox()
    assert [type(e).__name__ for e in raised] == ["ReleaseChanged"]    # no ref moved


def test_drafts_make_no_tag_until_published_and_only_writers_see_them(api, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    r = create(api, bob, tag_name="v3", draft=True)
    assert r.status == 201 and r.json["draft"] is True
    rid = r.json["id"]
    assert "refs/tags/v3" not in refs(api)
    assert release_counter(api, alice) == 0
    assert api.get(f"{R}/releases/{rid}", token=bob).status == 200
    for token in (carol, None):
        assert api.get(f"{R}/releases/{rid}", token=token).status == 404
        assert api.get(f"{R}/releases", token=token).json == []
        assert api.get(f"{R}/releases?draft=true", token=token).json == []
        assert api.get(f"{R}/releases/tags/v3", token=token).status == 404
        assert api.get(f"{R}/releases/{rid}/assets", token=token).status == 404
    assert [x["id"] for x in api.get(f"{R}/releases", token=bob).json] == [rid]
    drain_outbox()
    published = api.patch(f"{R}/releases/{rid}", token=bob, json={"draft": False})
    assert published.status == 200 and published.json["draft"] is False
    assert_release_record(published.json)
    assert refs(api)["refs/tags/v3"] == head(api, alice)
    assert release_counter(api, alice) == 1
    kinds = [(type(e).__name__, getattr(e, "action", "")) for e in drain_outbox()]
    assert ("ReleaseChanged", "published") in kinds and ("RefCreated", "") in kinds
    assert api.get(f"{R}/releases/{rid}", token=carol).status == 200
    # Back to draft: counted out again, the tag stays.
    assert api.patch(f"{R}/releases/{rid}", token=bob, json={"draft": True}).status == 200
    assert release_counter(api, alice) == 0 and "refs/tags/v3" in refs(api)


def test_edit_changes_only_what_is_given(api, people):
    alice = people["alice"]
    rid = create(api, alice, tag_name="v1", name="one", body="b").json["id"]
    drain_outbox()
    r = api.patch(f"{R}/releases/{rid}", token=alice, json={"body": "new notes",
                                                             "prerelease": True, "name": ""})
    assert r.status == 200
    assert (r.json["name"], r.json["body"], r.json["prerelease"]) == ("one", "new notes", True)
    (event,) = [e for e in drain_outbox() if isinstance(e, events.ReleaseChanged)]
    assert (event.action, event.release["note"], event.tag_name) == ("updated", "new notes", "v1")
    # A new tag name makes a new tag (the old one stays); a taken one is a 409.
    renamed = api.patch(f"{R}/releases/{rid}", token=alice, json={"tag_name": "v1.1"})
    assert renamed.status == 200 and renamed.json["tag_name"] == "v1.1"
    assert {"refs/tags/v1", "refs/tags/v1.1"} <= set(refs(api))
    other = create(api, alice, tag_name="v5").json["id"]
    taken = api.patch(f"{R}/releases/{other}", token=alice, json={"tag_name": "v1.1"})
    assert taken.status == 409
    assert api.get(f"{R}/releases/tags/v1.1").json["id"] == rid
    assert api.get(f"{R}/releases/tags/v1").status == 404
    assert api.patch(f"{R}/releases/999999", token=alice, json={"body": "x"}).status == 404
    # Names no tag can have answer 404 too (they could not even be a sort key).
    assert api.get(f"{R}/releases/tags/{'x' * 3000}").status == 404
    assert api.delete(f"{R}/releases/tags/{'x' * 3000}", token=alice).status == 404


def test_delete_keeps_the_tag(api, people):
    alice = people["alice"]
    rid = create(api, alice, tag_name="v1").json["id"]
    drain_outbox()
    assert api.delete(f"{R}/releases/{rid}", token=alice).status == 204
    assert api.get(f"{R}/releases/{rid}").status == 404
    assert "refs/tags/v1" in refs(api)
    assert release_counter(api, alice) == 0
    (event,) = drain_outbox()
    assert isinstance(event, events.ReleaseChanged) and event.action == "deleted"
    assert event.release["tag_name"] == "v1" and event.actor["login"] == "alice"
    assert api.delete(f"{R}/releases/{rid}", token=alice).status == 404
    # By tag, too; a draft's deletion raises nothing.
    create(api, alice, tag_name="v2", draft=True)
    drain_outbox()
    assert api.delete(f"{R}/releases/tags/v2", token=alice).status == 204
    assert api.delete(f"{R}/releases/tags/v2", token=alice).status == 404
    assert drain_outbox() == []


def test_permissions(api, people):
    alice, bob, carol, dave = (people[n] for n in ("alice", "bob", "carol", "dave"))
    rid = create(api, alice, tag_name="v1").json["id"]
    assert create(api, carol, tag_name="v2").status == 403               # a reader
    assert api.patch(f"{R}/releases/{rid}", token=carol, json={"body": "x"}).status == 403
    assert api.delete(f"{R}/releases/{rid}", token=carol).status == 403
    assert create(api, None, tag_name="v2").status == 401                # anonymous
    assert create(api, bob, tag_name="v2").status == 201                 # a writer
    assert api.get(f"{R}/releases", token=dave).status == 200            # public: anyone reads
    hidden = create(api, alice, repo="/repos/alice/hidden", tag_name="h1")
    assert hidden.status == 201
    for token in (dave, None):
        assert api.get("/repos/alice/hidden/releases", token=token).status == 404
        assert api.get(f"/repos/alice/hidden/releases/{hidden.json['id']}",
                       token=token).status == 404
    assert create(api, dave, repo="/repos/alice/hidden", tag_name="h2").status == 404
    # Another repository's release is not this one's.
    assert api.get(f"{R}/releases/{hidden.json['id']}", token=alice).status == 404
    # Archived repositories are read-only.
    assert api.patch(R, token=alice, json={"archived": True}).status == 200
    assert create(api, alice, tag_name="v3").status == 423
    assert api.get(f"{R}/releases/{rid}").status == 200


def test_list_filters_order_and_paging(api, people):
    alice, carol = people["alice"], people["carol"]
    made = []
    for i in range(5):
        made.append(create(api, alice, tag_name=f"v{i}", name=f"r{i}", prerelease=i % 2 == 1,
                           body="special" if i == 3 else "").json["id"])
    draft = create(api, alice, tag_name="d", draft=True).json["id"]

    def ids(query="", token=alice):
        r = api.get(f"{R}/releases{query}", token=token)
        assert r.status == 200, r
        for record in r.json:
            assert_release_record(record)
        return [x["id"] for x in r.json], r.headers

    found, headers = ids()
    assert found == [draft, *reversed(made)] and headers["x-total-count"] == "6"
    assert ids(token=carol)[0] == list(reversed(made))
    assert ids("?draft=true")[0] == [draft]
    assert ids("?draft=false")[0] == list(reversed(made))
    assert ids("?pre-release=true")[0] == [made[3], made[1]]
    assert ids("?pre-release=false&draft=false")[0] == [made[4], made[2], made[0]]
    assert ids("?q=special")[0] == [made[3]]
    found, headers = ids("?limit=2&page=2")
    assert found == [made[3], made[2]] and headers["x-total-count"] == "6"
    assert 'rel="next"' in headers["link"]
    assert ids("?page=9")[0] == []
    assert api.get(f"{R}/releases?draft=maybe").status == 422
    # Latest: the newest published, non-pre-release one.
    latest = api.get(f"{R}/releases/latest")
    assert latest.status == 200 and latest.json["id"] == made[4]
    assert api.get("/repos/alice/hidden/releases/latest", token=alice).status == 404


def test_archive_downloads_are_counted(api, people):
    alice = people["alice"]
    rid = create(api, alice, tag_name="v1").json["id"]
    assert api.get(f"{R}/archive/v1.zip").status == 200
    assert api.get(f"{R}/archive/v1.tar.gz").status == 200
    assert api.get(f"{R}/archive/v1.tar.gz").status == 200
    assert api.get(f"{R}/archive/main.zip").status == 200                # not a release's tag
    counts = api.get(f"{R}/releases/{rid}").json["archive_download_count"]
    assert counts == {"zip": 1, "tar_gz": 2}


def test_two_creates_of_one_new_tag_one_wins(api, people, atomic_requests):  # noqa: F811
    from tests.test_races import together

    alice, bob = people["alice"], people["bob"]
    answers = together(2, lambda i: create(api, (alice, bob)[i], tag_name="race"))
    assert Counter(a.status for a in answers) == Counter({201: 1, 409: 1}), answers
    listed = api.get(f"{R}/releases", token=alice).json
    assert [x["tag_name"] for x in listed] == ["race"]
    assert release_counter(api, alice) == 1
    assert "refs/tags/race" in refs(api)


def test_many_creates_of_distinct_tags_keep_the_counter_exact(api, people,
                                                              atomic_requests):  # noqa: F811
    from tests.test_races import together

    alice = people["alice"]
    answers = together(6, lambda i: create(api, alice, tag_name=f"p{i}", draft=i == 5))
    assert Counter(a.status for a in answers) == Counter({201: 6}), answers
    assert release_counter(api, alice) == 5
    assert len(api.get(f"{R}/releases", token=alice).json) == 6
