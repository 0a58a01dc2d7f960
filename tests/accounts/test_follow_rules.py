"""Follows' rules, on the in-memory twin (the fast layer): following counts once however
often it is asked for, both sides and both counters move together, yourself and
repeats change nothing, users hidden from the caller are 404, the lists page in user
id order and hide whom the viewer may not see, and deleting an account takes both
sides of its follows."""
from __future__ import annotations

import pytest

from chalicelib import accounts
from chalicelib.accounts import follow_store, follows, service
from chalicelib.errors import NotFoundError, PermissionDenied
from tests import memory_scene as scene


def counts(account) -> tuple[int, int]:
    fresh = scene.fresh(account)
    return int(fresh.num_followers), int(fresh.num_following)


def names(people) -> list[str]:
    return [a.login for a in people.shown]


def test_a_follow_moves_both_sides_and_both_counters_once(memory):
    alice, bob = scene.user("alice"), scene.user("bob")
    follows.follow(alice, "bob")
    follows.follow(alice, "BOB")                      # again: nothing changes
    assert counts(alice) == (0, 1) and counts(bob) == (1, 0)
    assert follows.am_following(alice, "bob") and not follows.am_following(bob, "alice")
    assert follows.is_following(None, "alice", "bob")
    record = accounts.user_record(scene.fresh(bob), None)
    assert (record["followers_count"], record["following_count"]) == (1, 0)
    follows.unfollow(alice, "bob")
    follows.unfollow(alice, "bob")                    # not following: nothing changes
    assert counts(alice) == (0, 0) and counts(bob) == (0, 0)
    assert not follows.is_following(None, "alice", "bob")


def test_following_yourself_changes_nothing_and_strangers_are_404(memory):
    alice = scene.user("alice")
    scene.user("hidden", visibility="private")
    scene.user("members", visibility="limited")
    follows.follow(alice, "alice")
    assert counts(alice) == (0, 0) and not follows.am_following(alice, "alice")
    for name in ("nobody", "hidden"):
        with pytest.raises(NotFoundError):
            follows.follow(alice, name)
    with pytest.raises(NotFoundError):
        follows.is_following(None, "members", "alice")      # limited: not to anonymous
    follows.follow(alice, "members")                        # signed in: limited is seen
    with pytest.raises(PermissionDenied):
        follows.follow(None, "alice")


def test_a_second_follow_commits_nothing(memory):
    """A follow reads nothing before it writes, so two racing requests both commit: the
    follow item's put is conditional, so the second commit changes nothing.  (Were the
    put not conditional, the counters would move twice.)"""
    alice, bob = scene.user("alice"), scene.user("bob")
    for _ in range(2):
        follows.follow(alice, "bob")
    assert counts(bob) == (1, 0) and counts(alice) == (0, 1)
    assert follow_store.follower_ids(int(bob.id), 10) == [int(alice.id)]


def test_lists_page_in_user_id_order_and_hide_whom_the_viewer_may_not_see(memory):
    star = scene.user("star")
    fans = [scene.user(f"fan{i}") for i in range(5)]
    shy = scene.user("shy", visibility="private")
    root = scene.user("root", admin=True)
    for fan in [*reversed(fans), shy]:
        follows.follow(fan, "star")
        follows.follow(star if fan is not shy else root, fan.login)
    star = scene.fresh(star)
    everyone = [f"fan{i}" for i in range(5)]
    assert names(follows.followers(root, star, 0, 50)) == [*everyone, "shy"]
    seen = follows.followers(star, star, 0, 50)       # only shy and admins see shy
    assert names(seen) == everyone and seen.total == 6
    assert names(follows.followers(None, star, 2, 2)) == ["fan2", "fan3"]
    assert names(follows.following(None, star, 3, 10)) == ["fan3", "fan4"]
    assert follows.following(star, star, 10, 10).shown == []
    assert names(follows.following(root, scene.fresh(root), 0, 10)) == ["shy"]


def test_deleting_a_user_takes_both_sides_of_its_follows(memory):
    alice, bob = scene.user("alice"), scene.user("bob")
    root = scene.user("root", admin=True)
    follows.follow(alice, "bob")
    follows.follow(bob, "alice")
    service.delete_user(root, "alice")
    assert follow_store.follower_ids(int(bob.id), 10) == []
    assert follow_store.following_ids(int(bob.id), 10) == []
    again = scene.user("alice")                       # a new account: no follows
    assert not follows.am_following(again, "bob")


def test_the_routes_answer_as_forgejo(fast_api):
    for name in ("alice", "bob"):
        scene.user(name)
    scene.user("hidden", visibility="private")
    token = fast_api.create_token("alice", scene.PASSWORD)
    assert fast_api.put("/user/following/bob", token=token).status == 204
    assert fast_api.put("/user/following/alice", token=token).status == 204
    assert fast_api.get("/user/following/bob", token=token).status == 204
    assert fast_api.get("/users/alice/following/bob").status == 204
    assert fast_api.get("/users/bob/following/alice").status == 404
    for path in ("/user/following/nobody", "/user/following/hidden"):
        assert fast_api.put(path, token=token).status == 404
    assert fast_api.put("/user/following/bob").status == 401
    listed = fast_api.get("/users/bob/followers")
    assert [u["login"] for u in listed.json] == ["alice"]
    assert listed.headers["x-total-count"] == "1"
    assert fast_api.get("/users/bob").json["followers_count"] == 1
    assert fast_api.get("/user", token=token).json["following_count"] == 1
    assert [u["login"] for u in fast_api.get("/user/following", token=token).json] == ["bob"]
    assert fast_api.get("/users/hidden/followers").status == 404
    assert fast_api.delete("/user/following/bob", token=token).status == 204
    assert fast_api.get("/user/following/bob", token=token).status == 404


def test_no_follow_across_a_block(memory):
    from chalicelib.accounts import blocks

    alice, bob, carol = scene.user("alice"), scene.user("bob"), scene.user("carol")
    blocks.block_user(alice, alice, "bob")
    blocks.block_user(carol, carol, "alice")
    for follower, followed in ((bob, "alice"), (alice, "bob"), (alice, "carol")):
        with pytest.raises(PermissionDenied, match="blocked"):
            follows.follow(follower, followed)
    assert counts(alice) == (0, 0) and counts(bob) == (0, 0)
