"""The issue tracker in the browser (issue_pages, actions_issues, actions_pulls,
actions_issue_edit, label_pages, milestone_pages), in-process under moto through the
gateway: the list filters and counts, the new issue and pull request forms with labels,
milestone, assignees and reviewers (unknown ones refused beside their field, nothing
created; a reader's ignored as the API ignores them), editing, closing and reopening,
the timeline's sentences, the labels and milestones pages, and the reviewers the API
takes when a pull request is opened."""
from __future__ import annotations

import html as html_lib
import re

import pytest

from tests.web.test_web_actions import (  # noqa: F401 - the scene fixture
    PUBLIC, error_shown, field_error_shown, scene, text)

API = "/repos/alice/proj"


def _api(api, scene, method, path, body=None, who="alice"):
    return api.request(method, API + path, token=scene["tokens"][who], json=body)


def _label(api, scene, name, color="#ff0000"):
    made = _api(api, scene, "POST", "/labels", {"name": name, "color": color})
    assert made.status == 201, made
    return made.json["id"]


def _milestone(api, scene, title):
    made = _api(api, scene, "POST", "/milestones", {"title": title})
    assert made.status == 201, made
    return made.json["id"]


def events_of(page: str) -> list[str]:
    found = re.findall(r'<div class="event"[^>]*>(.*?)</div>', page, re.S)
    return [" ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", f)).split()) for f in found]


def listed_titles(resp) -> list[str]:
    return re.findall(r'<a href="[^"]+"><strong>([^<]*)</strong></a>', text(resp))


# The list ---------------------------------------------------------------------------

def test_issue_list_filters_and_counts(api, scene):
    bug = _label(api, scene, "bug")
    scene["tokens"]["bob"] = api.create_token("bob")
    for title, who in (("First", "alice"), ("By bob", "bob"), ("Third", "alice")):
        assert _api(api, scene, "POST", "/issues", {"title": title}, who=who).status == 201
    assert _api(api, scene, "PATCH", "/issues/1", {"assignees": ["bob"]}).status == 201
    assert _api(api, scene, "POST", "/issues/3/labels", {"labels": [bug]}).status == 200
    assert _api(api, scene, "PATCH", "/issues/3", {"state": "closed"}).status == 201
    carol = scene["carol"]
    page = carol.get(f"{PUBLIC}/issues")
    assert page.status == 200
    assert 'name="assignee"' in text(page) and 'name="poster"' in text(page)
    assert "<strong>2</strong> open" in text(page) and "<strong>1</strong> closed" in text(page)
    assert f'href="{PUBLIC}/labels"' in text(page) and f'href="{PUBLIC}/milestones"' in text(page)
    assert listed_titles(carol.get(f"{PUBLIC}/issues?assignee=bob")) == ["First"]
    assert listed_titles(carol.get(f"{PUBLIC}/issues?poster=bob")) == ["By bob"]
    by_alice = carol.get(f"{PUBLIC}/issues?poster=alice&state=all")
    assert listed_titles(by_alice) == ["Third", "First"]
    assert 'value="alice"' in text(by_alice)           # the filter shows what was asked
    assert "<strong>1</strong> open" in text(by_alice)
    assert "<strong>1</strong> closed" in text(by_alice)
    assert listed_titles(carol.get(f"{PUBLIC}/issues?labels=bug&state=closed")) == ["Third"]
    assert listed_titles(carol.get(f"{PUBLIC}/issues?assignee=nobody")) == []


# New issue --------------------------------------------------------------------------

def test_new_issue_with_labels_milestone_assignees(api, scene):
    bug = _label(api, scene, "bug")
    _label(api, scene, "docs", "#00ff00")
    v1 = _milestone(api, scene, "v1")
    alice = scene["alice"]
    form = alice.get(f"{PUBLIC}/issues/new")
    assert form.status == 200
    assert f'name="labels" value="{bug}"' in text(form) and ">v1</option>" in text(form)
    assert 'name="assignees" value="bob"' in text(form)
    assert 'data-preview="issue-content"' in text(form)
    made = alice.post(f"{PUBLIC}/issues/new", [("title", "Tagged"), ("content", "x"),
                                                ("labels", str(bug)), ("milestone", str(v1)),
                                                ("assignees", "bob")])
    assert made.status == 303
    issue = _api(api, scene, "GET", "/issues/1").json
    assert [l["name"] for l in issue["labels"]] == ["bug"]
    assert issue["milestone"]["title"] == "v1"
    assert [a["login"] for a in issue["assignees"]] == ["bob"]


