"""The contents API (issue 14 item 1), in-process under moto: reading files and
directories at a ref, and creating, updating and deleting files, one commit each."""
from __future__ import annotations

import base64
from collections import Counter

import pytest

from tests.test_races import atomic_requests, together  # noqa: F401 (fixture)

R = "/repos/alice/proj"


def b64(data: bytes | str) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


@pytest.fixture
def scene(api):
    """alice owns public ``proj`` (README.md on main) and private ``secret``; bob may
    read proj; carol is a stranger."""
    tokens = {}
    for name in ("alice", "bob", "carol"):
        api.create_user(name)
        tokens[name] = api.create_token(name)
    alice = tokens["alice"]
    assert api.post("/user/repos", token=alice, json={"name": "proj", "auto_init": True}
                    ).status == 201
    assert api.post("/user/repos", token=alice, json={"name": "secret", "private": True,
                                                      "auto_init": True}).status == 201
    assert api.put(f"{R}/collaborators/bob", token=alice,
                   json={"permission": "read"}).status == 204
    return tokens


def head(api, token, branch="main") -> str:
    return api.get(f"{R}/branches/{branch}", token=token).json["commit"]["id"]


def create(api, token, path, text, **extra):
    return api.post(f"{R}/contents/{path}", token=token, json={"content": b64(text), **extra})


def test_read_file_directory_and_missing(api, scene):
    alice = scene["alice"]
    r = create(api, alice, "docs/guide.md", "guide\n", message="add guide")
    assert r.status == 201, r
    commit = r.json["commit"]["sha"]
    got = api.get(f"{R}/contents/docs/guide.md")
    assert got.status == 200, got
    rec = got.json
    assert base64.b64decode(rec["content"]) == b"guide\n" and rec["encoding"] == "base64"
    assert rec["type"] == "file" and rec["name"] == "guide.md" and rec["path"] == "docs/guide.md"
    assert rec["size"] == 6 and rec["sha"] == r.json["content"]["sha"]
    assert rec["last_commit_sha"] == commit and rec["target"] is None
    assert rec["url"].endswith("/api/v1/repos/alice/proj/contents/docs/guide.md?ref=main")
    assert rec["html_url"].endswith("/alice/proj/src/branch/main/docs/guide.md")
    assert rec["download_url"].endswith("/alice/proj/raw/branch/main/docs/guide.md")
    assert rec["git_url"].endswith(f"/api/v1/repos/alice/proj/git/blobs/{rec['sha']}")
    assert rec["_links"] == {"self": rec["url"], "git": rec["git_url"], "html": rec["html_url"]}
    # The root and a directory: entries without content; README's last commit is the first.
    root = api.get(f"{R}/contents").json
    assert [(e["name"], e["type"]) for e in root] == [("README.md", "file"), ("docs", "dir")]
    assert all(e["content"] is None and e["encoding"] is None for e in root)
    assert root[1]["last_commit_sha"] == commit and root[0]["last_commit_sha"] != commit
    assert root[1]["git_url"].endswith(f"/git/trees/{root[1]['sha']}")
    assert root[1]["download_url"] is None
    listing = api.get(f"{R}/contents/docs?ref=main").json
    assert [e["path"] for e in listing] == ["docs/guide.md"]
    # At an older commit (by id) the file is not there.
    parent = r.json["commit"]["parents"][0]["sha"]
    assert api.get(f"{R}/contents/docs/guide.md?ref={parent}").status == 404
    old = api.get(f"{R}/contents/README.md?ref={parent}").json
    assert old["html_url"].endswith(f"/src/commit/{parent}/README.md")
    for missing in ("nope.txt", "docs/nope", "README.md/inside", "../etc/passwd", "a/../../b"):
        assert api.get(f"{R}/contents/{missing}").status == 404, missing
    assert api.get(f"{R}/contents/README.md?ref=no-such-branch").status == 404


