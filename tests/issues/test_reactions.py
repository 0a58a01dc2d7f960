"""Reactions to issues, pull requests and comments through the API, as a Forgejo client
sees them: statuses, the Reaction record, messages, pages of an issue's reactions, who
may react, and the badges on the issue's page."""
import threading

import pytest

from chalicelib.http import schemas
from tests.conftest import alice_bob_carol
from tests.issues.test_issues import assert_matches_forgejo, new_issue

R = "/repos/alice/open"


@pytest.fixture
def people(api):
    """alice owns public ``open`` and private ``secret``; bob writes to ``open``; carol
    is a stranger who posts issue #1 on ``open``."""
    tokens = alice_bob_carol(api, secret=True)
    new_issue(api, tokens["carol"], "reacted to")
    return tokens


def react(api, token, path, content):
    return api.post(f"{path}/reactions", token=token, json={"content": content})


def test_issue_reactions(api, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    issue = f"{R}/issues/1"
    assert react(api, None, issue, "heart").status == 401
    made = react(api, bob, issue, "heart")
    assert made.status == 201
    assert_matches_forgejo(made.json, "Reaction")
    assert set(made.json) == set(schemas.RECORDS["Reaction"]) == {"user", "content", "created_at"}
    assert made.json["content"] == "heart" and made.json["user"]["login"] == "bob"
    again = react(api, bob, issue, "heart")
    assert again.status == 200 and again.json == made.json
    refused = react(api, bob, issue, "gitea")
    assert refused.status == 403
    assert refused.json["message"] == "'gitea' is not an allowed reaction"
    assert react(api, carol, issue, "+1").status == 201
    assert react(api, alice, issue, "eyes").status == 201
    assert api.post(f"{R}/issues/9/reactions", token=bob, json={"content": "+1"}).status == 404

    listed = api.get(f"{issue}/reactions")          # anonymous: a public repository
    assert listed.status == 200
    assert [(r["user"]["login"], r["content"]) for r in listed.json] == \
        [("bob", "heart"), ("carol", "+1"), ("alice", "eyes")]
    assert listed.headers["x-total-count"] == "3"
    for record in listed.json:
        assert_matches_forgejo(record, "Reaction")
    page = api.get(f"{issue}/reactions?page=2&limit=2")
    assert [r["content"] for r in page.json] == ["eyes"] and page.headers["x-total-count"] == "3"

    # Removing one the caller does not have: 200, nothing changes.
    assert api.delete(f"{issue}/reactions", token=carol, json={"content": "heart"}).status == 200
    assert len(api.get(f"{issue}/reactions").json) == 3
    assert api.delete(f"{issue}/reactions", token=bob, json={"content": "heart"}).status == 200
    assert [r["user"]["login"] for r in api.get(f"{issue}/reactions").json] == ["carol", "alice"]
    assert api.delete(f"{issue}/reactions", json={"content": "+1"}).status == 401
    # The issue's record has no reactions (Forgejo's has none either).
    assert "reactions" not in api.get(issue).json


def test_comment_reactions_and_what_goes_with_a_deleted_comment(api, people):
    bob, carol = people["bob"], people["carol"]
    comment = api.post(f"{R}/issues/1/comments", token=carol, json={"body": "c"}).json
    path = f"{R}/issues/comments/{comment['id']}"
    assert react(api, bob, path, "rocket").status == 201
    assert react(api, bob, path, "rocket").status == 200
    assert react(api, bob, path, "nope").json["message"] == "'nope' is not an allowed reaction"
    listed = api.get(f"{path}/reactions")
    assert [(r["user"]["login"], r["content"]) for r in listed.json] == [("bob", "rocket")]
    assert api.get(f"{R}/issues/1/reactions").json == []       # the issue's are apart
    assert api.get(f"{R}/issues/comments/999999/reactions").status == 404
    assert api.delete(f"{path}/reactions", token=carol, json={"content": "rocket"}).status == 200
    assert len(api.get(f"{path}/reactions").json) == 1
    assert api.delete(f"{R}/issues/comments/{comment['id']}", token=carol).status == 204
    assert api.get(f"{path}/reactions").status == 404
    assert react(api, bob, path, "rocket").status == 404


def test_private_repositories_blocks_and_pull_requests(api, people):
    alice, bob, carol = people["alice"], people["bob"], people["carol"]
    secret = "/repos/alice/secret"
    new_issue(api, alice, "hidden", repo=secret)
    assert api.get(f"{secret}/issues/1/reactions").status == 404
    assert api.get(f"{secret}/issues/1/reactions", token=carol).status == 404
    assert react(api, carol, f"{secret}/issues/1", "heart").status == 404
    assert react(api, alice, f"{secret}/issues/1", "heart").status == 201
    assert len(api.get(f"{secret}/issues/1/reactions", token=alice).json) == 1

    # carol posted #1 and blocks bob: he can no longer react there, but can undo his own.
    assert react(api, bob, f"{R}/issues/1", "+1").status == 201
    assert api.put("/user/block/bob", token=carol).status == 204
    refused = react(api, bob, f"{R}/issues/1", "heart")
    assert refused.status == 403
    assert refused.json["message"] == "user is blocked by the poster or repository owner"
    assert api.delete(f"{R}/issues/1/reactions", token=bob, json={"content": "+1"}).status == 200
    assert api.get(f"{R}/issues/1/reactions").json == []


def test_two_identical_reactions_at_once_make_one(api, people):
    answers = []

    def post():
        answers.append(react(api, people["bob"], f"{R}/issues/1", "hooray").status)

    threads = [threading.Thread(target=post) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers) == [200] * 7 + [201]
    assert len(api.get(f"{R}/issues/1/reactions").json) == 1


def test_a_deleted_issue_takes_its_reactions(api, people):
    alice, bob = people["alice"], people["bob"]
    comment = api.post(f"{R}/issues/1/comments", token=bob, json={"body": "c"}).json
    react(api, bob, f"{R}/issues/1", "+1")
    react(api, bob, f"{R}/issues/comments/{comment['id']}", "eyes")
    assert api.delete(f"{R}/issues/1", token=alice).status == 204
    assert api.get(f"{R}/issues/1/reactions").status == 404
    new_issue(api, alice, "after")            # numbers are never reused: #2
    assert api.get(f"{R}/issues/2/reactions").json == []


def test_the_issue_page_shows_reaction_badges(api, people):
    bob, carol = people["bob"], people["carol"]
    comment = api.post(f"{R}/issues/1/comments", token=bob, json={"body": "c"}).json
    react(api, bob, f"{R}/issues/1", "+1")
    react(api, carol, f"{R}/issues/1", "+1")
    react(api, carol, f"{R}/issues/1", "heart")
    react(api, carol, f"{R}/issues/comments/{comment['id']}", "eyes")
    page = api.get("/alice/open/issues/1", raw=True)
    assert page.status == 200
    html = page.body.decode()
    assert '<span class="reaction">\U0001F44D 2</span>' in html
    assert '<span class="reaction">\u2764\ufe0f 1</span>' in html
    assert html.index("\U0001F44D 2") < html.index(f'id="issuecomment-{comment["id"]}"') \
        < html.index("\U0001F440 1")


def test_badges_of_configured_contents_are_escaped(api, people):
    from chalicelib.settings import overridden

    with overridden({"NIMBUS__UI__REACTIONS": "+1, <b>bold</b>"}):
        assert react(api, people["bob"], f"{R}/issues/1", "<b>bold</b>").status == 201
        html = api.get("/alice/open/issues/1", raw=True).body.decode()
    assert '<span class="reaction">:&lt;b&gt;bold&lt;/b&gt;: 1</span>' in html
    assert "<b>bold</b>" not in html
