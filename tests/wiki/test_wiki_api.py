"""The wiki API as a client sees it (the ``api`` fixture): Forgejo's records
with their fields and types, who may read and write, bad input answered 4xx with
nothing written, and the Repository record's ``has_wiki_contents``."""
from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

# Forgejo's definitions as the repository keeps them (from its API description).
SPEC = json.loads((Path(__file__).resolve().parents[1] / "fixtures/forgejo_definitions.json")
                  .read_text())
TYPES = {"string": str, "integer": int, "boolean": bool, "object": dict, "array": list}


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def assert_shape(record: dict, definition: str) -> None:
    """Every field of Forgejo's definition, with its type (nested records too)."""
    props = SPEC["definitions"][definition]["properties"]
    assert set(record) == set(props), (definition, set(record) ^ set(props))
    for field, schema in props.items():
        if "$ref" in schema:
            assert_shape(record[field], schema["$ref"].rsplit("/", 1)[-1])
        elif schema.get("type") == "array":
            item = schema["items"]
            for value in record[field]:
                if "$ref" in item:
                    assert_shape(value, item["$ref"].rsplit("/", 1)[-1])
        else:
            assert isinstance(record[field], TYPES[schema["type"]]), (definition, field)


@pytest.fixture
def scene(api):
    for name in ("alice", "bob", "carol", "eve"):
        api.create_user(name)
    tokens = {name: api.create_token(name) for name in ("alice", "bob", "carol", "eve")}
    tokens["alice_read"] = api.create_token("alice", scopes=("read:repository",), name="r")
    for repo, private in (("proj", False), ("secret", True)):
        assert api.post("/user/repos", token=tokens["alice"],
                        json={"name": repo, "private": private, "auto_init": True}).status == 201
        for who, mode in (("bob", "write"), ("carol", "read")):
            assert api.put(f"/repos/alice/{repo}/collaborators/{who}", token=tokens["alice"],
                           json={"permission": mode}).status == 204
    return tokens


def test_pages_records_and_revisions(api, scene):
    t = scene
    made = api.post("/repos/alice/proj/wiki/new", token=t["bob"], json={
        "title": "Home Page", "content_base64": b64("# Hello\n"), "message": ""})
    assert made.status == 201, made
    assert_shape(made.json, "WikiPage")
    assert made.json["title"] == "Home Page" and made.json["sub_url"] == "Home-Page"
    assert made.json["html_url"].endswith("/alice/proj/wiki/Home-Page")
    assert made.json["content_base64"] == b64("# Hello\n")
    assert made.json["commit_count"] == 1
    assert made.json["last_commit"]["message"] == 'Add "Home Page"\n'
    assert made.json["last_commit"]["author"]["email"] == "bob@example.com"
    assert made.json["last_commit"]["commiter"]["date"].endswith("Z")
    assert made.json["sidebar"] == "" and made.json["footer"] == ""

    api.post("/repos/alice/proj/wiki/new", token=t["alice"],
             json={"title": "_Footer", "content_base64": b64("foot")})
    got = api.get("/repos/alice/proj/wiki/page/Home-Page")
    assert got.status == 200 and got.json["footer"] == b64("foot")

    edited = api.patch("/repos/alice/proj/wiki/page/Home-Page", token=t["alice"], json={
        "title": "Start", "content_base64": b64("moved"), "message": "rename it"})
    assert edited.status == 200 and edited.json["sub_url"] == "Start"
    assert edited.json["last_commit"]["message"] == "rename it\n"
    assert api.get("/repos/alice/proj/wiki/page/Home-Page").status == 404

    listed = api.get("/repos/alice/proj/wiki/pages", token=t["carol"])
    assert listed.status == 200 and listed.headers["x-total-count"] == "2"
    for item in listed.json:
        assert_shape(item, "WikiPageMetaData")
    assert [p["sub_url"] for p in listed.json] == ["Start", "_Footer"]

    revs = api.get("/repos/alice/proj/wiki/revisions/Start")
    assert revs.status == 200
    assert_shape(revs.json, "WikiCommitList")
    assert revs.json["count"] == 1 and revs.headers["x-total-count"] == "1"

    repo = api.get("/repos/alice/proj", token=t["alice"]).json
    assert repo["has_wiki_contents"] is True and repo["wiki_branch"] == "main"
    assert api.delete("/repos/alice/proj/wiki/page/Start", token=t["bob"]).status == 204
    assert api.delete("/repos/alice/proj/wiki/page/Start", token=t["bob"]).status == 404


