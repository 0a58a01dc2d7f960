"""A repository's commits through the API (in-process, under moto): the list of a ref
with its filters and paging, one commit, and one commit's diff or patch.  Histories are
pushed through the smart HTTP route with packs built here."""
from __future__ import annotations

import pytest

from chalicelib.http import schemas
from chalicelib.contents import commits as commit_views
from tests.repos.test_events_repos import ZERO, push
from tests.accounts.test_users import assert_matches_forgejo

R = "/repos/alice/proj"
T0 = 1_700_000_000          # 2023-11-14T22:13:20Z


def commit_at(parent, files: dict[str, bytes], message: str, when: int):
    """A commit of a flat tree at a given time; (commit, its objects)."""
    from dulwich.objects import Blob, Commit, Tree

    tree, objects = Tree(), []
    for path, content in files.items():
        blob = Blob.from_string(content)
        tree.add(path.encode(), 0o100644, blob.id)
        objects.append(blob)
    c = Commit()
    c.tree = tree.id
    c.parents = [parent.id] if parent is not None else []
    c.author = c.committer = b"Alice <alice@example.com>"
    c.author_time = c.commit_time = when
    c.author_timezone = c.commit_timezone = 0
    c.encoding = b"UTF-8"
    c.message = message.encode() + b"\n"
    return c, [*objects, tree, c]


@pytest.fixture
def scene(api):
    """alice's public ``proj``: ``main`` has five commits (c0 … c4, 100 s apart; c2 and c4
    touch ``b.txt``, the others ``a.txt``), ``side`` is c1; carol is a stranger."""
    tokens = {n: (api.create_user(n), api.create_token(n))[1] for n in ("alice", "carol")}
    assert api.post("/user/repos", token=tokens["alice"], json={"name": "proj"}).status == 201
    files, chain, objects, parent = {}, [], [], None
    for i in range(5):
        name = "b.txt" if i in (2, 4) else "a.txt"
        files[name] = f"line {i}\n".encode()
        parent, objs = commit_at(parent, dict(files), f"commit {i}", T0 + 100 * i)
        chain.append(parent.id.decode())
        objects += objs
    report = push(api, tokens["alice"], "proj", [(ZERO, chain[4], "refs/heads/main"),
                                                 (ZERO, chain[1], "refs/heads/side")], objects)
    assert "ok refs/heads/main" in report, report
    return dict(tokens, chain=chain)


def shas(resp) -> list[str]:
    return [c["sha"] for c in resp.json]


def test_list_newest_first_with_records_and_total(api, scene):
    chain = scene["chain"]
    r = api.get(f"{R}/commits")
    assert r.status == 200 and shas(r) == chain[::-1]
    assert r.headers["x-total-count"] == "5"
    first = r.json[0]
    assert set(first) == set(schemas.RECORDS["Commit"])
    assert_matches_forgejo(first, "Commit", ("author", "committer", "files", "stats"))
    assert first["commit"]["message"] == "commit 4\n"
    assert first["commit"]["author"] == {"name": "Alice", "email": "alice@example.com",
                                         "date": "2023-11-14T22:20:00Z"}
    assert first["parents"][0]["sha"] == chain[3]
    # CommitMeta.created is a date-time: Go's zero time, as Forgejo sends for parents.
    assert first["parents"][0]["created"] == "0001-01-01T00:00:00Z"
    # The commits' e-mail is alice's: author and committer are her User record.
    assert first["author"]["login"] == first["committer"]["login"] == "alice"
    assert set(first["author"]) == set(schemas.RECORDS["User"])
    assert first["url"] == f"http://nimbus.test/api/v1{R}/git/commits/{chain[4]}"
    assert first["html_url"] == f"http://nimbus.test/alice/proj/commit/{chain[4]}"
    assert first["stats"] == {"total": 2, "additions": 1, "deletions": 1}
    assert first["files"] == [{"filename": "b.txt", "status": "modified"}]
    assert r.json[-1]["files"] == [{"filename": "a.txt", "status": "added"}]
    assert r.json[-1]["parents"] == []
    assert first["commit"]["verification"]["verified"] is False
    # Turning stat and files off leaves them null.
    off = api.get(f"{R}/commits?stat=false&files=false&verification=false").json[0]
    assert off["stats"] is None and off["files"] is None


def test_paging_and_link(api, scene):
    chain = scene["chain"]
    r = api.get(f"{R}/commits?limit=2&page=2")
    assert shas(r) == [chain[2], chain[1]] and r.headers["x-total-count"] == "5"
    assert 'rel="next"' in r.headers["link"] and 'rel="prev"' in r.headers["link"]
    assert shas(api.get(f"{R}/commits?limit=2&page=3")) == [chain[0]]
    assert api.get(f"{R}/commits?limit=2&page=9").json == []


