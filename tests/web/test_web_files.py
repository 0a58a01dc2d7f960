"""Changing files in the browser (chalicelib/web/actions_files.py), in-process under moto
through the gateway: a new file (on the branch or a new one), an upload of several files
in one commit, an edit that sends the file's sha (a stale one is refused with the other
change kept), a deletion; bad paths beside their field with nothing committed; readers
and strangers refused as the API refuses them; the CSRF token required."""
from __future__ import annotations

import base64
import html
import re
import uuid

import pytest

from tests.web.test_web_actions import WebUser, error_shown, field_error_shown, text

PROJ = "/alice/proj"
API = "/repos/alice/proj"


@pytest.fixture
def scene(api):
    """alice owns public ``proj`` (README.md, docs/guide.md, a branch ``feat/x``) and
    private ``secret``; bob writes to ``proj``, dave reads it; carol is a stranger."""
    for name in ("alice", "bob", "carol", "dave"):
        api.create_user(name)
    token = api.create_token("alice")
    for name, private in (("proj", False), ("secret", True)):
        assert api.post("/user/repos", token=token, json={
            "name": name, "private": private, "auto_init": True}).status == 201
    assert api.post(f"{API}/contents/docs/guide.md", token=token,
                    json={"content": b64("# Guide\n")}).status == 201
    assert api.post(f"{API}/branches", token=token,
                    json={"new_branch_name": "feat/x"}).status == 201
    for name, permission in (("bob", "write"), ("dave", "read")):
        assert api.put(f"{API}/collaborators/{name}", token=token,
                       json={"permission": permission}).status == 204
    users = {n: WebUser(api).sign_in(n) for n in ("alice", "bob", "carol", "dave")}
    return dict(users, token=token, anonymous=WebUser(api))


def b64(value: str) -> str:
    return base64.b64encode(value.encode()).decode()


def file_at(api, token: str, path: str, ref: str = "main") -> dict | None:
    resp = api.get(f"{API}/contents/{path}?ref={ref}", token=token)
    return resp.json if resp.status == 200 else None


def content_of(api, token: str, path: str, ref: str = "main") -> str | None:
    found = file_at(api, token, path, ref)
    return base64.b64decode(found["content"]).decode() if found else None


def head(api, token: str, branch: str = "main") -> dict:
    return api.get(f"{API}/branches/{branch}", token=token).json["commit"]


def form_sha(resp) -> str:
    found = re.search(r'name="sha" value="([0-9a-f]{40})"', text(resp))
    assert found, "the form sends no sha"
    return found.group(1)


def textarea(resp, name: str = "content") -> str:
    found = re.search(rf'<textarea[^>]* name="{name}"[^>]*>\n?(.*?)</textarea>', text(resp),
                      re.S)
    assert found, f"no {name} textarea"
    return html.unescape(found.group(1))


def upload(user: WebUser, path: str, files: list[tuple[str, bytes]], fields: dict | None = None,
           csrf: str | None = "fresh"):
    """The upload form as a browser posts it: multipart/form-data, the token a field."""
    boundary = uuid.uuid4().hex
    pairs = dict(fields or {})
    if csrf is not None:
        pairs["_csrf"] = user.token("/") if csrf == "fresh" else csrf
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in pairs.items()]
    parts += [f'--{boundary}\r\nContent-Disposition: form-data; name="files"; '
              f'filename="{name}"\r\nContent-Type: application/octet-stream\r\n\r\n'.encode()
              + data + b"\r\n" for name, data in files]
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    return user.request("POST", path, body,
                        **{"Content-Type": f"multipart/form-data; boundary={boundary}"})