def test_who_may_read_and_write(api, scene):
    t = scene
    body = {"title": "Home", "content_base64": b64("x")}
    assert api.post("/repos/alice/secret/wiki/new", token=t["alice"], json=body).status == 201
    # Private: strangers and visitors get 404, readers read.
    assert api.get("/repos/alice/secret/wiki/page/Home", token=t["eve"]).status == 404
    assert api.get("/repos/alice/secret/wiki/pages").status == 404
    assert api.get("/repos/alice/secret/wiki/page/Home", token=t["carol"]).status == 200
    # Readers may not write; visitors must sign in; a read token lacks the scope.
    assert api.post("/repos/alice/secret/wiki/new", token=t["carol"],
                    json={**body, "title": "Other"}).status == 403
    assert api.post("/repos/alice/proj/wiki/new", json=body).status == 401
    assert api.post("/repos/alice/proj/wiki/new", token=t["alice_read"], json=body).status == 403
    assert api.patch("/repos/alice/secret/wiki/page/Home", token=t["eve"], json=body).status == 404
    assert api.delete("/repos/alice/secret/wiki/page/Home", token=t["carol"]).status == 403
    assert api.get("/repos/alice/secret/wiki/pages", token=t["carol"]).json[0]["title"] == "Home"


def test_bad_input_is_refused_and_nothing_is_written(api, scene):
    t = scene
    new = "/repos/alice/proj/wiki/new"
    assert api.get("/repos/alice/proj/wiki/pages").status == 404      # no wiki yet
    for body, status, words in (
            ({"title": "", "content_base64": b64("x")}, 400, "emptyTitle"),
            ({"title": "_pages", "content_base64": b64("x")}, 400, "reserved"),
            ({"title": "Ok", "content_base64": "not base64!"}, 400, "base64"),
            ({"title": 3, "content_base64": b64("x")}, 422, "Title"),
            ({"title": "a\nb", "content_base64": b64("x")}, 422, "Title")):
        answer = api.post(new, token=t["alice"], json=body)
        assert answer.status == status, (body, answer)
        assert words in answer.json["message"]
    assert api.get("/repos/alice/proj/wiki/pages").status == 404
    assert api.get("/repos/alice/proj", token=t["alice"]).json["has_wiki_contents"] is False
    assert api.post(new, token=t["alice"], json={"title": "Home", "content_base64": ""}).status == 201
    again = api.post(new, token=t["bob"], json={"title": "Home", "content_base64": b64("y")})
    assert again.status == 400 and "already exists" in again.json["message"]
    assert api.get("/repos/alice/proj/wiki/page/Nope").status == 404
    assert api.get("/repos/alice/proj/wiki/revisions/Nope").status == 404


def test_a_wiki_switched_off_by_repo_edit_answers_404(api, scene):
    t = scene
    made = api.post("/repos/alice/proj/wiki/new", token=t["alice"],
                    json={"title": "Home", "content_base64": b64("hi")})
    assert made.status == 201, made
    edited = api.patch("/repos/alice/proj", token=t["alice"], json={"has_wiki": False})
    assert edited.status == 200 and edited.json["has_wiki"] is False, edited
    assert api.get("/repos/alice/proj/wiki/pages", token=t["alice"]).status == 404
    assert api.patch("/repos/alice/proj", token=t["alice"], json={"has_wiki": "no"}).status == 422
    api.patch("/repos/alice/proj", token=t["alice"], json={"has_wiki": True})
    pages = api.get("/repos/alice/proj/wiki/pages", token=t["alice"])
    assert pages.status == 200 and [p["title"] for p in pages.json] == ["Home"], pages