@pytest.mark.parametrize("field, value, message", [
    ("labels", "999999", "label does not exist"),
    ("milestone", "999999", "milestone does not exist"),
    ("assignees", "nobody", "Assignee does not exist"),
    ("assignees", "carol", "user does not have access"),
])
def test_new_issue_refuses_unknown_values_beside_the_field(api, scene, field, value, message):
    resp = scene["alice"].post(f"{PUBLIC}/issues/new", [("title", "Kept title"),
                                                         (field, value)])
    assert resp.status == 422
    assert field_error_shown(resp, field, message), text(resp)
    assert 'value="Kept title"' in text(resp)
    assert _api(api, scene, "GET", "/issues?state=all").json == []


def test_a_reader_cannot_set_labels(api, scene):
    bug = _label(api, scene, "bug")
    carol = scene["carol"]
    form = carol.get(f"{PUBLIC}/issues/new")
    assert form.status == 200 and 'name="labels"' not in text(form)
    made = carol.post(f"{PUBLIC}/issues/new", [("title", "From carol"), ("labels", str(bug))])
    assert made.status == 303          # the API ignores a reader's labels
    assert _api(api, scene, "GET", "/issues/1").json["labels"] == []
    # The sidebar's label form is a writer's: 403, as the API's label routes.
    assert carol.post(f"{PUBLIC}/issues/1/labels", [("labels", str(bug))]).status == 403
    assert _api(api, scene, "GET", "/issues/1").json["labels"] == []


# New pull request -------------------------------------------------------------------

def test_new_pull_request_with_reviewers(api, scene):
    bug = _label(api, scene, "bug")
    alice = scene["alice"]
    page = alice.get(f"{PUBLIC}/compare/main...feature")
    assert page.status == 200 and 'name="reviewers"' in text(page)
    assert f'name="labels" value="{bug}"' in text(page)
    refused = alice.post(f"{PUBLIC}/compare/main...feature",
                         [("title", "Feature"), ("reviewers", "nobody")])
    assert refused.status == 422 and field_error_shown(refused, "reviewers", "not exist")
    own = alice.post(f"{PUBLIC}/compare/main...feature",
                     [("title", "Feature"), ("reviewers", "alice")])
    assert own.status == 422 and field_error_shown(own, "reviewers", "poster")
    assert _api(api, scene, "GET", "/pulls?state=all").json == []
    made = alice.post(f"{PUBLIC}/compare/main...feature",
                      [("title", "Feature"), ("reviewers", "bob"), ("labels", str(bug))])
    assert made.status == 303 and made.headers["location"] == f"{PUBLIC}/pulls/1"
    record = _api(api, scene, "GET", "/pulls/1").json
    assert [u["login"] for u in record["requested_reviewers"]] == ["bob"]
    assert [l["name"] for l in record["labels"]] == ["bug"]
    shown = events_of(text(alice.get(f"{PUBLIC}/pulls/1")))
    assert any("A review was requested from bob" in s for s in shown), shown


def test_api_opens_a_pull_request_with_reviewers(api, scene):
    opening = {"head": "feature", "base": "main", "title": "API"}
    for names in (["nobody"], ["bob", "alice"]):     # nobody; the poster
        refused = _api(api, scene, "POST", "/pulls", {**opening, "reviewers": names})
        assert refused.status == 422, refused
        assert _api(api, scene, "GET", "/pulls?state=all").json == []
    made = _api(api, scene, "POST", "/pulls", {**opening, "reviewers": ["bob"]})
    assert made.status == 201, made
    assert made.json["number"] == 1          # the refused ones took no number
    assert [u["login"] for u in made.json["requested_reviewers"]] == ["bob"]
    record = _api(api, scene, "GET", "/pulls/1").json
    assert [u["login"] for u in record["requested_reviewers"]] == ["bob"]
    reviews = _api(api, scene, "GET", "/pulls/1/reviews").json
    assert [(r["state"], r["user"]["login"]) for r in reviews] == [("REQUEST_REVIEW", "bob")]
    timeline = _api(api, scene, "GET", "/issues/1/timeline").json
    assert [(t["type"], t["assignee"]["login"]) for t in timeline
            if t["type"] == "review_request"] == [("review_request", "bob")]


