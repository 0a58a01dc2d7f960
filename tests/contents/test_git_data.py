"""The git data API (blobs, refs, annotated tags, notes; who may read them) in-process
under moto, on the scene of tests/git_data_support.py, and on a history made by the real
git CLI (its own pack, offset deltas included), whose answers (``ls-tree``, ``cat-file``,
``for-each-ref``, ``notes show``) the API must agree with.  Trees are in
tests/contents/test_git_trees.py."""
from __future__ import annotations

import base64
import subprocess

from dulwich.protocol import pkt_line

from chalicelib.http import schemas
from chalicelib.gitstore import object_sizes
from tests.environment import settings_env
from tests.git_data_support import API, R, pack_kinds, store_of
from tests.git_data_support import module_api, module_scene  # noqa: F401 - api, scene
from tests.repos.test_events_repos import ZERO, push
from tests.git_transport.test_git_http import git, git_env  # noqa: F401 - git_env: a fixture
from tests.accounts.test_users import assert_matches_forgejo


# Blobs ----------------------------------------------------------------------------------

def test_blob(api, scene):
    readme = api.get(f"{R}/git/trees/main").json["tree"][0]
    r = api.get(f"{R}/git/blobs/{readme['sha']}")
    assert r.status == 200
    assert set(r.json) == set(schemas.RECORDS["GitBlob"])
    assert_matches_forgejo(r.json, "GitBlob")
    assert r.json == {"content": base64.b64encode(b"# proj, again\n").decode(),
                      "encoding": "base64", "url": f"{API}/git/blobs/{readme['sha']}",
                      "sha": readme["sha"], "size": 14}
    assert api.get(f"{R}/git/blobs/{readme['sha'].upper()}").json["sha"] == readme["sha"]


def test_blob_errors(api, scene):
    c1 = scene["c1"].id.decode()
    for bad in ("abc", c1[:20], "z" * 40):
        r = api.get(f"{R}/git/blobs/{bad}")
        assert r.status == 400 and "has no matched object format" in r.json["message"], bad
    assert api.get(f"{R}/git/blobs/{'0' * 40}").status == 404
    assert api.get(f"{R}/git/blobs/{'a' * 64}").status == 404
    assert api.get(f"{R}/git/blobs/{c1}").status == 404          # a commit
    assert api.get(f"{R}/git/blobs/{scene['c1'].tree.decode()}").status == 404


def test_blob_over_the_size_limit_has_no_content(api, scene):
    readme = api.get(f"{R}/git/trees/main").json["tree"][0]
    with settings_env({"NIMBUS__API__DEFAULT_MAX_BLOB_SIZE": "4"}):
        body = api.get(f"{R}/git/blobs/{readme['sha']}").json
    assert body["content"] == "" and body["size"] == 14


# Refs -----------------------------------------------------------------------------------

def test_all_refs(api, scene):
    r = api.get(f"{R}/git/refs")
    assert r.status == 200
    refs = {x["ref"]: x for x in r.json}
    assert list(refs) == sorted(refs) == ["refs/heads/main", "refs/heads/old",
                                          "refs/notes/commits", "refs/tags/light",
                                          "refs/tags/signed", "refs/tags/v1"]
    for x in r.json:
        assert set(x) == set(schemas.RECORDS["Reference"])
        assert_matches_forgejo(x, "Reference")
        assert_matches_forgejo(x["object"], "GitObject")
    main = refs["refs/heads/main"]
    assert main == {"ref": "refs/heads/main", "url": f"{API}/git/refs/heads/main",
                    "object": {"type": "commit", "sha": scene["c2"].id.decode(),
                               "url": f"{API}/git/commits/{scene['c2'].id.decode()}"}}
    v1 = scene["v1"].id.decode()
    assert refs["refs/tags/v1"]["object"] == {"type": "tag", "sha": v1,
                                              "url": f"{API}/git/tags/{v1}"}
    assert refs["refs/tags/light"]["object"]["type"] == "commit"
    assert refs["refs/notes/commits"]["object"]["sha"] == scene["n2"].id.decode()


