"""Code review through the API (in-process, under moto): reviews, code comments,
submits (a race), review requests (Renovate's POST), dismissals, stale marks."""
from __future__ import annotations

import threading

from chalicelib.http import schemas
from tests.pulls.test_pulls import R, branch_to, deliver_events, open_pull, scene  # noqa: F401


def _review(api, token, number=1, **body):
    return api.post(f"{R}/pulls/{number}/reviews", token=token, json=body)


def test_create_list_and_submit(api, scene):
    open_pull(api, scene["carol"])
    # The poster may not approve their own pull request.
    r = _review(api, scene["carol"], event="APPROVED")
    assert r.status == 422 and "approve your own pull" in r.json["message"]
    assert _review(api, scene["bob"], event="REQUEST_CHANGES").status == 422   # needs a body
    assert _review(api, scene["bob"], event="COMMENT").status == 422
    # A pending review with a code comment on a changed file.
    r = _review(api, scene["bob"], body="first look",
                comments=[{"path": "a.txt", "body": "why?", "new_position": 1}])
    assert r.status == 200, r
    pending = r.json
    assert set(pending) == set(schemas.RECORDS["PullReview"])
    assert pending["state"] == "PENDING" and pending["comments_count"] == 1
    assert pending["commit_id"] == scene["feature"] and pending["user"]["login"] == "bob"
    # Only its author sees a pending review.
    assert [x["id"] for x in api.get(f"{R}/pulls/1/reviews", token=scene["bob"]).json] == \
        [pending["id"]]
    assert api.get(f"{R}/pulls/1/reviews", token=scene["alice"]).json == []
    assert api.get(f"{R}/pulls/1/reviews/{pending['id']}", token=scene["alice"]).status == 404
    comments = api.get(f"{R}/pulls/1/reviews/{pending['id']}/comments", token=scene["bob"]).json
    assert len(comments) == 1 and set(comments[0]) == set(schemas.RECORDS["PullReviewComment"])
    c = comments[0]
    assert c["path"] == "a.txt" and c["position"] == 1 and c["original_position"] == 0
    assert c["commit_id"] == scene["feature"] and c["original_commit_id"] == scene["feature"]
    assert c["diff_hunk"].endswith("@@ -0,0 +1,1 @@\n+a") or "+a" in c["diff_hunk"]
    # A path the pull request does not change is refused.
    bad = _review(api, scene["bob"], comments=[{"path": "README.md", "body": "x",
                                                "new_position": 1}])
    assert bad.status == 422
    # Submit: approved, official (bob writes), not stale.
    done = api.post(f"{R}/pulls/1/reviews/{pending['id']}", token=scene["bob"],
                    json={"event": "APPROVED", "body": "ok"})
    assert done.status == 200, done
    assert done.json["state"] == "APPROVED" and done.json["official"] is True
    assert done.json["stale"] is False and done.json["body"] == "ok"
    again = api.post(f"{R}/pulls/1/reviews/{pending['id']}", token=scene["bob"],
                     json={"event": "APPROVED"})
    assert again.status == 422 and "only a pending review" in again.json["message"]
    listed = api.get(f"{R}/pulls/1/reviews", token=scene["alice"]).json
    assert [x["state"] for x in listed] == ["APPROVED"]
    # A stranger's comment review is not official.
    r = _review(api, scene["alice"], event="COMMENT", body="hm")
    assert r.status == 200 and r.json["state"] == "COMMENT" and r.json["official"] is False \
        or r.json["official"] is True     # alice owns the repository: she may approve
    assert api.get(f"{R}/pulls/1/reviews").status == 200


