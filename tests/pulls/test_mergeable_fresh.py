"""``mergeable`` is never stale: once a push moves a pull request's base or head, the
pull request reads Forgejo's "checking" state (``mergeable: false``) until the push
consumer has examined it on the new tips — a client that trusts ``true`` never tries a
merge that the new tips make fail."""
from __future__ import annotations

from tests.pulls.test_pulls import R, branch_to, deliver_events, open_pull, scene  # noqa: F401


def mergeable(api, token, number: int) -> bool:
    return api.get(f"{R}/pulls/{number}", token=token).json["mergeable"]


def listed(api, token) -> dict[int, bool]:
    return {p["number"]: p["mergeable"] for p in api.get(f"{R}/pulls", token=token).json}


def test_a_base_that_moved_into_a_conflict_reads_checking_until_examined(api, scene):
    pull = open_pull(api, scene["alice"])
    assert pull["mergeable"] is True
    # main now changes a.txt too: the pull request conflicts, but no consumer ran yet.
    branch_to(api, scene["alice"], "main", scene["base"],
              {"README.md": b"hello\n", "a.txt": b"other\n"}, "conflicting")
    assert mergeable(api, scene["alice"], pull["number"]) is False
    assert listed(api, scene["alice"]) == {pull["number"]: False}
    deliver_events()
    # Examined on the new tips: a real conflict now, still not mergeable.
    record = api.get(f"{R}/pulls/{pull['number']}", token=scene["alice"]).json
    assert record["mergeable"] is False and record["base"]["sha"] != scene["base"]


def test_a_head_that_moved_reads_checking_then_mergeable_again(api, scene):
    pull = open_pull(api, scene["alice"])
    branch_to(api, scene["alice"], "feature", scene["feature"],
              {"README.md": b"hello\n", "a.txt": b"a\n", "b.txt": b"b\n"}, "more")
    assert mergeable(api, scene["alice"], pull["number"]) is False
    deliver_events()
    assert mergeable(api, scene["alice"], pull["number"]) is True
    assert listed(api, scene["alice"]) == {pull["number"]: True}