def test_filters(api, scene):
    chain = scene["chain"]
    assert shas(api.get(f"{R}/commits?sha=side")) == [chain[1], chain[0]]
    assert shas(api.get(f"{R}/commits?sha={chain[2][:10]}")) == [chain[2], chain[1], chain[0]]
    r = api.get(f"{R}/commits?path=b.txt")
    assert shas(r) == [chain[4], chain[2]] and r.headers["x-total-count"] == "2"
    assert api.get(f"{R}/commits?path=nothing-here").json == []
    assert shas(api.get(f"{R}/commits?since=2023-11-14T22:16:40Z")) == chain[:1:-1]
    assert shas(api.get(f"{R}/commits?until=2023-11-14T22:15:00Z")) == [chain[1], chain[0]]
    assert api.get(f"{R}/commits?since=yesterday").status == 422
    assert api.get(f"{R}/commits?sha=nope").status == 404


def test_total_is_counted_with_a_bound(api, scene, monkeypatch):
    """Past the page, the count walks at most COUNT_AHEAD more commits."""
    monkeypatch.setattr(commit_views, "COUNT_AHEAD", 1)
    r = api.get(f"{R}/commits?limit=2")
    assert len(r.json) == 2 and r.headers["x-total-count"] == "3"
    assert 'rel="next"' in r.headers["link"]
    r = api.get(f"{R}/commits?limit=2&page=2")
    assert shas(r) == scene["chain"][2:0:-1] and r.headers["x-total-count"] == "5"


def test_single_commit(api, scene):
    chain = scene["chain"]
    got = api.get(f"{R}/git/commits/{chain[2]}")
    assert got.status == 200
    assert_matches_forgejo(got.json, "Commit", ("author", "committer"))
    assert got.json["sha"] == chain[2] and got.json["files"] == [
        {"filename": "b.txt", "status": "added"}]
    assert got.json["stats"] == {"total": 1, "additions": 1, "deletions": 0}
    assert api.get(f"{R}/git/commits/{chain[2][:8]}").json["sha"] == chain[2]
    assert api.get(f"{R}/git/commits/main").json["sha"] == chain[4]
    assert api.get(f"{R}/git/commits/{'0' * 40}").status == 404
    assert api.get("/repos/alice/nope/git/commits/main").status == 404


def test_diff_and_patch(api, scene):
    chain = scene["chain"]
    diff = api.get(f"{R}/git/commits/{chain[4]}.diff")
    assert diff.status == 200 and diff.headers["content-type"].startswith("text/plain")
    assert b"diff --git a/b.txt b/b.txt" in diff.body
    assert b"-line 2\n+line 4\n" in diff.body
    patch = api.get(f"{R}/git/commits/{chain[4]}.patch").body
    assert patch.startswith(b"From " + chain[4].encode())
    # One commit: "[PATCH]", as git format-patch numbers a lone patch; the author's date.
    assert b"\nSubject: [PATCH] commit 4\n" in patch, patch
    assert b"\nDate: Tue, 14 Nov 2023 22:20:00 +0000\n" in patch
    assert b"+line 4" in patch
    assert api.get(f"{R}/git/commits/{chain[4]}.zip").status == 404
    assert api.get(f"{R}/git/commits/{'0' * 40}.diff").status == 404


def test_empty_and_private_repositories(api, scene):
    alice, carol = scene["alice"], scene["carol"]
    assert api.post("/user/repos", token=alice, json={"name": "empty"}).status == 201
    assert api.get("/repos/alice/empty/commits").status == 409
    assert api.post("/user/repos", token=alice,
                    json={"name": "secret", "private": True}).status == 201
    assert api.get("/repos/alice/secret/commits", token=carol).status == 404
    assert api.get(f"{R}/commits", token=carol).status == 200


def test_compare(api, scene):
    chain = scene["chain"]
    r = api.get(f"{R}/compare/side...main")
    assert r.status == 200 and set(r.json) == set(schemas.RECORDS["Compare"])
    assert_matches_forgejo(r.json, "Compare")
    assert r.json["total_commits"] == 3
    assert [c["sha"] for c in r.json["commits"]] == [chain[4], chain[3], chain[2]]
    assert r.json["files"] == [{"filename": "b.txt", "status": "modified"},
                               {"filename": "a.txt", "status": "modified"},
                               {"filename": "b.txt", "status": "added"}]
    assert_matches_forgejo(r.json["commits"][0], "Commit", ("author", "committer"))
    same = api.get(f"{R}/compare/{chain[1][:10]}..{chain[2]}").json
    assert same["total_commits"] == 1 and same["commits"][0]["sha"] == chain[2]
    assert api.get(f"{R}/compare/main...side").json == {"total_commits": 0, "commits": [],
                                                        "files": []}
    for bad in ("main", "main...nope", "nope...main", "bob:main...side", "...main",
                "main...bob:main", "main...carol:main"):
        assert api.get(f"{R}/compare/{bad}").status == 404, bad