def test_ref_prefix_filter(api, scene):
    def names(path):
        r = api.get(f"{R}/git/refs/{path}")
        return r.status, [x["ref"] for x in r.json] if r.status == 200 else None

    assert names("heads") == (200, ["refs/heads/main", "refs/heads/old"])
    assert names("tags/v") == (200, ["refs/tags/v1"])
    assert names("heads/main") == (200, ["refs/heads/main"])   # a list, even for one
    assert names("heads/ma") == (200, ["refs/heads/main"])     # a plain string prefix
    assert names("heads/nope")[0] == 404
    assert names("refs/heads/main")[0] == 404                  # "refs/" is implied


def test_pull_request_refs_are_listed(api, scene):
    """Forgejo lists refs/pull/* like any ref (only remotes and stash are left out)."""
    from chalicelib.contents import files as repo_files
    from chalicelib.repos import store as repo_store
    from chalicelib.store import unit_of_work

    c1 = scene["c1"].id.decode()
    assert api.post("/user/repos", token=scene["alice"], json={"name": "pulls"}).status == 201
    assert "ok" in push(api, scene["alice"], "pulls", [(ZERO, c1, "refs/heads/main")], [])
    with unit_of_work.start():
        git = repo_files.open_git(repo_store.get("alice", "pulls"))
        git.refs.commit_updates([("refs/pull/1/head", ZERO, c1)])
    r = api.get("/repos/alice/pulls/git/refs/pull")
    assert [x["ref"] for x in r.json] == ["refs/pull/1/head"]
    assert r.json[0]["object"]["type"] == "commit"


# Annotated tags -------------------------------------------------------------------------

def test_annotated_tag(api, scene):
    v1, c1 = scene["v1"].id.decode(), scene["c1"].id.decode()
    r = api.get(f"{R}/git/tags/{v1}")
    assert r.status == 200, r
    body = r.json
    assert set(body) == set(schemas.RECORDS["AnnotatedTag"])
    assert_matches_forgejo(body, "AnnotatedTag", ("archive_download_count",))
    assert body["tag"] == "v1" and body["sha"] == v1 and body["message"] == "release one\n"
    assert body["url"] == f"{API}/git/tags/{v1}"
    assert body["tagger"] == {"name": "Alice", "email": "alice@example.com",
                              "date": "2023-11-14T23:14:10+01:00"}
    assert body["object"] == {"type": "commit", "sha": c1, "url": f"{API}/git/commits/{c1}"}
    assert_matches_forgejo(body["object"], "AnnotatedTagObject")
    # Not signed itself: the commit's verification.
    assert body["verification"]["verified"] is False
    assert body["verification"]["reason"] == "gpg.error.not_signed_commit"


def test_signed_tag_is_verified_by_its_own_signature(api, scene):
    body = api.get(f"{R}/git/tags/{scene['signed'].id.decode()}").json
    assert body["message"] == "signed one\n"
    assert body["verification"]["verified"] is False
    assert body["verification"]["reason"] != "gpg.error.not_signed_commit"
    assert "BEGIN PGP SIGNATURE" in body["verification"]["signature"]


def test_annotated_tag_errors(api, scene):
    assert api.get(f"{R}/git/tags/{scene['c1'].id.decode()}").status == 400   # lightweight
    assert api.get(f"{R}/git/tags/{'0' * 40}").status == 404
    assert api.get(f"{R}/git/tags/v1").status == 400                          # not an id


# Notes ----------------------------------------------------------------------------------

