"""GetBlobs (on the in-memory twin): several blobs in the order asked, each as GetBlob
answers it; repeats answered once; an unknown, malformed or non-blob sha, none at all,
or too many answer 400; large contents are left out with their size; a private
repository is 404 to strangers."""
from __future__ import annotations

import base64

import pytest

from chalicelib.contents import blobs
from tests.environment import settings_env


@pytest.fixture
def proj(fast_api):
    api = fast_api
    tokens = {name: (api.create_user(name), api.create_token(name))[1] for name in ("alice", "eve")}
    assert api.post("/user/repos", token=tokens["alice"],
                    json={"name": "proj", "private": True}).status == 201
    shas = {}
    for name, text in (("a.txt", b"alpha\n"), ("b.txt", b"beta\n" * 100)):
        r = api.post(f"/repos/alice/proj/contents/{name}", token=tokens["alice"], json={
            "content": base64.b64encode(text).decode(), "message": name})
        assert r.status == 201
        shas[name] = r.json["content"]["sha"]
    return api, tokens, shas


def test_blobs_in_the_order_asked(proj):
    api, t, shas = proj
    a, b = shas["a.txt"], shas["b.txt"]
    r = api.get(f"/repos/alice/proj/git/blobs?shas={b},{a}, {b.upper()},", token=t["alice"])
    assert r.status == 200, r
    assert [blob["sha"] for blob in r.json] == [b, a]
    first = r.json[1]
    assert first == {"content": base64.b64encode(b"alpha\n").decode(), "encoding": "base64",
                     "url": first["url"], "sha": a, "size": 6}
    assert first["url"].endswith(f"/repos/alice/proj/git/blobs/{a}")
    single = api.get(f"/repos/alice/proj/git/blobs/{a}", token=t["alice"]).json
    assert single == first


@pytest.mark.parametrize("query", ["", "?shas=", "?shas=abc", f"?shas={'0' * 40}",
                                   "?shas=" + ",".join(f"{n:040x}" for n in range(51))])
def test_bad_lists_answer_400(proj, query):
    api, t, _ = proj
    r = api.get(f"/repos/alice/proj/git/blobs{query}", token=t["alice"])
    assert r.status == 400 and r.json["message"]


def test_a_tree_is_not_a_blob(proj):
    api, t, shas = proj
    tree = api.get("/repos/alice/proj/branches/main", token=t["alice"]).json["commit"]["id"]
    r = api.get(f"/repos/alice/proj/git/blobs?shas={shas['a.txt']},{tree}", token=t["alice"])
    assert r.status == 400 and "not a blob" in r.json["message"]


def test_large_contents_are_left_out(proj, monkeypatch):
    api, t, shas = proj
    monkeypatch.setattr(blobs, "TOTAL_BYTES", 10)
    r = api.get(f"/repos/alice/proj/git/blobs?shas={shas['a.txt']},{shas['b.txt']}",
                token=t["alice"])
    assert [(x["content"] != "", x["size"]) for x in r.json] == [(True, 6), (False, 500)]
    with settings_env({"NIMBUS__API__DEFAULT_MAX_BLOB_SIZE": "5"}):
        r = api.get(f"/repos/alice/proj/git/blobs?shas={shas['a.txt']}", token=t["alice"])
        assert r.json[0]["content"] == "" and r.json[0]["size"] == 6


def test_strangers_see_404(proj):
    api, t, shas = proj
    assert api.get(f"/repos/alice/proj/git/blobs?shas={shas['a.txt']}",
                   token=t["eve"]).status == 404
    assert api.get(f"/repos/alice/proj/git/blobs?shas={shas['a.txt']}").status == 404