# Editing ----------------------------------------------------------------------------

def test_edit_close_reopen_and_sidebar(api, scene):
    bug = _label(api, scene, "bug")
    v1 = _milestone(api, scene, "v1")
    carol, bob, alice = scene["carol"], scene["bob"], scene["alice"]
    assert carol.post(f"{PUBLIC}/issues/new", {"title": "Typo"}).status == 303
    page = text(carol.get(f"{PUBLIC}/issues/1"))
    assert f'href="{PUBLIC}/issues/1/edit"' in page        # the poster may edit
    assert 'action="/alice/proj/issues/1/labels"' not in page
    assert 'value="close"' in page and ">Comment</button>" in page
    form = carol.get(f"{PUBLIC}/issues/1/edit")
    assert form.status == 200 and 'value="Typo"' in text(form)
    assert carol.post(f"{PUBLIC}/issues/1/edit", {"title": "Typo fixed",
                                                  "content": "body"}).status == 303
    assert scene["anonymous"].get(f"{PUBLIC}/issues/1/edit").status == 303
    bad = carol.post(f"{PUBLIC}/issues/1/edit", {"title": " ", "content": "b"})
    assert bad.status == 422 and field_error_shown(bad, "title", "Required")
    assert alice.post(f"{PUBLIC}/issues/new", {"title": "Alice's"}).status == 303
    assert carol.post(f"{PUBLIC}/issues/2/edit", {"title": "mine now"}).status == 403
    # Writers: labels, milestone and assignees from the sidebar.
    page = text(bob.get(f"{PUBLIC}/issues/1"))
    assert 'action="/alice/proj/issues/1/labels"' in page
    assert bob.post(f"{PUBLIC}/issues/1/labels", [("labels", str(bug))]).status == 303
    assert bob.post(f"{PUBLIC}/issues/1/milestone", {"milestone": str(v1)}).status == 303
    assert bob.post(f"{PUBLIC}/issues/1/assignees", {"assignees": "bob, alice"}).status == 303
    unknown = bob.post(f"{PUBLIC}/issues/1/assignees", {"assignees": "nobody"})
    assert unknown.status == 422 and field_error_shown(unknown, "assignees", "does not exist")
    issue = _api(api, scene, "GET", "/issues/1").json
    assert issue["title"] == "Typo fixed" and issue["body"] == "body"
    assert [l["name"] for l in issue["labels"]] == ["bug"]
    assert issue["milestone"]["id"] == v1
    assert sorted(a["login"] for a in issue["assignees"]) == ["alice", "bob"]
    # Close and reopen with the buttons beside Comment.
    assert carol.post(f"{PUBLIC}/issues/1/comments", {"status": "close"}).status == 303
    assert _api(api, scene, "GET", "/issues/1").json["state"] == "closed"
    assert carol.post(f"{PUBLIC}/issues/1/comments", {"status": "reopen"}).status == 303
    assert _api(api, scene, "GET", "/issues/1").json["state"] == "open"
    assert bob.post(f"{PUBLIC}/issues/1/labels", [("labels", str(bug))], csrf=None).status == 403
    shown = events_of(text(carol.get(f"{PUBLIC}/issues/1")))
    assert "carol changed the title from Typo to Typo fixed" in shown[0]
    assert any("bob added the bug label" in s for s in shown)
    assert any("bob added this to the v1 milestone" in s for s in shown)
    assert any("bob assigned alice" in s for s in shown)
    assert any(s.startswith("carol closed this issue") for s in shown)
    assert any(s.startswith("carol reopened this issue") for s in shown)


def test_markdown_preview(api, scene):
    alice = scene["alice"]
    token = alice.token(f"{PUBLIC}/issues/new")
    shown = alice.post(f"{PUBLIC}/markup", {"text": "**bold** <script>x</script>"}, csrf=token)
    assert shown.status == 200 and "<strong>bold</strong>" in text(shown)
    assert "<script>" not in text(shown)
    assert alice.post(f"{PUBLIC}/markup", {"text": "x"}, csrf=None).status == 403
    assert scene["carol"].post("/alice/secret/markup", {"text": "x"}).status == 404


