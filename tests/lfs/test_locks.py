"""The Git LFS File Locking API under moto, as git-lfs calls it: create, list (filters,
pages), verify (ours and theirs), unlock (own, forced by an admin), who may do what,
bad input answered 4xx, two creates of one path at once, and the contents API refusing
another user's locked path."""
from __future__ import annotations

import base64
import re
import threading

import pytest

from chalicelib.lfs import lock_store
from tests.environment import settings_env

MEDIA = "application/vnd.git-lfs+json"
LOCKS = "/alice/open.git/info/lfs/locks"


def lfs_post(api, path, body, token=None, raw_body=None):
    headers = {"Content-Type": MEDIA, "Accept": MEDIA}
    if raw_body is not None:
        return api.post(path, raw=True, body=raw_body, token=token, headers=headers)
    return api.post(path, raw=True, json=body, token=token, headers=headers)


def lock(api, token, path, locks=LOCKS):
    return lfs_post(api, locks, {"path": path, "ref": {"name": "refs/heads/main"}}, token)


def listed(api, token, query="", locks=LOCKS):
    return api.get(f"{locks}{query}", raw=True, token=token, headers={"Accept": MEDIA})


def unlock(api, token, lock_id, force=False, locks=LOCKS):
    return lfs_post(api, f"{locks}/{lock_id}/unlock", {"force": force}, token)


def count_of(owner="alice", name="open") -> int:
    from chalicelib.repos import store
    return int(store.get(owner, name).lfs_locks)


@pytest.fixture
def tokens(api):
    """alice owns alice/open; bob and carol write to it; rita reads it; eve is nobody."""
    from tests.conftest import owner_and_writer
    found = owner_and_writer(api)
    for name, permission in (("carol", "write"), ("rita", "read"), ("eve", None)):
        api.create_user(name)
        found[name] = api.create_token(name)
        if permission:
            assert api.put(f"/repos/alice/open/collaborators/{name}", token=found["alice"],
                           json={"permission": permission}).status == 204
    return found


def test_create_answers_the_lock_with_a_cleaned_path(api, tokens):
    r = lock(api, tokens["bob"], "/art/../art//model.bin")
    assert r.status == 201, r
    assert r.headers["content-type"] == MEDIA
    made = r.json["lock"]
    assert made["path"] == "art/model.bin" and made["owner"] == {"name": "bob"}
    assert isinstance(made["id"], str) and made["id"].isdigit()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", made["locked_at"])
    assert count_of() == 1


def test_a_locked_path_is_409_with_the_lock_that_holds_it(api, tokens):
    held = lock(api, tokens["bob"], "f.bin").json["lock"]
    # Paths compare without case, as Forgejo's.
    r = lock(api, tokens["alice"], "F.bin")
    assert r.status == 409, r
    assert r.json == {"message": "already created lock", "lock": held}
    assert count_of() == 1


def test_list_filters_by_id_and_path_and_pages_by_cursor(api, tokens):
    made = [lock(api, tokens["bob" if i % 2 else "carol"], f"d/{i}.bin").json["lock"]
            for i in range(5)]
    r = listed(api, tokens["rita"])       # a reader may list
    assert r.status == 200 and r.headers["content-type"] == MEDIA
    assert sorted(x["path"] for x in r.json["locks"]) == [f"d/{i}.bin" for i in range(5)]
    assert "next_cursor" not in r.json
    assert listed(api, tokens["rita"], f"?id={made[2]['id']}").json == {"locks": [made[2]]}
    assert listed(api, tokens["rita"], "?path=d/3.bin").json == {"locks": [made[3]]}
    assert listed(api, tokens["rita"], "?id=999999").json == {"locks": []}
    assert listed(api, tokens["rita"], "?path=nothing.bin").json == {"locks": []}
    seen, cursor, pages = [], "", 0
    while True:
        page = listed(api, tokens["rita"], f"?limit=2&cursor={cursor}").json
        pages += 1
        assert len(page["locks"]) <= 2
        seen += page["locks"]
        cursor = page.get("next_cursor", "")
        if not cursor:
            break
    assert pages == 3 and sorted(x["id"] for x in seen) == sorted(x["id"] for x in made)