def test_new_file_on_the_branch_and_on_a_new_branch(api, scene):
    alice, token = scene["alice"], scene["token"]
    form = alice.get(f"{PROJ}/_new/main/docs")
    assert form.status == 200 and 'name="tree_path"' in text(form)
    assert 'value="docs/"' in text(form)                # the path starts in the directory
    assert 'value="alice-patch-1"' in text(form)        # Forgejo's proposed branch name
    made = alice.post(f"{PROJ}/_new/main/docs", {
        "tree_path": "docs/notes/hello.txt", "content": "hi\r\nthere\r\n",
        "commit_summary": "", "commit_choice": "direct"})
    assert made.status == 303, text(made)
    assert made.headers["location"] == f"{PROJ}/src/branch/main/docs/notes/hello.txt"
    assert content_of(api, token, "docs/notes/hello.txt") == "hi\nthere\n"
    assert head(api, token)["message"].strip() == "Add docs/notes/hello.txt"
    # On a new branch: the branch is made from main with the file; main is unchanged.
    before = head(api, token)["id"]
    made = alice.post(f"{PROJ}/_new/main", {
        "tree_path": "idea.md", "content": "# Idea\n", "commit_summary": "An idea",
        "commit_message": "Worth a look.", "commit_choice": "commit-to-new-branch",
        "new_branch_name": "alice/idea"})
    assert made.status == 303, text(made)
    assert made.headers["location"] == f"{PROJ}/compare/main...alice/idea"
    assert alice.get(made.headers["location"]).status == 200      # a pull request to open
    assert content_of(api, token, "idea.md", "alice/idea") == "# Idea\n"
    assert head(api, token, "alice/idea")["message"].strip() == "An idea\n\nWorth a look."
    assert head(api, token)["id"] == before and file_at(api, token, "idea.md") is None
    # That branch is taken now: refused beside its field, nothing written.
    again = alice.post(f"{PROJ}/_new/main", {
        "tree_path": "other.md", "content": "x", "commit_choice": "commit-to-new-branch",
        "new_branch_name": "alice/idea"})
    assert again.status == 422 and field_error_shown(again, "new_branch_name", "already exists")
    assert file_at(api, token, "other.md", "alice/idea") is None


def test_bad_paths_are_refused_beside_the_field(api, scene):
    alice, token = scene["alice"], scene["token"]
    before = head(api, token)["id"]
    for path, message in (("", "Required"), ("../evil.txt", "malformed path"),
                          ("docs/../../evil.txt", "malformed path"),
                          ("README.md", "already exists"),
                          ("docs/guide.md/inner.txt", "a file exists")):
        refused = alice.post(f"{PROJ}/_new/main", {"tree_path": path, "content": "typed text",
                                                   "commit_choice": "direct"})
        assert refused.status == 422, (path, refused.status)
        assert field_error_shown(refused, "tree_path", message), (path, text(refused))
        assert textarea(refused) == "typed text"          # what was typed is kept
    assert head(api, token)["id"] == before               # nothing committed


def test_upload_commits_every_file_at_once(api, scene):
    bob, token = scene["bob"], scene["token"]
    form = bob.get(f"{PROJ}/_upload/main/docs")
    assert form.status == 200 and 'enctype="multipart/form-data"' in text(form)
    before = head(api, token)["id"]
    done = upload(bob, f"{PROJ}/_upload/main/docs", [("a.txt", b"alpha\n"),
                                                     ("b.bin", bytes(range(256)))],
                  {"tree_path": "docs/more", "commit_choice": "direct"})
    assert done.status == 303, text(done)
    assert done.headers["location"] == f"{PROJ}/src/branch/main/docs/more"
    commit = head(api, token)
    parents = api.get(f"{API}/git/commits/{commit['id']}", token=token).json["parents"]
    assert [p["sha"] for p in parents] == [before]       # one commit on top of the old head
    assert content_of(api, token, "docs/more/a.txt") == "alpha\n"
    assert base64.b64decode(file_at(api, token, "docs/more/b.bin")["content"]) == bytes(range(256))
    assert commit["message"].strip() == "Upload files to docs/more"
    # A file already there, no file, a file above the API's limit: beside the field.
    now = head(api, token)["id"]
    taken = upload(bob, f"{PROJ}/_upload/main/docs", [("guide.md", b"x")],
                   {"tree_path": "docs", "commit_choice": "direct"})
    assert taken.status == 422 and field_error_shown(taken, "files", "already exists")
    empty = upload(bob, f"{PROJ}/_upload/main", [], {"commit_choice": "direct"})
    assert empty.status == 422 and field_error_shown(empty, "files", "choose at least one")
    large = upload(bob, f"{PROJ}/_upload/main", [("big.bin", b"\0" * (4_800_000))],
                   {"commit_choice": "direct"})
    assert large.status == 422 and field_error_shown(large, "files", "big.bin is larger")
    assert head(api, token)["id"] == now