def test_two_submits_of_one_pending_review_land_once(api, scene):
    open_pull(api, scene["carol"])
    pending = _review(api, scene["bob"], body="draft").json
    results = []

    def submit():
        results.append(api.post(f"{R}/pulls/1/reviews/{pending['id']}", token=scene["bob"],
                                json={"event": "COMMENT", "body": "done"}).status)

    threads = [threading.Thread(target=submit) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [200, 422, 422, 422], results
    listed = api.get(f"{R}/pulls/1/reviews", token=scene["bob"]).json
    assert [x["state"] for x in listed] == ["COMMENT"]


def test_review_requests_like_renovate(api, scene):
    open_pull(api, scene["carol"])
    r = api.post(f"{R}/pulls/1/requested_reviewers", token=scene["carol"],
                 json={"reviewers": ["bob"]})
    assert r.status == 201, r
    assert [x["state"] for x in r.json] == ["REQUEST_REVIEW"]
    assert r.json[0]["user"]["login"] == "bob"
    pull = api.get(f"{R}/pulls/1").json
    assert [u["login"] for u in pull["requested_reviewers"]] == ["bob"]
    assert pull["requested_reviewers_teams"] == []
    # Asking again makes nothing new.
    again = api.post(f"{R}/pulls/1/requested_reviewers", token=scene["carol"],
                     json={"reviewers": ["bob"]})
    assert again.status == 201 and again.json == []
    # The poster cannot be asked; a stranger cannot ask; unknown users are 404.
    r = api.post(f"{R}/pulls/1/requested_reviewers", token=scene["alice"],
                 json={"reviewers": ["carol"]})
    assert r.status == 422 and "poster of pr can't be reviewer" in r.json["message"]
    assert api.post(f"{R}/pulls/1/requested_reviewers", token=scene["alice"],
                    json={"reviewers": ["ghost"]}).status == 404
    # bob approves: his request ends.
    assert _review(api, scene["bob"], event="APPROVED").status == 200
    assert api.get(f"{R}/pulls/1").json["requested_reviewers"] == []
    # Ask alice, then withdraw.
    assert api.post(f"{R}/pulls/1/requested_reviewers", token=scene["carol"],
                    json={"reviewers": ["alice"]}).status == 201
    assert [u["login"] for u in api.get(f"{R}/pulls/1").json["requested_reviewers"]] == \
        ["alice"]
    assert api.delete(f"{R}/pulls/1/requested_reviewers", token=scene["carol"],
                      json={"reviewers": ["alice"]}).status == 204
    assert api.get(f"{R}/pulls/1").json["requested_reviewers"] == []
    states = [x["state"] for x in api.get(f"{R}/pulls/1/reviews").json]
    assert states == ["REQUEST_REVIEW", "APPROVED"]
    # Reviewers and assignees.
    reviewers = [u["login"] for u in api.get(f"{R}/reviewers", token=scene["carol"]).json]
    assert "alice" in reviewers and "bob" in reviewers
    assignees = [u["login"] for u in api.get(f"{R}/assignees").json]
    assert assignees == ["alice", "bob"]


def test_dismiss_delete_and_stale(api, scene):
    open_pull(api, scene["carol"])
    approved = _review(api, scene["bob"], event="APPROVED").json
    rid = approved["id"]
    assert api.post(f"{R}/pulls/1/reviews/{rid}/dismissals", token=scene["bob"],
                    json={"message": "no"}).status == 403          # not an admin
    d = api.post(f"{R}/pulls/1/reviews/{rid}/dismissals", token=scene["alice"],
                 json={"message": "no"})
    assert d.status == 200 and d.json["dismissed"] is True
    u = api.post(f"{R}/pulls/1/reviews/{rid}/undismissals", token=scene["alice"])
    assert u.status == 200 and u.json["dismissed"] is False
    # The head moves: the approval becomes stale.
    deliver_events()
    branch_to(api, scene["alice"], "feature", scene["feature"],
              {"README.md": b"hello\n", "a.txt": b"b\n"})
    deliver_events()
    deliver_events()
    got = api.get(f"{R}/pulls/1/reviews/{rid}").json
    assert got["stale"] is True and got["dismissed"] is False
    # Delete: the reviewer only (or a site admin).
    assert api.delete(f"{R}/pulls/1/reviews/{rid}", token=scene["alice"]).status == 403
    assert api.delete(f"{R}/pulls/1/reviews/{rid}", token=scene["bob"]).status == 204
    assert api.get(f"{R}/pulls/1/reviews/{rid}").status == 404


def test_review_comments_and_outdated(api, scene):
    open_pull(api, scene["carol"])
    review = _review(api, scene["bob"], event="COMMENT", body="see",
                     comments=[{"path": "a.txt", "body": "line", "new_position": 1}]).json
    rid = review["id"]
    more = api.post(f"{R}/pulls/1/reviews/{rid}/comments", token=scene["bob"],
                    json={"path": "a.txt", "body": "again", "new_position": 1})
    assert more.status == 200, more
    cid = more.json["id"]
    assert api.get(f"{R}/pulls/1/reviews/{rid}").json["comments_count"] == 2
    assert api.get(f"{R}/pulls/1/reviews/{rid}/comments/{cid}").json["body"] == "again"
    assert api.delete(f"{R}/pulls/1/reviews/{rid}/comments/{cid}",
                      token=scene["carol"]).status == 403
    assert api.delete(f"{R}/pulls/1/reviews/{rid}/comments/{cid}",
                      token=scene["bob"]).status == 204
    assert api.get(f"{R}/pulls/1/reviews/{rid}/comments/{cid}").status == 404
    deliver_events()
    branch_to(api, scene["alice"], "feature", scene["feature"],
              {"README.md": b"hello\n", "a.txt": b"changed\n"})
    deliver_events()
    deliver_events()
    [c] = api.get(f"{R}/pulls/1/reviews/{rid}/comments").json
    assert c["position"] == 0 and c["original_position"] == 1


def test_the_reviewers_list_costs_the_same_whatever_the_collaborators(api, scene):
    """repoGetReviewers decides every collaborator's access from one batch, not a read
    per collaborator."""
    from chalicelib import aws

    counting = {"on": False, "calls": 0}

    def hook(model, **_):
        if counting["on"]:
            counting["calls"] += 1

    aws.add_call_hook(hook)

    def listed() -> tuple[int, int]:
        counting.update(on=True, calls=0)
        try:
            r = api.get(f"{R}/reviewers", token=scene["alice"])
        finally:
            counting["on"] = False
        assert r.status == 200, r
        return counting["calls"], len(r.json)

    calls, shown = listed()
    for n in range(6):
        api.create_user(f"helper{n}")
        assert api.put(f"{R}/collaborators/helper{n}", token=scene["alice"],
                       json={"permission": "read"}).status == 204
    more_calls, more_shown = listed()
    assert more_shown == shown + 6
    assert more_calls == calls
