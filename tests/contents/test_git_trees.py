"""The git trees API in-process under moto, on the scene of tests/git_data_support.py:
listing by any name of a commit, tree or tag, recursion in git's order, paging, the
subtree counts kept between pages, and entry sizes read from pack headers (deltas
included)."""
from __future__ import annotations

import base64

from chalicelib.http import schemas
from chalicelib.gitstore import object_sizes
from chalicelib.contents import git_trees
from tests.environment import settings_env
from tests.git_data_support import (API, R, SUBMODULE, T0, commit_of, pack_kinds,
                                    push_deltified, store_of, tree_of)
from tests.git_data_support import module_api, module_scene  # noqa: F401 - api, scene
from tests.repos.test_events_repos import ZERO
from tests.accounts.test_users import assert_matches_forgejo


# Trees ----------------------------------------------------------------------------------

def test_tree_of_a_branch_lists_the_top_level(api, scene):
    c2 = scene["c2"]
    r = api.get(f"{R}/git/trees/main")
    assert r.status == 200, r
    body = r.json
    assert set(body) == set(schemas.RECORDS["GitTreeResponse"])
    assert_matches_forgejo(body, "GitTreeResponse")
    # A ref resolves to its commit, and the response names the commit, as Forgejo's.
    assert body["sha"] == c2.id.decode()
    assert body["url"] == f"{API}/git/trees/{c2.id.decode()}"
    assert body["page"] == 1 and body["truncated"] is False
    assert body["total_count"] == 5 and r.headers["x-total-count"] == "5"
    by_path = {e["path"]: e for e in body["tree"]}
    assert list(by_path) == ["README.md", "link", "many", "mod", "src"]
    for entry in body["tree"]:
        assert_matches_forgejo(entry, "GitEntry")
    readme = by_path["README.md"]
    assert readme["mode"] == "100644" and readme["type"] == "blob"
    assert readme["size"] == len(b"# proj, again\n")
    assert readme["url"] == f"{API}/git/blobs/{readme['sha']}"
    assert by_path["many"]["mode"] == "040000" and by_path["many"]["type"] == "tree"
    assert by_path["many"]["size"] == 0
    assert by_path["many"]["url"] == f"{API}/git/trees/{by_path['many']['sha']}"
    assert by_path["link"]["mode"] == "120000" and by_path["link"]["size"] == len(b"README.md")
    assert by_path["mod"] == {"path": "mod", "mode": "160000", "type": "commit", "size": 0,
                              "sha": SUBMODULE, "url": ""}


def test_tree_by_commit_tree_tag_and_short_ids(api, scene):
    c1, v1 = scene["c1"], scene["v1"]
    tree = c1.tree.decode()
    by_commit = api.get(f"{R}/git/trees/{c1.id.decode()}").json
    assert by_commit["sha"] == c1.id.decode()
    by_tree = api.get(f"{R}/git/trees/{tree}").json
    assert by_tree["sha"] == tree and by_tree["tree"] == by_commit["tree"]
    assert api.get(f"{R}/git/trees/{c1.id.decode()[:10]}").json["tree"] == by_commit["tree"]
    # An annotated tag's name names the tag object (git's resolution), listing its commit.
    by_tag = api.get(f"{R}/git/trees/v1").json
    assert by_tag["sha"] == v1.id.decode() and by_tag["tree"] == by_commit["tree"]
    assert api.get(f"{R}/git/trees/refs/heads/old").status == 404   # one path segment
    assert api.get(f"{R}/git/trees/old").json["sha"] == c1.id.decode()


def test_recursive_tree_in_git_order(api, scene):
    body = api.get(f"{R}/git/trees/main?recursive=true").json
    paths = [e["path"] for e in body["tree"]]
    many = [f"many/{name}" for name in scene["many"]]
    assert paths == ["README.md", "link", "many", *many, "mod", "src", "src/lib",
                     "src/lib/util.py", "src/main.py"]
    assert body["total_count"] == len(paths) == 33 and body["truncated"] is False
    util = next(e for e in body["tree"] if e["path"] == "src/lib/util.py")
    assert util["size"] == len(b"x = 1\n") and util["type"] == "blob"


def test_recursive_paging_and_truncated(api, scene):
    whole = api.get(f"{R}/git/trees/main?recursive=1").json["tree"]
    pages = []
    for page in range(1, 5):
        r = api.get(f"{R}/git/trees/main?recursive=true&per_page=10&page={page}")
        assert r.status == 200 and r.json["page"] == page and r.json["total_count"] == 33
        pages.append(r.json)
    assert [p["truncated"] for p in pages] == [True, True, True, False]
    assert [len(p["tree"]) for p in pages] == [10, 10, 10, 3]
    assert [e for p in pages for e in p["tree"]] == whole
    past = api.get(f"{R}/git/trees/main?recursive=true&per_page=10&page=9").json
    assert past["tree"] is None and past["truncated"] is False and past["total_count"] == 33
    # Junk and non-positive values fall back to the defaults (page 1, the largest page).
    junk = api.get(f"{R}/git/trees/main?recursive=true&per_page=x&page=-3").json
    assert junk["page"] == 1 and junk["tree"] == whole
    flat = api.get(f"{R}/git/trees/main?per_page=2&page=3").json
    assert [e["path"] for e in flat["tree"]] == ["src"] and flat["truncated"] is False


