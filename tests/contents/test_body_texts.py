"""Request bodies the contents rules answered before the edge checked bodies, answered
the same way now: the 422 texts of file writes, branches and tags, and the values those
rules accepted (texts read through ``str()``, flags by their truth, an author,
committer or dates that is not an object ignored, a non-text rename source ignored)."""
from __future__ import annotations

import pytest

from tests.contents import test_contents
from tests.contents.test_contents import R, b64, create, head


@pytest.fixture
def api(fast_api):
    """These texts are the rules' and need no moto: the in-memory twin (the fast layer)."""
    return fast_api

scene = test_contents.scene     # the fixture: alice's proj (README.md on main)

BASE64 = "must be a base64 string"
OPERATION = "[Files.Operation]: must be one of create, update, delete"


def _refused(response, text):
    assert response.status == 422, response
    assert response.json["message"] == text


def _readme_sha(api) -> str:
    return api.get(f"{R}/contents/README.md").json["sha"]


# File writes --------------------------------------------------------------------------------

@pytest.mark.parametrize("content", [1, False, ["eA=="], {"a": "eA=="}])
def test_create_or_update_content_that_is_not_a_text(api, scene, content):
    alice = scene["alice"]
    _refused(api.post(f"{R}/contents/new.txt", token=alice, json={"content": content}),
             f"[ContentBase64]: {BASE64}")
    _refused(api.put(f"{R}/contents/README.md", token=alice,
                     json={"content": content, "sha": _readme_sha(api)}),
             f"[ContentBase64]: {BASE64}")


@pytest.mark.parametrize("files, text", [
    ("a.txt", "[Files]: Required"),
    ({"operation": "create"}, "[Files]: Required"),
    (1, "[Files]: Required"),
    (True, "[Files]: Required"),
    ([1], "[Files]: each item must be an object"),
    ([{"operation": "create", "path": "a", "content": b64("a")}, "b"],
     "[Files]: each item must be an object"),
    ([{"operation": "create", "path": 1, "content": b64("a")}], "[Files.Path]: Required"),
    ([{"operation": "create", "path": ["a"]}], "[Files.Path]: Required"),
    ([{"operation": 1, "path": "a"}], OPERATION),
    ([{"operation": ["create"], "path": "a"}], OPERATION),
    ([{"operation": "create", "path": "a", "content": 1}], f"[Files.ContentBase64]: {BASE64}"),
    ([{"operation": "delete", "path": "README.md", "sha": "0" * 40, "content": False}],
     f"[Files.ContentBase64]: {BASE64}"),
])
def test_change_files(api, scene, files, text):
    _refused(api.post(f"{R}/contents", token=scene["alice"], json={"files": files}), text)


def test_texts_read_as_text_and_flags_by_their_truth(api, scene):
    alice = scene["alice"]
    main = head(api, alice)
    # A new branch and a message that are not texts: read through str().
    r = create(api, alice, "a.txt", "a", new_branch=7, message=5, signoff="yes")
    assert r.status == 201, r
    assert r.json["commit"]["message"].startswith("5\n\nSigned-off-by: alice <")
    first = r.json["commit"]["sha"]
    assert head(api, alice, "7") == first and head(api, alice, "main") == main
    # The branch 7 named by a number; no sign-off for a false value of another type.
    r = create(api, alice, "b.txt", "b", branch=7, signoff=0)
    assert r.status == 201, r
    assert r.json["commit"]["message"] == "Add 'b.txt'\n"
    assert r.json["commit"]["parents"][0]["sha"] == first
    assert head(api, alice, "7") == r.json["commit"]["sha"]
    # Overwriting the new branch, asked for with a true value of another type.
    assert create(api, alice, "c.txt", "c", new_branch="7", force_overwrite_new_branch=0
                  ).status == 422
    r = create(api, alice, "c.txt", "c", new_branch="7", force_overwrite_new_branch=1)
    assert r.status == 201, r
    assert r.json["commit"]["parents"][0]["sha"] == main
    assert create(api, alice, "d.txt", "d", branch=["main"]).status == 404


@pytest.mark.parametrize("value", ["Ann", 1, True, ["Ann"]])
def test_identities_and_dates_that_are_not_objects_are_ignored(api, scene, value):
    r = create(api, scene["alice"], "a.txt", "a", author=value, committer=value, dates=value)
    assert r.status == 201, r
    assert r.json["commit"]["author"]["name"] == "alice"
    assert r.json["commit"]["committer"]["name"] == "alice"