def test_compare_with_a_fork(api, scene):
    """The head may be a branch of a fork (``owner:branch`` or ``owner/repo:branch``)."""
    chain, carol = scene["chain"], scene["carol"]
    assert api.post(f"{R}/forks", token=carol, json={}).status == 202
    tip, objs = commit_at(_Parent(chain[4]), {"a.txt": b"fork\n", "b.txt": b"line 4\n"},
                          "in the fork", T0 + 2000)
    report = push(api, carol, "proj", [(ZERO, tip.id.decode(), "refs/heads/fix")], objs,
                  owner="carol")
    assert "ok refs/heads/fix" in report, report
    for head in ("carol:fix", "carol/proj:fix"):
        r = api.get(f"{R}/compare/main...{head}")
        assert r.status == 200, (head, r)
        assert [c["sha"] for c in r.json["commits"]] == [tip.id.decode()]
        assert r.json["files"] == [{"filename": "a.txt", "status": "modified"}]
    assert api.get(f"{R}/compare/main...carol:nope").status == 404
    # Not in the network: a repository of its own.
    assert api.post("/user/repos", token=carol, json={"name": "other"}).status == 201
    assert api.get(f"{R}/compare/main...carol/other:main").status == 404


def test_not_leaves_out_what_a_ref_reaches(api, scene):
    chain = scene["chain"]
    r = api.get(f"{R}/commits?not=side&stat=false&files=false")
    assert shas(r) == [chain[4], chain[3], chain[2]] and r.headers["x-total-count"] == "3"
    assert shas(api.get(f"{R}/commits?sha=side&not={chain[0]}")) == [chain[1]]
    assert api.get(f"{R}/commits?not=nope").status == 404


def test_pull_request_of_a_commit(api, scene):
    chain, alice = scene["chain"], scene["alice"]
    tip, objs = commit_at(_Parent(chain[4]), {"a.txt": b"line 3\n", "b.txt": b"line 4\n",
                                              "c.txt": b"new\n"}, "feature", T0 + 1000)
    report = push(api, alice, "proj", [(ZERO, tip.id.decode(), "refs/heads/feature")], objs)
    assert "ok refs/heads/feature" in report, report
    pull = api.post(f"{R}/pulls", token=alice, json={"head": "feature", "base": "main",
                                                     "title": "Add c"})
    assert pull.status == 201
    got = api.get(f"{R}/commits/{tip.id.decode()}/pull")
    assert got.status == 200 and got.json["number"] == pull.json["number"]
    assert got.json["head"]["sha"] == tip.id.decode()
    assert api.get(f"{R}/commits/{chain[3]}/pull").status == 404
    assert api.get(f"{R}/commits/{'f' * 40}/pull").status == 404


class _Parent:
    """Stands in for a parent commit object: commit_at only reads its id."""

    def __init__(self, sha: str):
        self.id = sha.encode()


def test_commit_users_are_linked_by_email(api, scene):
    """Forgejo links author and committer to the users owning their e-mail (a no-reply
    address names its user); nobody's address leaves them null.  The whole page costs
    the same reads however many commits it holds."""
    from chalicelib.settings import get_settings

    tip, objs = commit_at(_Parent(scene["chain"][4]), {"c.txt": b"c\n"}, "by carol", T0 + 900)
    tip.author = f"Carol <carol@{get_settings().no_reply_address}>".encode()
    tip.committer = b"Nobody <nobody@example.com>"
    report = push(api, scene["alice"], "proj", [(ZERO, tip.id.decode(), "refs/heads/other")],
                  objs)
    assert "ok refs/heads/other" in report, report
    got = api.get(f"{R}/git/commits/{tip.id.decode()}").json
    assert got["author"]["login"] == "carol" and got["committer"] is None
    listed = api.get(f"{R}/commits?sha=other&limit=2").json
    assert [c["author"]["login"] for c in listed] == ["carol", "alice"]
    assert [c["committer"] and c["committer"]["login"] for c in listed] == [None, "alice"]
    # An organization's address links nobody (Forgejo's e-mail table holds users').
    assert api.post("/orgs", token=scene["alice"], json={
        "username": "corp", "email": "corp@example.com"}).status == 201
    tip2, objs2 = commit_at(_Parent(tip.id.decode()), {"d.txt": b"d\n"}, "by corp", T0 + 950)
    tip2.author = tip2.committer = b"Corp <corp@example.com>"
    push(api, scene["alice"], "proj", [(tip.id.decode(), tip2.id.decode(), "refs/heads/other")],
         objs2)
    assert api.get(f"{R}/git/commits/other").json["author"] is None