def test_symlink_and_submodule_entries(api, scene):
    from dulwich.objects import Tree

    from chalicelib.gitops import commits, objects, trees
    from chalicelib.contents import pushes
    from chalicelib.contents import files as repo_files
    from chalicelib.repos import store as repo_store
    from chalicelib.store import unit_of_work

    sub = "1" * 40
    with unit_of_work.start():
        repo = repo_store.get("alice", "proj")
        git = repo_files.open_git(repo)
        parent = git.refs[b"refs/heads/main"]
        with objects.staged(git.object_store) as staged:
            made = commits.commit_edits(
                staged, parent=parent, author=commits.Identity("A", "a@example.com"),
                message="links", edits=[
                    trees.write("link", b"README.md", mode=trees.SYMLINK),
                    trees.write(".gitmodules", b'[submodule "lib"]\n\tpath = lib\n'
                                               b"\turl = https://example.com/lib.git\n")])
            tree = staged[made.tree]
            with_sub = Tree()
            for entry in tree.iteritems():
                with_sub.add(entry.path, entry.mode, entry.sha)
            with_sub.add(b"lib", trees.SUBMODULE, sub.encode())
            staged.add_object(with_sub)
            final = commits.write_commit(staged, tree=with_sub.id, parents=[made.id],
                                         author=commits.Identity("A", "a@example.com"),
                                         message="submodule")
        pushes.apply_ref_updates(repo, git, [("refs/heads/main", parent.decode(),
                                              final.id.decode())])
    link = api.get(f"{R}/contents/link").json
    assert link["type"] == "symlink" and link["target"] == "README.md"
    assert link["content"] is None and link["download_url"] is not None
    lib = api.get(f"{R}/contents/lib").json
    assert lib["type"] == "submodule" and lib["sha"] == sub
    assert lib["submodule_git_url"] == "https://example.com/lib.git"
    assert lib["html_url"] is None and lib["git_url"].endswith(f"/git/commits/{sub}")


def test_create_update_delete(api, scene):
    alice = scene["alice"]
    r = create(api, alice, "notes.txt", "one\n")
    assert r.status == 201, r
    body = r.json
    assert body["commit"]["message"] == "Add 'notes.txt'\n"
    assert body["commit"]["author"]["name"] == "alice"
    assert body["commit"]["committer"]["email"] == body["commit"]["author"]["email"]
    assert body["content"]["path"] == "notes.txt" and body["verification"]["verified"] is False
    assert head(api, alice) == body["commit"]["sha"]
    sha = body["content"]["sha"]
    # Creating it again is refused.
    assert create(api, alice, "notes.txt", "again").status == 422
    r = api.put(f"{R}/contents/notes.txt", token=alice,
                json={"content": b64("two\n"), "sha": sha})
    assert r.status == 200, r
    assert r.json["commit"]["message"] == "Update 'notes.txt'\n"
    assert r.json["commit"]["parents"][0]["sha"] == body["commit"]["sha"]
    got = api.get(f"{R}/contents/notes.txt").json
    assert base64.b64decode(got["content"]) == b"two\n"
    new_sha = got["sha"]
    # Update without sha: 422; of a missing file: 404.
    assert api.put(f"{R}/contents/notes.txt", token=alice,
                   json={"content": b64("x")}).status == 422
    assert api.put(f"{R}/contents/none.txt", token=alice,
                   json={"content": b64("x"), "sha": new_sha}).status == 404
    r = api.delete(f"{R}/contents/notes.txt", token=alice, json={"sha": new_sha})
    assert r.status == 200, r
    assert r.json["content"] is None and r.json["commit"]["message"] == "Delete 'notes.txt'\n"
    assert api.get(f"{R}/contents/notes.txt").status == 404
    assert api.delete(f"{R}/contents/notes.txt", token=alice,
                      json={"sha": new_sha}).status == 404


def test_rename_by_update_with_from_path(api, scene):
    alice = scene["alice"]
    sha = create(api, alice, "old.txt", "body").json["content"]["sha"]
    r = api.put(f"{R}/contents/new.txt", token=alice,
                json={"content": b64("body2"), "sha": sha, "from_path": "old.txt"})
    assert r.status == 200, r
    assert api.get(f"{R}/contents/old.txt").status == 404
    assert base64.b64decode(api.get(f"{R}/contents/new.txt").json["content"]) == b"body2"


