"""Issue search through the API (issueSearchIssues, and a repository's issue list with
``q``), under moto with the index kept current as commits land."""
from __future__ import annotations

from tests.conftest import alice_bob_carol


def titles(resp) -> list[str]:
    assert resp.status == 200, resp.json
    return [i["title"] for i in resp.json]


def open_issue(api, token, repo, title, body="", **extra):
    resp = api.post(f"/repos/{repo}/issues", token=token, json={"title": title, "body": body,
                                                                 **extra})
    assert resp.status == 201, resp.json
    return resp.json


def test_search_across_repositories_by_word_and_visibility(api):
    tokens = alice_bob_carol(api, secret=True)
    alice, bob, carol = tokens["alice"], tokens["bob"], tokens["carol"]
    open_issue(api, alice, "alice/open", "Crash on startup", "the parser crashes")
    open_issue(api, alice, "alice/secret", "Secret crash", "private parser notes")
    open_issue(api, bob, "alice/open", "Docs typo", "see @carol")
    # Anonymous: public repositories only, newest first; words, not pieces of them.
    assert titles(api.get("/repos/issues/search?q=parser")) == ["Crash on startup"]
    assert titles(api.get("/repos/issues/search?q=PARSE")) == []
    assert titles(api.get("/repos/issues/search?q=crash")) == ["Crash on startup"]
    # The owner also finds her private repository's issue; a stranger does not.
    assert titles(api.get("/repos/issues/search?q=parser", token=alice)) == [
        "Secret crash", "Crash on startup"]
    assert titles(api.get("/repos/issues/search?q=parser", token=carol)) == [
        "Crash on startup"]
    # Several words: each must be there.
    assert titles(api.get("/repos/issues/search?q=private+parser", token=alice)) == [
        "Secret crash"]
    # No keyword: every visible open issue; mine: created, mentioned.
    assert titles(api.get("/repos/issues/search", token=carol)) == [
        "Docs typo", "Crash on startup"]
    assert titles(api.get("/repos/issues/search?created=true", token=bob)) == ["Docs typo"]
    assert titles(api.get("/repos/issues/search?mentioned=true", token=carol)) == ["Docs typo"]
    # The record is Forgejo's Issue with its repository.
    found = api.get("/repos/issues/search?q=typo").json[0]
    assert found["repository"]["full_name"] == "alice/open"
    assert isinstance(found["number"], int) and found["state"] == "open"


def test_search_filters_follow_changes(api):
    tokens = alice_bob_carol(api)
    alice = tokens["alice"]
    first = open_issue(api, alice, "alice/open", "Flaky test", "retry the job")
    open_issue(api, alice, "alice/open", "Another one", "nothing")
    label = api.post("/repos/alice/open/labels", token=alice,
                     json={"name": "bug", "color": "#ff0000"}).json
    assert api.post(f"/repos/alice/open/issues/{first['number']}/labels", token=alice,
                    json={"labels": [label["id"]]}).status == 200
    assert titles(api.get("/repos/issues/search?labels=bug")) == ["Flaky test"]
    assert api.patch(f"/repos/alice/open/issues/{first['number']}", token=alice,
                     json={"state": "closed"}).status == 201
    assert titles(api.get("/repos/issues/search?q=flaky")) == []
    assert titles(api.get("/repos/issues/search?q=flaky&state=closed")) == ["Flaky test"]
    # A comment's words find its issue.
    assert api.post(f"/repos/alice/open/issues/{first['number']}/comments", token=alice,
                    json={"body": "bisected to the scheduler"}).status == 201
    assert titles(api.get("/repos/issues/search?q=scheduler&state=all")) == ["Flaky test"]
    # Going private hides it from others.
    assert api.patch("/repos/alice/open", token=alice, json={"private": True}).status == 200
    assert titles(api.get("/repos/issues/search?q=scheduler&state=all")) == []
    assert titles(api.get("/repos/issues/search?q=scheduler&state=all", token=alice)) == [
        "Flaky test"]
    # Deleting the issue removes it.
    assert api.delete(f"/repos/alice/open/issues/{first['number']}", token=alice).status == 204
    assert titles(api.get("/repos/issues/search?q=scheduler&state=all", token=alice)) == []


def test_owner_and_team_scopes_and_bad_input(api):
    tokens = alice_bob_carol(api)
    open_issue(api, tokens["alice"], "alice/open", "Owned by alice")
    assert titles(api.get("/repos/issues/search?owner=alice")) == ["Owned by alice"]
    assert titles(api.get("/repos/issues/search?owner=bob")) == []
    assert api.get("/repos/issues/search?owner=nobody").status == 400
    assert api.get("/repos/issues/search?team=x").status == 400
    assert api.get("/repos/issues/search?since=yesterday").status == 422
    assert api.get("/repos/issues/search?created=maybe", token=tokens["bob"]).status == 422


def test_repository_issue_list_with_a_keyword_reads_the_index(api):
    tokens = alice_bob_carol(api)
    alice = tokens["alice"]
    for n in range(3):
        open_issue(api, alice, "alice/open", f"Widget {n}", "common words")
    open_issue(api, alice, "alice/open", "Gadget", "common words too")
    resp = api.get("/repos/alice/open/issues?q=widget&limit=2")
    assert titles(resp) == ["Widget 2", "Widget 1"]
    assert resp.headers["x-total-count"] == "3"
    assert titles(api.get("/repos/alice/open/issues?q=common+too")) == ["Gadget"]
    assert titles(api.get("/repos/alice/open/issues?q=widget&created_by=bob")) == []