def test_edit_with_the_sha_it_was_shown(api, scene):
    alice, token = scene["alice"], scene["token"]
    form = alice.get(f"{PROJ}/_edit/main/docs/guide.md")
    assert form.status == 200 and textarea(form) == "# Guide\n"
    assert form_sha(form) == file_at(api, token, "docs/guide.md")["sha"]
    saved = alice.post(f"{PROJ}/_edit/main/docs/guide.md", {
        "tree_path": "docs/guide.md", "content": "# Guide\r\n\r\nMore.\r\n",
        "sha": form_sha(form), "commit_choice": "direct"})
    assert saved.status == 303 and saved.headers["location"] == \
        f"{PROJ}/src/branch/main/docs/guide.md"
    assert content_of(api, token, "docs/guide.md") == "# Guide\n\nMore.\n"
    assert head(api, token)["message"].strip() == "Update docs/guide.md"


def test_a_stale_edit_is_refused_and_the_other_change_kept(api, scene):
    alice, token = scene["alice"], scene["token"]
    form = alice.get(f"{PROJ}/_edit/main/docs/guide.md")
    stale = form_sha(form)
    # Someone else changes the file through the API meanwhile.
    assert api.put(f"{API}/contents/docs/guide.md", token=token, json={
        "content": b64("# Their guide\n"), "sha": stale}).status == 200
    refused = alice.post(f"{PROJ}/_edit/main/docs/guide.md", {
        "tree_path": "docs/guide.md", "content": "# My guide\n", "sha": stale,
        "commit_choice": "direct"})
    assert refused.status == 409
    assert field_error_shown(refused, "content", "changed this file")
    assert textarea(refused) == "# My guide\n"                     # the typed text kept
    assert content_of(api, token, "docs/guide.md") == "# Their guide\n"  # theirs kept
    # Deleting with the stale sha is refused too.
    gone = alice.post(f"{PROJ}/_delete/main/docs/guide.md", {"sha": stale,
                                                             "commit_choice": "direct"})
    assert gone.status == 409 and error_shown(gone, "nothing was deleted")
    assert content_of(api, token, "docs/guide.md") == "# Their guide\n"


def test_delete_and_branches_with_slashes(api, scene):
    alice, token = scene["alice"], scene["token"]
    # feat/x is a branch: the shortest prefix naming one, as /src/ reads it.
    form = alice.get(f"{PROJ}/_delete/feat/x/docs/guide.md")
    assert form.status == 200 and 'action="/alice/proj/_delete/feat/x/docs/guide.md"' in text(form)
    done = alice.post(f"{PROJ}/_delete/feat/x/docs/guide.md", {
        "sha": form_sha(form), "commit_choice": "direct"})
    assert done.status == 303
    # The directory's last file went with it: the page lands at the top.
    assert done.headers["location"] == f"{PROJ}/src/branch/feat/x"
    assert file_at(api, token, "docs/guide.md", "feat/x") is None
    assert file_at(api, token, "docs/guide.md") is not None       # main keeps it
    assert head(api, token, "feat/x")["message"].strip() == "Delete docs/guide.md"
    edit = alice.get(f"{PROJ}/_edit/feat/x/README.md")
    assert edit.status == 200 and 'action="/alice/proj/_edit/feat/x/README.md"' in text(edit)
    assert alice.get(f"{PROJ}/_edit/main/no-such-file").status == 404
    assert alice.get(f"{PROJ}/_new/no-such-branch").status == 404


def test_links_for_writers_only(api, scene):
    for who, shown in (("alice", True), ("bob", True), ("dave", False), ("anonymous", False)):
        home = text(scene[who].get(PROJ))
        listing = text(scene[who].get(f"{PROJ}/src/branch/main/docs"))
        page = text(scene[who].get(f"{PROJ}/src/branch/main/docs/guide.md"))
        assert (f'href="{PROJ}/_new/main"' in home) is shown, who
        assert (f'href="{PROJ}/_upload/main/docs"' in listing) is shown, who
        assert (f'href="{PROJ}/_edit/main/docs/guide.md"' in page) is shown, who
        assert (f'href="{PROJ}/_delete/main/docs/guide.md"' in page) is shown, who
    # Not on a tag or a commit: those cannot be committed to.
    assert "/_edit/" not in text(scene["alice"].get(
        f"{PROJ}/src/commit/{head(api, scene['token'])['id']}/README.md"))