def test_identities_dates_signoff_and_new_branch(api, scene):
    alice = scene["alice"]
    before = head(api, alice)
    r = create(api, alice, "x.txt", "x", branch="main", new_branch="topic", message="Custom",
               author={"name": "Ann Author", "email": "ann@example.com"},
               committer={"name": "Cy Committer", "email": "cy@example.com"},
               dates={"author": "2020-01-02T03:04:05+02:00",
                      "committer": "2021-01-02T03:04:05Z"}, signoff=True)
    assert r.status == 201, r
    c = r.json["commit"]
    assert c["author"] == {"name": "Ann Author", "email": "ann@example.com",
                           "date": "2020-01-02T03:04:05+02:00"}
    assert c["committer"] == {"name": "Cy Committer", "email": "cy@example.com",
                              "date": "2021-01-02T03:04:05Z"}
    assert c["message"] == "Custom\n\nSigned-off-by: Cy Committer <cy@example.com>\n"
    assert head(api, alice) == before                       # main untouched
    assert head(api, alice, "topic") == c["sha"]
    assert r.json["content"]["url"].endswith("?ref=topic")
    assert api.get(f"{R}/contents/x.txt").status == 404
    assert api.get(f"{R}/contents/x.txt?ref=topic").status == 200
    # Only one identity given: used for both.
    r = create(api, alice, "y.txt", "y", author={"name": "Solo", "email": "solo@example.com"})
    assert r.json["commit"]["committer"]["name"] == "Solo"
    # A new branch that exists, a base branch that does not.
    assert create(api, alice, "z.txt", "z", new_branch="topic").status == 422
    # Unless the new branch may be overwritten: it then starts from ``branch`` again.
    main_now = head(api, alice)
    r = create(api, alice, "z.txt", "z", new_branch="topic", force_overwrite_new_branch=True)
    assert r.status == 201, r
    assert r.json["commit"]["parents"][0]["sha"] == main_now
    assert head(api, alice, "topic") == r.json["commit"]["sha"]
    assert api.get(f"{R}/contents/x.txt?ref=topic").status == 404
    assert create(api, alice, "z.txt", "z", branch="nope").status == 404
    assert create(api, alice, "z.txt", "z", new_branch="bad..name").status == 422
    assert create(api, alice, "z.txt", "z", dates={"author": "yesterday"}).status == 422


def test_change_files_in_one_commit(api, scene):
    alice = scene["alice"]
    readme = api.get(f"{R}/contents/README.md").json["sha"]
    gone = create(api, alice, "gone.txt", "bye").json["content"]["sha"]
    before = head(api, alice)
    r = api.post(f"{R}/contents", token=alice, json={"files": [
        {"operation": "create", "path": "a/one.txt", "content": b64("1")},
        {"operation": "update", "path": "README.md", "content": b64("# new\n"), "sha": readme},
        {"operation": "delete", "path": "gone.txt", "sha": gone}]})
    assert r.status == 201, r
    body = r.json
    assert [f and f["path"] for f in body["files"]] == ["a/one.txt", "README.md", None]
    assert body["commit"]["parents"][0]["sha"] == before
    assert body["commit"]["message"] == "Add 'a/one.txt'\nUpdate 'README.md'\nDelete 'gone.txt'\n"
    names = sorted(e["name"] for e in api.get(f"{R}/contents").json)
    assert names == ["README.md", "a"]
    # One bad operation: nothing is written.
    now = head(api, alice)
    r = api.post(f"{R}/contents", token=alice, json={"files": [
        {"operation": "create", "path": "b.txt", "content": b64("b")},
        {"operation": "delete", "path": "missing.txt", "sha": "0" * 40}]})
    assert r.status == 404 and head(api, alice) == now
    for files in ([], [{"operation": "chmod", "path": "x"}], [{"operation": "update",
                                                              "path": "README.md"}],
                  [{"operation": "create", "path": "c.txt", "content": "not base64!"}]):
        assert api.post(f"{R}/contents", token=alice, json={"files": files}).status == 422, files


def test_stale_sha_is_a_conflict_and_writes_nothing(api, scene):
    alice = scene["alice"]
    sha = create(api, alice, "f.txt", "v1").json["content"]["sha"]
    assert api.put(f"{R}/contents/f.txt", token=alice,
                   json={"content": b64("v2"), "sha": sha}).status == 200
    now = head(api, alice)
    r = api.put(f"{R}/contents/f.txt", token=alice, json={"content": b64("v3"), "sha": sha})
    assert r.status == 409, r
    assert head(api, alice) == now
    assert base64.b64decode(api.get(f"{R}/contents/f.txt").json["content"]) == b"v2"
    assert api.delete(f"{R}/contents/f.txt", token=alice, json={"sha": sha}).status == 409