def test_note_in_a_fanned_out_tree(api, scene):
    c1, n1 = scene["c1"].id.decode(), scene["n1"].id.decode()
    r = api.get(f"{R}/git/notes/{c1}")
    assert r.status == 200, r
    assert set(r.json) == set(schemas.RECORDS["Note"])
    assert_matches_forgejo(r.json, "Note")
    assert r.json["message"] == "note on one\n"
    # The commit is the notes commit that last changed this note, as Forgejo answers.
    commit = r.json["commit"]
    assert_matches_forgejo(commit, "Commit", ("author", "committer"))
    assert commit["sha"] == n1 and commit["url"] == f"{API}/git/commits/{n1}"
    assert commit["files"] == [{"filename": f"{c1[:2]}/{c1[2:]}", "status": "added"}]
    assert api.get(f"{R}/git/notes/{c1}?files=false").json["commit"]["files"] is None


def test_note_by_ref_and_short_id(api, scene):
    n2 = scene["n2"].id.decode()
    by_branch = api.get(f"{R}/git/notes/main").json
    assert by_branch["message"] == "note on two\n" and by_branch["commit"]["sha"] == n2
    assert api.get(f"{R}/git/notes/old").json["message"] == "note on one\n"
    short = scene["c2"].id.decode()[:8]
    assert api.get(f"{R}/git/notes/{short}").json["message"] == "note on two\n"


def test_note_errors(api, scene):
    tree = scene["c1"].tree.decode()
    assert api.get(f"{R}/git/notes/{tree}").status == 404        # no note for it
    assert api.get(f"{R}/git/notes/no-such-ref").status == 404
    bad = api.get(f"{R}/git/notes/a..b")
    assert bad.status == 422 and "no valid ref or sha" in bad.json["message"]
    assert api.get("/repos/alice/secret/git/notes/main", token=scene["alice"]).status == 404


# Access ---------------------------------------------------------------------------------

def test_private_repository_is_hidden_from_strangers(api, scene):
    c1 = scene["c1"]
    readme = api.get(f"{R}/git/trees/{c1.id.decode()}").json["tree"][0]["sha"]
    seen = ["git/trees/main", f"git/blobs/{readme}", "git/refs", "git/refs/heads"]
    for path in [*seen, f"git/tags/{scene['v1'].id.decode()}", f"git/notes/{c1.id.decode()}"]:
        for token in (scene["carol"], None):
            r = api.get(f"/repos/alice/secret/{path}", token=token)
            assert r.status == 404, (path, r)
    for path in seen:
        assert api.get(f"/repos/alice/secret/{path}", token=scene["alice"]).status == 200, path
    refs = api.get("/repos/alice/secret/git/refs", token=scene["alice"]).json
    assert [x["ref"] for x in refs] == ["refs/heads/main"]


def test_empty_repository(api, scene):
    assert api.post("/user/repos", token=scene["alice"], json={"name": "empty"}).status == 201
    for path in ("git/refs", "git/trees/main", f"git/blobs/{'1' * 40}",
                 f"git/tags/{'1' * 40}", "git/notes/main"):
        assert api.get(f"/repos/alice/empty/{path}").status == 404, path


# Against the real git CLI ---------------------------------------------------------------
# git makes the history (an edited big file, an executable, a symlink, nested
# directories, an annotated and a lightweight tag, notes) and its own pack
# (``pack-objects --delta-base-offset``: offset deltas, as pushes carry them); the pack
# goes through the receive-pack route, and the API must answer what git itself says.