def test_pages_hold_at_most_the_paging_setting(api, tokens):
    for i in range(3):
        lock(api, tokens["bob"], f"{i}.bin")
    with settings_env({"NIMBUS__SERVER__LFS_LOCKS_PAGING_NUM": "2"}):
        first = listed(api, tokens["bob"], "?limit=100").json
        assert len(first["locks"]) == 2 and first["next_cursor"]
        verified = lfs_post(api, f"{LOCKS}/verify", {"limit": 0}, tokens["bob"]).json
        assert len(verified["ours"]) == 2 and verified["next_cursor"] == first["next_cursor"]


def test_verify_splits_ours_and_theirs(api, tokens):
    mine = lock(api, tokens["bob"], "mine.bin").json["lock"]
    other = lock(api, tokens["carol"], "other.bin").json["lock"]
    r = lfs_post(api, f"{LOCKS}/verify", {"ref": {"name": "refs/heads/main"}}, tokens["bob"])
    assert r.status == 200, r
    assert r.json == {"ours": [mine], "theirs": [other]}
    assert lfs_post(api, f"{LOCKS}/verify", {}, tokens["alice"]).json["theirs"] \
        == sorted([mine, other], key=lambda x: int(x["id"]))


def test_unlock_own_and_others_only_forced_by_an_admin(api, tokens):
    held = lock(api, tokens["bob"], "f.bin").json["lock"]
    refused = unlock(api, tokens["carol"], held["id"])
    assert refused.status == 403 and "force" in refused.json["message"]
    # A writer who is not an admin of the repository may not force.
    assert unlock(api, tokens["carol"], held["id"], force=True).status == 403
    assert unlock(api, tokens["alice"], held["id"]).status == 403     # no force
    forced = unlock(api, tokens["alice"], held["id"], force=True)
    assert forced.status == 200 and forced.json == {"lock": held}
    assert count_of() == 0
    assert unlock(api, tokens["alice"], held["id"], force=True).status == 404
    again = lock(api, tokens["carol"], "f.bin").json["lock"]
    r = unlock(api, tokens["carol"], again["id"])
    assert r.status == 200 and r.json["lock"]["path"] == "f.bin"
    assert listed(api, tokens["bob"]).json == {"locks": []}
    assert count_of() == 0


def test_who_may_do_what(api, tokens):
    assert lock(api, tokens["rita"], "f.bin").status == 403           # a reader
    assert lfs_post(api, f"{LOCKS}/verify", {}, tokens["rita"]).status == 403
    held = lock(api, tokens["bob"], "f.bin").json["lock"]
    assert unlock(api, tokens["rita"], held["id"], force=True).status == 403
    # Anonymous: asked for credentials, even to list a public repository's locks.
    for r in (listed(api, None), lock(api, None, "g.bin"),
              lfs_post(api, f"{LOCKS}/verify", {}, None), unlock(api, None, held["id"])):
        assert r.status == 401, r
        assert "lfs-authenticate" in r.headers and "www-authenticate" in r.headers
    assert "pull access to list" in listed(api, None).json["message"]
    assert api.post("/user/repos", token=tokens["alice"],
                    json={"name": "hidden", "private": True}).status == 201
    hidden = "/alice/hidden.git/info/lfs/locks"
    assert listed(api, tokens["eve"], locks=hidden).status == 404
    assert lock(api, tokens["eve"], "f.bin", locks=hidden).status == 404
    assert listed(api, None, locks=hidden).status == 401
    assert listed(api, tokens["alice"], locks=hidden).json == {"locks": []}
    assert lock(api, tokens["bob"], "f.bin", locks="/alice/nope.git/info/lfs/locks").status == 404
    # A token without write:repository may list but not lock.
    reading = api.create_token("bob", scopes=("read:repository",), name="ro")
    assert listed(api, reading).status == 200
    assert lock(api, reading, "h.bin").status == 403


@pytest.mark.parametrize("body", [{"path": ""}, {"path": "."}, {"path": "/"}, {"path": "a\x00b"},
                                  {"path": "x" * 1001}, {}, {"path": 5}, {"path": None}])