def test_two_updates_from_one_sha_at_once(api, scene, atomic_requests):  # noqa: F811
    alice = scene["alice"]
    sha = create(api, alice, "race.txt", "v1").json["content"]["sha"]
    answers = together(2, lambda i: api.put(f"{R}/contents/race.txt", token=alice,
                                            json={"content": b64(f"from {i}"), "sha": sha}))
    assert Counter(a.status for a in answers) == Counter({200: 1, 409: 1}), answers
    won = next(a for a in answers if a.status == 200)
    assert head(api, alice) == won.json["commit"]["sha"]
    got = api.get(f"{R}/contents/race.txt").json
    assert got["sha"] == won.json["content"]["sha"]


@pytest.mark.parametrize("path", ["with space.txt", "ünïcödé/文件.md", "deep/" * 20 + "f.txt",
                                  "n" * 255])
def test_unusual_paths_round_trip(api, scene, path):
    from urllib.parse import quote

    alice = scene["alice"]
    r = create(api, alice, quote(path), "content")
    assert r.status == 201, r
    assert r.json["content"]["path"] == path
    got = api.get(f"{R}/contents/{quote(path)}")
    assert got.status == 200 and got.json["path"] == path
    assert base64.b64decode(got.json["content"]) == b"content"


@pytest.mark.parametrize("path", ["../escape.txt", "a/../../b", ".git/config", "n" * 5000])
def test_bad_paths_are_refused(api, scene, path):
    alice = scene["alice"]
    before = head(api, alice)
    r = create(api, alice, path, "content")
    assert 400 <= r.status < 500, r
    assert head(api, alice) == before


def test_access(api, scene):
    bob, carol = scene["bob"], scene["carol"]
    assert api.get(f"{R}/contents/README.md", token=bob).status == 200
    assert create(api, bob, "b.txt", "b").status == 403
    assert create(api, carol, "c.txt", "c").status == 403
    assert create(api, None, "c.txt", "c").status == 401
    secret = "/repos/alice/secret"
    assert api.get(f"{secret}/contents/README.md", token=carol).status == 404
    assert api.post(f"{secret}/contents/c.txt", token=carol,
                    json={"content": b64("c")}).status == 404
    assert api.get(f"{secret}/contents/README.md", token=scene["alice"]).status == 200


def test_media_serves_the_raw_file(api, scene):
    r = api.get(f"{R}/media/README.md")
    assert r.status == 200 and r.body.startswith(b"# proj")


def test_raw_with_the_ref_in_the_path(api, scene):
    alice = scene["alice"]
    first = head(api, alice)
    assert create(api, alice, "f.txt", "on topic", new_branch="feature/x").status == 201
    assert api.get(f"{R}/raw/feature/x/f.txt").body == b"on topic"
    assert api.get(f"{R}/raw/main/README.md").body.startswith(b"# proj")
    assert api.get(f"{R}/raw/{first[:10]}/README.md").body.startswith(b"# proj")
    assert api.get(f"{R}/raw/README.md").body.startswith(b"# proj")
    assert api.get(f"{R}/raw/main/f.txt").status == 404
    assert api.get(f"{R}/raw/f.txt?ref=feature/x").body == b"on topic"


def test_first_file_of_an_empty_repository(api, scene):
    alice = scene["alice"]
    assert api.post("/user/repos", token=alice, json={"name": "blank"}).status == 201
    blank = "/repos/alice/blank"
    assert api.get(f"{blank}/contents/a.txt").status == 404
    r = api.post(f"{blank}/contents/a.txt", token=alice, json={"content": b64("a")})
    assert r.status == 201, r
    assert r.json["commit"]["parents"] == []
    assert api.get(f"{blank}/branches/main", token=alice).json["commit"]["id"] == \
        r.json["commit"]["sha"]
    assert api.get(f"{blank}", token=alice).json["empty"] is False
    assert base64.b64decode(api.get(f"{blank}/contents/a.txt").json["content"]) == b"a"