def test_readers_strangers_and_visitors_are_refused(api, scene):
    token = scene["token"]
    before = head(api, token)["id"]
    dave = scene["dave"]                      # reads proj: 403 as the API answers him
    for path in ("_new/main", "_upload/main", "_edit/main/README.md", "_delete/main/README.md"):
        assert dave.get(f"{PROJ}/{path}").status == 403, path
    assert dave.post(f"{PROJ}/_new/main", {"tree_path": "x.txt", "content": "x",
                                           "commit_choice": "direct"}).status == 403
    assert upload(dave, f"{PROJ}/_upload/main", [("x.txt", b"x")]).status == 403
    sha = file_at(api, token, "README.md")["sha"]
    assert dave.post(f"{PROJ}/_delete/main/README.md", {"sha": sha}).status == 403
    assert head(api, token)["id"] == before
    # carol cannot see alice's private repository at all: the 404 page, form and post.
    carol = scene["carol"]
    assert carol.get("/alice/secret/_new/main").status == 404
    assert carol.get("/alice/secret/_edit/main/README.md").status == 404
    assert carol.post("/alice/secret/_new/main", {"tree_path": "x.txt", "content": "x"}
                      ).status == 404
    secret = api.get("/repos/alice/secret/branches/main", token=token).json["commit"]["id"]
    assert api.get("/repos/alice/secret/branches/main", token=token).json["commit"]["id"] \
        == secret
    # A visitor is sent to sign in; the private repository stays a 404 to them.
    visitor = scene["anonymous"]
    assert visitor.get(f"{PROJ}/_new/main").headers["location"].startswith("/user/login?")
    assert visitor.get("/alice/secret/_new/main").status == 404


def test_csrf_is_required(api, scene):
    alice, token = scene["alice"], scene["token"]
    before = head(api, token)["id"]
    assert alice.post(f"{PROJ}/_new/main", {"tree_path": "x.txt", "content": "x"},
                      csrf=None).status == 403
    assert upload(alice, f"{PROJ}/_upload/main", [("x.txt", b"x")], csrf=None).status == 403
    assert upload(alice, f"{PROJ}/_upload/main", [("x.txt", b"x")], csrf="forged").status == 403
    sha = file_at(api, token, "README.md")["sha"]
    assert alice.post(f"{PROJ}/_edit/main/README.md", {"tree_path": "README.md", "content": "x",
                                                       "sha": sha}, csrf=None).status == 403
    assert alice.post(f"{PROJ}/_delete/main/README.md", {"sha": sha}, csrf=None).status == 403
    assert head(api, token)["id"] == before


def test_the_first_file_of_an_empty_repository(api, scene):
    alice, token = scene["alice"], scene["token"]
    assert api.post("/user/repos", token=token, json={"name": "blank"}).status == 201
    assert 'href="/alice/blank/_new/main"' in text(alice.get("/alice/blank"))
    assert alice.get("/alice/blank/_new/main").status == 200
    made = alice.post("/alice/blank/_new/main", {"tree_path": "start.txt", "content": "go\n",
                                                "commit_choice": "direct"})
    assert made.status == 303, text(made)
    record = api.get("/repos/alice/blank", token=token).json
    assert record["empty"] is False
    found = api.get("/repos/alice/blank/contents/start.txt", token=token).json
    assert base64.b64decode(found["content"]) == b"go\n"


def test_a_protected_branch_points_to_a_new_branch(api, scene):
    alice, token = scene["alice"], scene["token"]
    assert api.post(f"{API}/branch_protections", token=token, json={
        "rule_name": "main", "enable_push": False}).status == 201
    before = head(api, token)["id"]
    refused = alice.post(f"{PROJ}/_new/main", {"tree_path": "x.txt", "content": "x",
                                               "commit_choice": "direct"})
    assert refused.status == 403
    assert field_error_shown(refused, "commit_choice", "commit to a new branch instead")
    assert textarea(refused) == "x" and head(api, token)["id"] == before
    made = alice.post(f"{PROJ}/_new/main", {"tree_path": "x.txt", "content": "x",
                                            "commit_choice": "commit-to-new-branch",
                                            "new_branch_name": "alice-patch-1"})
    assert made.status == 303 and content_of(api, token, "x.txt", "alice-patch-1") == "x"