def test_bad_lock_requests_are_4xx(api, tokens, body):
    r = lfs_post(api, LOCKS, body, tokens["bob"])
    assert 400 <= r.status < 500 and r.status not in (401, 403, 404), r
    assert count_of() == 0


def test_bad_list_and_unlock_input_is_4xx(api, tokens):
    bob = tokens["bob"]
    assert lfs_post(api, LOCKS, None, bob, raw_body=b"{not json").status in (400, 422)
    for query in ("?limit=abc", "?cursor=xyz", "?cursor=-1", "?id=abc"):
        r = listed(api, bob, query)
        assert r.status == 422, (query, r)
    assert lfs_post(api, f"{LOCKS}/verify", {"cursor": "nope"}, bob).status == 422
    assert lfs_post(api, f"{LOCKS}/verify", {"limit": "many"}, bob).status == 422
    assert unlock(api, bob, "abc").status == 404
    assert unlock(api, bob, "9" * 40).status == 404
    assert lfs_post(api, f"{LOCKS}/1/unlock", {"force": "yes"}, bob).status == 422


def test_off_when_the_lfs_server_is_off(api, tokens):
    with settings_env({"NIMBUS__SERVER__LFS_START_SERVER": "false"}):
        assert lock(api, tokens["bob"], "f.bin").status == 404
        assert listed(api, tokens["bob"]).status == 404


def test_two_creates_of_one_path_at_once_make_one_lock(api, tokens, monkeypatch):
    """Both requests read "no lock" before either writes (held at a barrier): only the
    path's conditional claim can tell them apart."""
    from chalicelib.local.aws_requests import serialized_mock_aws

    barrier, waited = threading.Barrier(2, timeout=30), threading.local()
    original = lock_store.at_path

    def read_then_wait(repo_id, path):
        found = original(repo_id, path)
        if not getattr(waited, "done", False):
            waited.done = True
            barrier.wait()
        return found

    monkeypatch.setattr(lock_store, "at_path", read_then_wait)
    answers = [None, None]

    def run(i, who):
        answers[i] = lock(api, tokens[who], "race.bin")

    with serialized_mock_aws():
        threads = [threading.Thread(target=run, args=(i, who))
                   for i, who in enumerate(("bob", "carol"))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    assert sorted(a.status for a in answers) == [201, 409], answers
    winner = next(a for a in answers if a.status == 201).json["lock"]
    loser = next(a for a in answers if a.status == 409).json
    assert loser["lock"] == winner
    monkeypatch.undo()
    assert listed(api, tokens["bob"]).json == {"locks": [winner]}
    assert count_of() == 1


def _file(api, token, path, content=b"x", sha=None):
    body = {"content": base64.b64encode(content).decode(), "message": "m"}
    if sha:
        body["sha"] = sha
        return api.put(f"/repos/alice/open/contents/{path}", token=token, json=body)
    return api.post(f"/repos/alice/open/contents/{path}", token=token, json=body)


def test_contents_api_refuses_another_users_locked_path(api, tokens):
    made = _file(api, tokens["alice"], "art/model.bin", b"v1")
    assert made.status == 201, made
    sha = made.json["content"]["sha"]
    lock(api, tokens["bob"], "art/model.bin")
    refused = _file(api, tokens["alice"], "art/model.bin", b"v2", sha=sha)
    assert refused.status == 403, refused
    assert "File is lfs locked" in refused.json["message"]
    assert "locked by: bob, path: art/model.bin" in refused.json["message"]
    deleted = api.delete("/repos/alice/open/contents/art/model.bin", token=tokens["carol"],
                         json={"sha": sha, "message": "rm"})
    assert deleted.status == 403
    changed = api.post("/repos/alice/open/contents", token=tokens["alice"], json={"files": [
        {"operation": "create", "path": "other.txt", "content": "eA=="},
        {"operation": "delete", "path": "art/model.bin", "sha": sha}]})
    assert changed.status == 403
    # The lock's owner may, and so may anyone a path that is not locked.
    assert _file(api, tokens["bob"], "art/model.bin", b"v2", sha=sha).status == 200
    assert _file(api, tokens["alice"], "free.txt").status == 201
