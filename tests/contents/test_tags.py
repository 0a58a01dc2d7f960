"""Repository tags through the API (in-process, under moto): the list of lightweight and
annotated tags (and a tag on a tree) in Forgejo's order with paging, one tag, creating
lightweight and annotated tags, deleting, the refusals, and tags held by releases."""
from __future__ import annotations

import pytest

from chalicelib import events
from chalicelib.http import schemas
from tests.conftest import drain_outbox
from tests.contents.test_commits import commit_at
from tests.repos.test_events_repos import ZERO, push
from tests.statuses.test_statuses import atomic_requests  # noqa: F401 - a fixture
from tests.accounts.test_users import assert_matches_forgejo

R = "/repos/alice/proj"
API = f"http://nimbus.test/api/v1{R}"
T0 = 1_700_000_000          # 2023-11-14T22:13:20Z


def annotated(name: str, target, when: int, message: str):
    from dulwich.objects import Tag

    tag = Tag()
    tag.object = (type(target), target.id)
    tag.name = name.encode()
    tag.tagger = b"Alice <alice@example.com>"
    tag.tag_time, tag.tag_timezone = when, 0
    tag.message = message.encode()
    return tag


@pytest.fixture
def scene(api):
    """alice's public ``proj``: ``main`` is c0 - c1 - c2 (100 s apart from T0); tags
    ``v1`` (lightweight, c0), ``v2`` (annotated at T0+500, c1), ``rel/1.0``
    (lightweight, c2) and ``tree`` (lightweight, c2's tree).  bob may write, carol may
    read."""
    tokens = {}
    for name in ("alice", "bob", "carol"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    alice = tokens["alice"]
    assert api.post("/user/repos", token=alice, json={"name": "proj"}).status == 201
    for name, mode in (("bob", "write"), ("carol", "read")):
        assert api.put(f"{R}/collaborators/{name}", token=alice,
                       json={"permission": mode}).status == 204
    chain, objects, parent = [], [], None
    for i in range(3):
        parent, objs = commit_at(parent, {"a.txt": f"{i}\n".encode()}, f"commit {i}",
                                 T0 + 100 * i)
        chain.append(parent)
        objects += objs
    v2 = annotated("v2", chain[1], T0 + 500, "Release two\n\nwith notes\n")
    c = [x.id.decode() for x in chain]
    report = push(api, alice, "proj", [
        (ZERO, c[2], "refs/heads/main"), (ZERO, c[0], "refs/tags/v1"),
        (ZERO, v2.id.decode(), "refs/tags/v2"), (ZERO, c[2], "refs/tags/rel/1.0"),
        (ZERO, chain[2].tree.decode(), "refs/tags/tree")], [*objects, v2])
    assert "ok refs/tags/tree" in report and "ok refs/tags/v2" in report, report
    drain_outbox()
    return dict(tokens, c=c, v2=v2.id.decode(), tree=chain[2].tree.decode())


def names(resp) -> list[str]:
    return [t["name"] for t in resp.json]


def test_list_both_kinds_newest_first_with_records(api, scene):
    c = scene["c"]
    r = api.get(f"{R}/tags")
    assert r.status == 200, r
    assert names(r) == ["v2", "rel/1.0", "v1", "tree"]
    assert r.headers["x-total-count"] == "4"
    for record in r.json:
        assert set(record) == set(schemas.RECORDS["Tag"])
        assert_matches_forgejo(record, "Tag")
        assert_matches_forgejo(record["commit"], "CommitMeta")
        assert_matches_forgejo(record["archive_download_count"], "TagArchiveDownloadCount")
    v2, rel, v1, tree = r.json
    # Annotated: the tag object's id and message, the tagger's time, the commit it names.
    assert v2["id"] == scene["v2"] and v2["commit"]["sha"] == c[1]
    assert v2["message"] == "Release two\n\nwith notes"
    assert v2["commit"]["created"] == "2023-11-14T22:21:40Z"
    assert v2["commit"]["url"] == f"{API}/git/commits/{scene['v2']}"
    # Lightweight: the commit's id, message and committer time.
    assert v1 == {"name": "v1", "message": "commit 0", "id": c[0],
                  "commit": {"url": f"{API}/git/commits/{c[0]}", "sha": c[0],
                             "created": "2023-11-14T22:13:20Z"},
                  "zipball_url": f"{API}/archive/v1.zip",
                  "tarball_url": f"{API}/archive/v1.tar.gz",
                  "archive_download_count": {"zip": 0, "tar_gz": 0}}
    assert rel["zipball_url"] == f"{API}/archive/rel/1.0.zip"
    # A tag on a tree is listed without breaking the list.
    assert tree["id"] == tree["commit"]["sha"] == scene["tree"]
    assert tree["message"] == "" and tree["commit"]["created"] == "0001-01-01T00:00:00Z"


def test_paging(api, scene):
    r = api.get(f"{R}/tags?limit=3&page=2")
    assert names(r) == ["tree"] and r.headers["x-total-count"] == "4"
    assert 'rel="first"' in r.headers["link"] and 'rel="next"' not in r.headers["link"]
    r = api.get(f"{R}/tags?limit=2")
    assert names(r) == ["v2", "rel/1.0"]
    assert 'rel="next"' in r.headers["link"] and "page=2" in r.headers["link"]


def test_get_one(api, scene):
    r = api.get(f"{R}/tags/rel/1.0")
    assert r.status == 200 and r.json["commit"]["sha"] == scene["c"][2]
    assert_matches_forgejo(r.json, "Tag")
    assert api.get(f"{R}/tags/v2").json["id"] == scene["v2"]
    assert api.get(f"{R}/tags/tree").json["id"] == scene["tree"]
    assert api.get(f"{R}/tags/nope").status == 404
    assert api.get(f"{R}/tags/rel").status == 404
    assert api.get(f"{R}/tags/{'x' * 3000}").status == 404


def test_create_lightweight(api, scene):
    bob, c = scene["bob"], scene["c"]
    r = api.post(f"{R}/tags", token=bob, json={"tag_name": "v3"})
    assert r.status == 201, r
    assert set(r.json) == set(schemas.RECORDS["Tag"])
    assert_matches_forgejo(r.json, "Tag")
    assert r.json["id"] == r.json["commit"]["sha"] == c[2]        # the default branch
    assert r.json["message"] == "commit 2"
    raised = drain_outbox()
    created = [e for e in raised if isinstance(e, events.RefCreated)]
    assert [(e.ref, e.ref_type, e.sha) for e in created] == [("v3", "tag", c[2])]
    assert any(isinstance(e, events.RepositoryPushed) and e.ref == "refs/tags/v3"
               for e in raised)
    for name, target, sha in (("from-commit", c[0][:10], c[0]), ("from-tag", "v2", c[1]),
                              ("nested/name", "main", c[2])):
        r = api.post(f"{R}/tags", token=bob, json={"tag_name": name, "target": target})
        assert r.status == 201 and r.json["id"] == sha, (name, r)
    assert api.get(f"{R}/tags/nested/name").json["id"] == c[2]
    refs = api.get("/alice/proj.git/info/refs?service=git-upload-pack", raw=True).body
    assert f"{c[0]} refs/tags/from-commit".encode() in refs
    assert api.get(f"{R}/tags").headers["x-total-count"] == "8"


def test_create_annotated(api, scene):
    alice, c = scene["alice"], scene["c"]
    r = api.post(f"{R}/tags", token=alice, json={
        "tag_name": "v4", "target": c[1], "message": "Four  \n\n\n# a comment\nlines\n\n"})
    assert r.status == 201, r
    assert r.json["id"] != c[1] and r.json["commit"]["sha"] == c[1]
    assert r.json["message"] == "Four\n\nlines"
    assert api.get(f"{R}/tags/v4").json == r.json
    # The ref holds the tag object, which peels to the commit.
    refs = api.get("/alice/proj.git/info/refs?service=git-upload-pack", raw=True).body
    assert f"{r.json['id']} refs/tags/v4".encode() in refs
    assert f"{c[1]} refs/tags/v4^{{}}".encode() in refs
    assert api.get(f"{R}/git/commits/{r.json['id']}").json["sha"] == c[1]
    assert any(isinstance(e, events.RefCreated) and e.ref == "v4" for e in drain_outbox())


def test_create_refusals(api, scene):
    alice, carol = scene["alice"], scene["carol"]
    cases = [({"tag_name": "v1"}, 409),                       # exists
             ({"tag_name": "rel/1.0", "message": "again"}, 409),
             ({"tag_name": "x", "target": "nope"}, 404),
             ({"tag_name": "x", "target": scene["tree"]}, 404),  # not a commit
             ({"tag_name": "x", "target": "0" * 40}, 404),
             ({"tag_name": ""}, 422),
             ({}, 422),
             ({"tag_name": "bad..name"}, 422),
             ({"tag_name": "with space"}, 422),
             ({"tag_name": "ends.lock/x"}, 422),
             ({"tag_name": "x" * 300}, 422),
             ({"tag_name": 7}, 422),
             ({"tag_name": "x", "message": ["no"]}, 422)]
    for body, status in cases:
        r = api.post(f"{R}/tags", token=alice, json=body)
        assert r.status == status, (body, r)
        assert "message" in r.json, (body, r)
    assert api.post(f"{R}/tags", token=alice, json=["tag_name"]).status == 422
    assert api.post(f"{R}/tags", token=carol, json={"tag_name": "c"}).status == 403
    assert api.post(f"{R}/tags", json={"tag_name": "c"}).status == 401
    assert api.get(f"{R}/tags").headers["x-total-count"] == "4"
    # A name a draft release holds is taken (Forgejo checks its release rows).
    assert api.post(f"{R}/releases", token=alice, json={
        "tag_name": "v9", "name": "nine", "draft": True}).status == 201
    r = api.post(f"{R}/tags", token=alice, json={"tag_name": "v9"})
    assert r.status == 409 and "tag already exists" in r.json["message"]


def test_private_repository_is_404_to_strangers(api, scene):
    alice, carol = scene["alice"], scene["carol"]
    H = "/repos/alice/hidden"
    assert api.post("/user/repos", token=alice, json={
        "name": "hidden", "private": True, "auto_init": True}).status == 201
    assert api.post(f"{H}/tags", token=alice, json={"tag_name": "v1"}).status == 201
    assert names(api.get(f"{H}/tags", token=alice)) == ["v1"]
    for token in (carol, None):         # carol reads proj, not hidden
        assert api.get(f"{H}/tags", token=token).status == 404
        assert api.get(f"{H}/tags/v1", token=token).status == 404
    assert api.post(f"{H}/tags", token=carol, json={"tag_name": "v2"}).status == 404
    assert api.delete(f"{H}/tags/v1", token=carol).status == 404
    assert names(api.get(f"{H}/tags", token=alice)) == ["v1"]


def test_delete(api, scene):
    alice, carol, c = scene["alice"], scene["carol"], scene["c"]
    assert api.delete(f"{R}/tags/rel/1.0", token=carol).status == 403
    assert api.delete(f"{R}/tags/rel/1.0").status == 401
    assert api.delete(f"{R}/tags/rel/1.0", token=alice).status == 204
    assert api.get(f"{R}/tags/rel/1.0").status == 404
    raised = drain_outbox()
    deleted = [e for e in raised if isinstance(e, events.RefDeleted)]
    assert [(e.ref, e.ref_type, e.sha) for e in deleted] == [("rel/1.0", "tag", c[2])]
    assert api.delete(f"{R}/tags/rel/1.0", token=alice).status == 404
    assert api.delete(f"{R}/tags/v2", token=alice).status == 204        # annotated
    assert names(api.get(f"{R}/tags")) == ["v1", "tree"]
    refs = api.get("/alice/proj.git/info/refs?service=git-upload-pack", raw=True).body
    assert b"refs/tags/v2" not in refs and b"refs/tags/rel/1.0" not in refs


def test_a_release_holds_its_tag(api, scene):
    alice = scene["alice"]
    rid = api.post(f"{R}/releases", token=alice, json={"tag_name": "v1", "name": "one"}).json["id"]
    assert api.get(f"{R}/archive/v1.zip").status == 200
    listed = {t["name"]: t for t in api.get(f"{R}/tags").json}
    assert listed["v1"]["archive_download_count"] == {"zip": 1, "tar_gz": 0}
    assert api.get(f"{R}/tags/v1").json["archive_download_count"] == {"zip": 1, "tar_gz": 0}
    r = api.delete(f"{R}/tags/v1", token=alice)
    assert r.status == 409
    assert r.json["message"] == "a tag attached to a release cannot be deleted directly"
    # A draft holds its name too, though it has no tag yet (Forgejo: 409 as well).
    assert api.post(f"{R}/releases", token=alice, json={
        "tag_name": "draft-tag", "name": "d", "draft": True}).status == 201
    assert api.delete(f"{R}/tags/draft-tag", token=alice).status == 409
    # Once the release is gone, its tag can go.
    assert api.delete(f"{R}/releases/{rid}", token=alice).status == 204
    assert api.get(f"{R}/tags/v1").json["archive_download_count"] == {"zip": 0, "tar_gz": 0}
    assert api.delete(f"{R}/tags/v1", token=alice).status == 204


def test_a_release_made_after_the_check_still_wins(api, scene, monkeypatch):
    """The transaction that deletes (or creates) a tag is conditional on no release
    holding it: a release made after the check was read still stops the write."""
    from chalicelib.contents import tags

    alice = scene["alice"]
    assert api.post(f"{R}/releases", token=alice, json={"tag_name": "v1", "name": "one"}).status == 201
    assert api.post(f"{R}/releases", token=alice, json={
        "tag_name": "later", "name": "d", "draft": True}).status == 201
    monkeypatch.setattr(tags.releases, "release_tag_owner", lambda *a, **k: None)
    r = api.delete(f"{R}/tags/v1", token=alice)
    assert r.status == 409 and r.json["message"].startswith("a tag attached to a release")
    r = api.post(f"{R}/tags", token=alice, json={"tag_name": "later"})
    assert r.status == 409
    monkeypatch.undo()
    assert api.get(f"{R}/tags/v1").status == 200
    assert api.get(f"{R}/tags/later").status == 404


def test_a_release_on_a_tag_deleted_meanwhile_is_refused(api, scene, monkeypatch):
    """Publishing on an existing tag checks, in its transaction, that the tag ref still
    holds what was read: a deletion that commits in between makes it 409, and no
    release is left naming a tag that is gone."""
    from chalicelib.gitstore import refdb
    from chalicelib.releases import service as releases

    alice = scene["alice"]
    repo_id = api.get(R, token=alice).json["id"]
    staged = releases.store.stage_create

    def deleted_first(*args, **kwargs):
        assert refdb.delete_ref(repo_id, "refs/tags/v1")      # another request's delete
        return staged(*args, **kwargs)

    monkeypatch.setattr(releases.store, "stage_create", deleted_first)
    r = api.post(f"{R}/releases", token=alice, json={"tag_name": "v1", "name": "one"})
    assert r.status == 409, r
    monkeypatch.undo()
    assert api.get(f"{R}/releases", token=alice).json == []
    assert api.get(f"{R}/tags/v1").status == 404


def test_two_creates_of_one_tag_one_wins(api, scene, atomic_requests):  # noqa: F811
    from tests.test_races import together

    alice, bob = scene["alice"], scene["bob"]
    answers = together(2, lambda i: api.post(f"{R}/tags", token=(alice, bob)[i], json={
        "tag_name": "race", "message": f"by {i}"}))
    assert sorted(a.status for a in answers) == [201, 409], answers
    created = [e for e in drain_outbox() if isinstance(e, events.RefCreated)]
    assert len(created) == 1
    winner = next(a for a in answers if a.status == 201)
    assert api.get(f"{R}/tags/race").json["id"] == winner.json["id"]


def test_archived_repository_is_read_only(api, scene):
    alice = scene["alice"]
    assert api.patch(R, token=alice, json={"archived": True}).status == 200
    assert api.post(f"{R}/tags", token=alice, json={"tag_name": "v5"}).status == 423
    assert api.delete(f"{R}/tags/v1", token=alice).status == 423
    assert len(api.get(f"{R}/tags").json) == 4