def test_later_pages_skip_subtrees_counted_before(api, scene, monkeypatch):
    """Once counted, a subtree wholly before or after the page is not read again."""
    api.get(f"{R}/git/trees/main?recursive=true&per_page=5")
    many = next(e for e in api.get(f"{R}/git/trees/main").json["tree"] if e["path"] == "many")
    from chalicelib.contents import files as repo_files

    reads = []
    real_open = repo_files.open_git

    def counting_open(repo):
        git = real_open(repo)
        store_get = git.object_store.__class__.__getitem__

        class Counting(git.object_store.__class__):
            def __getitem__(self, sha):
                reads.append(sha)
                return store_get(self, sha)
        git.object_store.__class__ = Counting
        return git
    monkeypatch.setattr(repo_files, "open_git", counting_open)
    last = api.get(f"{R}/git/trees/main?recursive=true&per_page=5&page=7").json
    assert [e["path"] for e in last["tree"]] == ["src/lib", "src/lib/util.py", "src/main.py"]
    assert many["sha"].encode() not in reads
    # Without the counts, the same page reads it (to count its entries).
    with git_trees.COUNTS_LOCK:
        git_trees.COUNTS.clear()
    again = api.get(f"{R}/git/trees/main?recursive=true&per_page=5&page=7").json
    assert again == last and many["sha"].encode() in reads


def test_default_page_size_is_capped(api, scene):
    with settings_env({"NIMBUS__API__DEFAULT_GIT_TREES_PER_PAGE": "7"}):
        body = api.get(f"{R}/git/trees/main?recursive=true&per_page=500").json
    assert len(body["tree"]) == 7 and body["truncated"] is True


def test_tree_errors(api, scene):
    readme = api.get(f"{R}/git/trees/main").json["tree"][0]["sha"]
    assert api.get(f"{R}/git/trees/{readme}").status == 400      # a blob is not a tree
    assert api.get(f"{R}/git/trees/{'0' * 40}").status == 404
    assert api.get(f"{R}/git/trees/nope").status == 404
    missing = api.get(f"{R}/git/trees/no-such-branch")
    assert missing.status == 404 and "sha not found" in missing.json["errors"][0]


# Sizes from pack headers ------------------------------------------------------------------

def test_sizes_of_deltified_blobs(api, scene):
    """Blobs stored as deltas report the size of the blob, not of the delta."""
    from dulwich.objects import Blob

    base = b"".join(f"line {i} of a long file\n".encode() for i in range(2000))
    edited = base.replace(b"line 1000 ", b"LINE 1000, edited ")
    objects: list = []
    c = commit_of(tree_of({"a.txt": base, "b.txt": edited}, objects), [], "big", T0, objects)
    assert api.post("/user/repos", token=scene["alice"], json={"name": "deltas"}).status == 201
    report = push_deltified(api, scene["alice"], "deltas", ZERO, c.id.decode(), objects)
    assert "ok refs/heads/main" in report, report
    entries = api.get("/repos/alice/deltas/git/trees/main").json["tree"]
    assert {e["path"]: e["size"] for e in entries} == {"a.txt": len(base),
                                                       "b.txt": len(edited)}
    # One of the two really is a delta in the stored pack.
    blobs = (Blob.from_string(base), Blob.from_string(edited))
    with store_of("deltas") as store:
        kinds = pack_kinds(store, [blob.id for blob in blobs])
        for blob in blobs:
            with object_sizes.ObjectSizes(store) as sizes:
                assert sizes.info(blob.id) == (object_sizes.BLOB, len(blob.data))
                assert sizes.size(blob.id) == len(blob.data)
    assert kinds & {object_sizes.OFS_DELTA, object_sizes.REF_DELTA}, kinds
    sha = Blob.from_string(edited).id.decode()
    body = api.get(f"/repos/alice/deltas/git/blobs/{sha}").json
    assert base64.b64decode(body["content"]) == edited and body["size"] == len(edited)


def test_sizes_when_entries_do_not_parse(api, scene, monkeypatch):
    """An entry header that cannot be read in place: objects are measured whole."""
    expected = api.get(f"{R}/git/trees/main?recursive=true").json
    from chalicelib.gitstore.objects import S3ObjectStore

    whole = []

    real_get_raw = S3ObjectStore.get_raw
    monkeypatch.setattr(object_sizes, "entry_header", lambda read, offset, oid_length: None)
    monkeypatch.setattr(S3ObjectStore, "get_raw",
                        lambda self, sha: whole.append(sha) or real_get_raw(self, sha))
    assert api.get(f"{R}/git/trees/main?recursive=true").json == expected
    blobs = {e["sha"].encode() for e in expected["tree"] if e["type"] == "blob"}
    assert blobs and blobs <= set(whole)
    v1 = scene["v1"].id.decode()
    assert api.get(f"{R}/git/refs/tags/v1").json[0]["object"]["sha"] == v1