def test_answers_agree_with_git(api, scene, git_env, tmp_path):  # noqa: F811
    work = tmp_path / "work"
    git(git_env, "init", "-q", str(work))
    lines = [f"line {i} of the big file\n" for i in range(3000)]
    (work / "big.txt").write_text("".join(lines))
    (work / "deep" / "er").mkdir(parents=True)
    (work / "deep" / "er" / "leaf.txt").write_text("leaf\n")
    (work / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (work / "run.sh").chmod(0o755)
    (work / "to-leaf").symlink_to("deep/er/leaf.txt")
    git(git_env, "add", "-A", cwd=work)
    git(git_env, "commit", "-q", "-m", "first", cwd=work)
    lines[1500] = "line 1500, edited\n"
    (work / "big.txt").write_text("".join(lines))
    git(git_env, "commit", "-q", "-am", "second", cwd=work)
    git(git_env, "tag", "-a", "v1", "-m", "release one", "HEAD~1", cwd=work)
    git(git_env, "tag", "light", cwd=work)
    git(git_env, "notes", "add", "-m", "first note", "HEAD~1", cwd=work)
    git(git_env, "notes", "add", "-m", "second note", "HEAD", cwd=work)

    def out(*args) -> str:
        return git(git_env, *args, cwd=work).stdout

    refs = [line.split() for line in out("for-each-ref", "--format=%(objectname) "
                                         "%(objecttype) %(refname)").splitlines()]
    pack = subprocess.run(["git", "pack-objects", "--stdout", "--revs", "--delta-base-offset"],
                          cwd=work, env=git_env, input="\n".join(r[0] for r in refs).encode(),
                          capture_output=True, check=True).stdout
    assert api.post("/user/repos", token=scene["alice"], json={"name": "cli"}).status == 201
    body = b"".join(pkt_line(f"{ZERO} {sha} {name}".encode() +
                             (b"\x00report-status" if i == 0 else b"") + b"\n")
                    for i, (sha, _, name) in enumerate(refs)) + b"0000" + pack
    r = api.post("/alice/cli.git/git-receive-pack", body=body, token=scene["alice"], raw=True,
                 headers={"Content-Type": "application/x-git-receive-pack-request"})
    assert r.status == 200 and r.body.count(b"ok refs/") == len(refs), r
    C = "/repos/alice/cli"

    # Refs: for-each-ref's names, ids and types, in its order.
    listed = api.get(f"{C}/git/refs").json
    assert [[x["object"]["sha"], x["object"]["type"], x["ref"]] for x in listed] == refs

    # A recursive tree: ls-tree -r -t -l, entry by entry (sizes from pack headers,
    # offset deltas included).
    tree = api.get(f"{C}/git/trees/main?recursive=true").json["tree"]
    expected = []
    for line in out("ls-tree", "-r", "-t", "-l", "HEAD").splitlines():
        meta, path = line.split("\t", 1)
        mode, kind, sha, size = meta.split()
        expected.append([path, mode, kind, sha, 0 if size == "-" else int(size)])
    assert [[e["path"], e["mode"], e["type"], e["sha"], e["size"]] for e in tree] == expected
    big = next(e for e in tree if e["path"] == "big.txt")
    blob = api.get(f"{C}/git/blobs/{big['sha']}").json
    assert base64.b64decode(blob["content"]) == (work / "big.txt").read_bytes()
    assert blob["size"] == int(out("cat-file", "-s", big["sha"]))
    old_big = out("rev-parse", "HEAD~1:big.txt").strip()
    assert api.get(f"{C}/git/blobs/{old_big}").json["size"] == int(out("cat-file", "-s",
                                                                           old_big))
    with store_of("cli") as store:
        kinds = pack_kinds(store, [big["sha"].encode(), old_big.encode()])
    assert object_sizes.OFS_DELTA in kinds, kinds

    # The annotated tag, as cat-file shows it.
    v1 = out("rev-parse", "v1").strip()
    tag = api.get(f"{C}/git/tags/{v1}").json
    assert tag["tag"] == "v1" and tag["message"] == "release one\n"
    assert tag["object"]["sha"] == out("rev-parse", "HEAD~1").strip()
    assert tag["tagger"]["name"] == "Alice" and tag["tagger"]["email"] == "alice@example.com"

    # Notes: git notes show, and the notes commit that last touched each note.
    for rev in ("HEAD", "HEAD~1"):
        commit = out("rev-parse", rev).strip()
        note = api.get(f"{C}/git/notes/{commit}").json
        assert note["message"] == out("notes", "show", commit)
        last = out("log", "-1", "--format=%H", "refs/notes/commits", "--", commit).strip()
        assert note["commit"]["sha"] == last
