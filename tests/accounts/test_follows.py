"""Followers and following through the API under moto: follow, check, lists with their
paging headers, the profile's counters, unfollow, and follows racing each other."""
from __future__ import annotations

from collections import Counter

import pytest

from tests.accounts.test_users import assert_matches_forgejo


@pytest.fixture
def tokens(api):
    """alice, bob, carol and dave with a token each; quiet is a private user."""
    found = {}
    for name in ("alice", "bob", "carol", "dave"):
        api.create_user(name)
        found[name] = api.create_token(name)
    api.create_user("quiet", visibility="private")
    return found


def logins(resp) -> list[str]:
    assert resp.status == 200, resp
    return [u["login"] for u in resp.json]


def test_follow_list_check_unfollow(api, tokens):
    for name in ("bob", "carol", "dave"):
        assert api.put("/user/following/alice", token=tokens[name]).status == 204
    assert api.put("/user/following/bob", token=tokens["alice"]).status == 204
    # Following yourself and following twice are 204s that change nothing (Forgejo).
    assert api.put("/user/following/alice", token=tokens["alice"]).status == 204
    assert api.put("/user/following/alice", token=tokens["bob"]).status == 204

    profile = api.get("/users/alice").json
    assert (profile["followers_count"], profile["following_count"]) == (3, 1)
    page = api.get("/users/alice/followers?limit=2")
    assert logins(page) == ["bob", "carol"]                 # user id order
    assert page.headers["x-total-count"] == "3" and 'rel="next"' in page.headers["link"]
    for record in page.json:
        assert_matches_forgejo(record, "User")
    assert logins(api.get("/users/alice/followers?limit=2&page=2")) == ["dave"]
    assert logins(api.get("/user/followers", token=tokens["alice"])) == ["bob", "carol", "dave"]
    assert logins(api.get("/users/alice/following")) == ["bob"]
    assert logins(api.get("/user/following", token=tokens["bob"])) == ["alice"]

    assert api.get("/users/bob/following/alice").status == 204
    assert api.get("/users/alice/following/carol").status == 404
    assert api.get("/user/following/bob", token=tokens["alice"]).status == 204
    assert api.get("/user/following/carol", token=tokens["alice"]).status == 404

    assert api.delete("/user/following/alice", token=tokens["bob"]).status == 204
    assert api.delete("/user/following/alice", token=tokens["bob"]).status == 204
    assert logins(api.get("/users/alice/followers")) == ["carol", "dave"]
    assert api.get("/users/alice").json["followers_count"] == 2
    assert api.get("/users/bob").json["following_count"] == 0


def test_missing_and_hidden_users_are_404(api, tokens):
    for path in ("/user/following/nobody", "/user/following/quiet"):
        answer = api.put(path, token=tokens["alice"])
        assert answer.status == 404 and "message" in answer.json, answer
    for path in ("/users/quiet/followers", "/users/quiet/following",
                 "/users/nobody/followers", "/users/alice/following/quiet"):
        assert api.get(path, token=tokens["alice"]).status == 404, path
    assert api.get("/user/followers").status == 401
    assert api.put("/user/following/alice").status == 401


def test_racing_follows_count_once(api, tokens):
    from tests.statuses.test_statuses import RACE_SWITCH
    from tests.test_races import one_request_at_a_time, together

    with one_request_at_a_time(RACE_SWITCH):
        answers = together(6, lambda i: api.put("/user/following/alice",
                                                token=tokens[("bob", "carol")[i % 2]]))
    assert Counter(a.status for a in answers) == Counter({204: 6}), answers[:3]
    assert api.get("/users/alice").json["followers_count"] == 2
    assert api.get("/users/bob").json["following_count"] == 1
    assert logins(api.get("/users/alice/followers")) == ["bob", "carol"]