def test_identity_fields_read_as_text(api, scene):
    r = create(api, scene["alice"], "a.txt", "a", author={"name": 12, "email": 34})
    assert r.status == 201, r
    assert (r.json["commit"]["author"]["name"], r.json["commit"]["author"]["email"]) == \
        ("12", "34")


@pytest.mark.parametrize("dates, text", [
    ({"author": 5}, "[Dates.Author]: invalid date 5"),
    ({"committer": True}, "[Dates.Committer]: invalid date True"),
    ({"author": ["2020-01-02T03:04:05Z"]},
     "[Dates.Author]: invalid date ['2020-01-02T03:04:05Z']"),
])
def test_a_date_that_is_not_a_text(api, scene, dates, text):
    _refused(create(api, scene["alice"], "a.txt", "a", dates=dates), text)


@pytest.mark.parametrize("sha", [0, False, {}, []])
def test_an_empty_sha_of_any_type_is_required(api, scene, sha):
    alice = scene["alice"]
    _refused(api.put(f"{R}/contents/README.md", token=alice,
                     json={"content": b64("x"), "sha": sha}), "[SHA]: Required")
    _refused(api.delete(f"{R}/contents/README.md", token=alice, json={"sha": sha}),
             "[SHA]: Required")
    _refused(api.post(f"{R}/contents", token=alice, json={"files": [
        {"operation": "update", "path": "README.md", "content": b64("x"), "sha": sha}]}),
        "[Files.SHA]: Required for update and delete")


def test_a_sha_that_is_not_a_text_does_not_match(api, scene):
    r = api.put(f"{R}/contents/README.md", token=scene["alice"],
                json={"content": b64("x"), "sha": 1})
    assert r.status == 409, r
    assert r.json["message"] == f"sha does not match [given: 1, expected: {_readme_sha(api)}]"


def test_a_rename_source_that_is_not_a_text_is_ignored(api, scene):
    alice = scene["alice"]
    r = api.put(f"{R}/contents/README.md", token=alice,
                json={"content": b64("x"), "sha": _readme_sha(api), "from_path": 1})
    assert r.status == 200, r
    r = api.post(f"{R}/contents", token=alice, json={"files": [
        {"operation": "update", "path": "README.md", "content": b64("y"),
         "sha": _readme_sha(api), "from_path": ["a"]},
        {"operation": "create", "path": "new.txt", "content": b64("n"), "sha": 1}]})
    assert r.status == 201, r
    assert [f["path"] for f in r.json["files"]] == ["README.md", "new.txt"]


# Branches and tags --------------------------------------------------------------------------

@pytest.mark.parametrize("body, text", [
    ({"new_branch_name": 1}, "[NewBranchName]: Required"),
    ({"new_branch_name": ["b"]}, "[NewBranchName]: Required"),
    ({"new_branch_name": "b", "old_ref_name": 1}, "[OldRefName]: must be a string"),
    ({"new_branch_name": "b", "old_ref_name": ["main"]}, "[OldRefName]: must be a string"),
    ({"new_branch_name": "b", "old_branch_name": True}, "[OldRefName]: must be a string"),
    ({"new_branch_name": "b", "old_branch_name": {"name": "main"}},
     "[OldRefName]: must be a string"),
])
def test_create_branch(api, scene, body, text):
    _refused(api.post(f"{R}/branches", token=scene["alice"], json=body), text)


@pytest.mark.parametrize("empty", [0, False, {}, [], ""])
def test_an_empty_old_name_of_any_type_is_left_out(api, scene, empty):
    alice = scene["alice"]
    r = api.post(f"{R}/branches", token=alice, json={
        "new_branch_name": "b", "old_ref_name": empty, "old_branch_name": empty})
    assert r.status == 201, r
    assert head(api, alice, "b") == head(api, alice, "main")


@pytest.mark.parametrize("name", [1, ["new"], {"name": "new"}])
def test_rename_branch(api, scene, name):
    _refused(api.patch(f"{R}/branches/main", token=scene["alice"], json={"name": name}),
             "[Name]: Required")


@pytest.mark.parametrize("body, text", [
    ({"tag_name": 1}, "[TagName]: must be a string"),
    ({"tag_name": "v1", "message": 1}, "[Message]: must be a string"),
    ({"tag_name": "v1", "message": False}, "[Message]: must be a string"),
    ({"tag_name": "v1", "target": ["main"]}, "[Target]: must be a string"),
])
def test_create_tag(api, scene, body, text):
    _refused(api.post(f"{R}/tags", token=scene["alice"], json=body), text)