# Labels and milestones --------------------------------------------------------------

def test_labels_page(api, scene):
    alice, carol = scene["alice"], scene["carol"]
    assert alice.post(f"{PUBLIC}/labels/new", {"name": "bug", "color": "#ee0701",
                                               "description": "Broken",
                                               "exclusive": "on"}).status == 303
    bad = alice.post(f"{PUBLIC}/labels/new", {"name": "oops", "color": "red"})
    assert bad.status == 422 and field_error_shown(bad, "color", "color must be")
    assert 'value="oops"' in text(bad)
    labels = _api(api, scene, "GET", "/labels").json
    assert [(l["name"], l["color"], l["exclusive"]) for l in labels] == [("bug", "ee0701", True)]
    page = carol.get(f"{PUBLIC}/labels")
    assert page.status == 200 and "background:#ee0701" in text(page) and "Broken" in text(page)
    assert 'action="/alice/proj/labels/new"' not in text(page)
    label_id = labels[0]["id"]
    assert carol.post(f"{PUBLIC}/labels/edit", {"id": label_id, "name": "x",
                                                "color": "#000000"}).status == 403
    assert alice.post(f"{PUBLIC}/labels/edit", {"id": label_id, "name": "defect",
                                                "color": "#00ff00"}).status == 303
    wrong = alice.post(f"{PUBLIC}/labels/edit", {"id": label_id, "name": "defect",
                                                 "color": "#zz"})
    assert wrong.status == 422 and "color must be" in text(wrong)
    assert _api(api, scene, "GET", "/labels").json[0]["name"] == "defect"
    assert alice.post(f"{PUBLIC}/labels/delete", {"id": label_id}).status == 303
    assert _api(api, scene, "GET", "/labels").json == []
    assert scene["carol"].get("/alice/secret/labels").status == 404


def test_milestones_page(api, scene):
    alice, carol = scene["alice"], scene["carol"]
    assert alice.get(f"{PUBLIC}/milestones/new").status == 200
    assert carol.get(f"{PUBLIC}/milestones/new").status == 403
    assert alice.post(f"{PUBLIC}/milestones/new", {"title": "v1", "deadline": "2030-01-31",
                                                   "description": "First"}).status == 303
    bad = alice.post(f"{PUBLIC}/milestones/new", {"title": "v2", "deadline": "soon"})
    assert bad.status == 422 and field_error_shown(bad, "deadline", "YYYY-MM-DD")
    found = _api(api, scene, "GET", "/milestones").json
    assert [(m["title"], m["due_on"][:10]) for m in found] == [("v1", "2030-01-31")]
    mid = found[0]["id"]
    assert _api(api, scene, "POST", "/issues", {"title": "a", "milestone": mid}).status == 201
    assert _api(api, scene, "POST", "/issues", {"title": "b", "milestone": mid,
                                                "closed": True}).status == 201
    page = carol.get(f"{PUBLIC}/milestones")
    assert page.status == 200 and "50%" in text(page) and "due 2030-01-31" in text(page)
    assert "1 open · 1 closed" in text(page) and "/milestones/new" not in text(page)
    assert alice.get(f"{PUBLIC}/milestones/{mid}/edit").status == 200
    assert alice.post(f"{PUBLIC}/milestones/{mid}/edit", {"title": "v1.0",
                                                          "deadline": ""}).status == 303
    assert alice.post(f"{PUBLIC}/milestones/{mid}/close", {}).status == 303
    closed = _api(api, scene, "GET", "/milestones?state=closed").json
    assert [(m["title"], m["state"]) for m in closed] == [("v1.0", "closed")]
    assert "v1.0" in text(carol.get(f"{PUBLIC}/milestones?state=closed"))
    assert carol.post(f"{PUBLIC}/milestones/{mid}/open", {}).status == 403
    assert alice.post(f"{PUBLIC}/milestones/{mid}/open", {}).status == 303
    assert alice.post(f"{PUBLIC}/milestones/delete", {"id": mid}).status == 303
    assert _api(api, scene, "GET", "/milestones?state=all").json == []
