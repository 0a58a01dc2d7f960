"""An organization's labels through the API: its owners write them, whoever sees the
organization reads them, and the issues of its repositories carry them."""
from __future__ import annotations

import pytest

from chalicelib.http import schemas
from tests.accounts.test_users import assert_matches_forgejo

O = "/orgs/acme/labels"
R = "/repos/acme/app"


@pytest.fixture
def people(api):
    """acme (public), owned by olive, with ``acme/app``; tess writes there (a team
    member); sam is a stranger who owns ``sam/own``."""
    for name in ("olive", "tess", "sam"):
        api.create_user(name)
    tokens = {name: api.create_token(name) for name in ("olive", "tess", "sam")}
    assert api.post("/orgs", token=tokens["olive"], json={"username": "acme"}).status == 201
    assert api.post("/orgs/acme/repos", token=tokens["olive"], json={"name": "app"}).status == 201
    tid = api.post("/orgs/acme/teams", token=tokens["olive"], json={
        "name": "devs", "permission": "write", "includes_all_repositories": True}).json["id"]
    assert api.put(f"/teams/{tid}/members/tess", token=tokens["olive"]).status == 204
    assert api.post("/user/repos", token=tokens["sam"], json={"name": "own"}).status == 201
    return tokens


def new_label(api, token, name, color="#ee0701", **fields):
    resp = api.post(O, token=token, json={"name": name, "color": color, **fields})
    assert resp.status == 201, resp
    return resp.json


def test_crud_and_the_record(api, people):
    olive = people["olive"]
    bug = new_label(api, olive, "bug", "#EE0701", description="broken")
    assert_matches_forgejo(bug, "Label")
    assert set(bug) == set(schemas.RECORDS["Label"])
    assert bug["color"] == "ee0701" and bug["description"] == "broken"
    assert bug["exclusive"] is False and bug["is_archived"] is False
    assert bug["url"].endswith(f"/api/v1/orgs/acme/labels/{bug['id']}")
    new_label(api, olive, "area/ui", "00ff00", exclusive=True)
    listed = api.get(O)
    assert listed.status == 200 and listed.headers["x-total-count"] == "2"
    assert [lb["name"] for lb in listed.json] == ["area/ui", "bug"]
    assert [lb["name"] for lb in api.get(f"{O}?sort=reversealphabetically").json] == \
        ["bug", "area/ui"]
    assert [lb["name"] for lb in api.get(f"{O}?limit=1&page=2").json] == ["bug"]
    got = api.get(f"{O}/{bug['id']}", token=people["sam"])
    assert got.status == 200 and got.json == bug
    edited = api.patch(f"{O}/{bug['id']}", token=olive,
                       json={"name": "defect", "is_archived": True, "description": None})
    assert edited.status == 200
    assert edited.json == {**bug, "name": "defect", "is_archived": True}
    assert api.delete(f"{O}/{bug['id']}", token=olive).status == 204
    assert api.get(f"{O}/{bug['id']}", token=olive).status == 404
    assert api.delete(f"{O}/{bug['id']}", token=olive).status == 404
    assert [lb["name"] for lb in api.get(O).json] == ["area/ui"]
    # The repository's own labels are apart.
    assert api.get(f"{R}/labels").json == []


def test_who_may_write(api, people):
    bug = new_label(api, people["olive"], "bug")
    for who in ("tess", "sam"):            # a member, a stranger: 403
        token = people[who]
        assert api.post(O, token=token, json={"name": "x", "color": "#000000"}).status == 403
        assert api.patch(f"{O}/{bug['id']}", token=token, json={"name": "x"}).status == 403
        assert api.delete(f"{O}/{bug['id']}", token=token).status == 403
    assert api.post(O, json={"name": "x", "color": "#000000"}).status == 401
    assert api.get(f"{O}/{bug['id']}").status == 401        # Forgejo's reqToken
    assert api.get(O).status == 200                          # the list is public
    admin = api.post(O, auth=("root", "root-password-1"), json={"name": "ops",
                                                                 "color": "#000000"})
    assert admin.status == 201
    assert [lb["name"] for lb in api.get(O).json] == ["bug", "ops"]


def test_a_private_organization_is_404_to_outsiders(api, people):
    olive, sam = people["olive"], people["sam"]
    assert api.patch("/orgs/acme", token=olive, json={"visibility": "private"}).status == 200
    bug = new_label(api, olive, "bug")
    assert api.get(O, token=sam).status == 404
    assert api.get(O).status == 404
    assert api.get(f"{O}/{bug['id']}", token=sam).status == 404
    assert api.post(O, token=sam, json={"name": "x", "color": "#000000"}).status == 404
    assert api.delete(f"{O}/{bug['id']}", token=sam).status == 404
    assert [lb["name"] for lb in api.get(O, token=people["tess"]).json] == ["bug"]
    assert api.get("/orgs/nobody/labels").status == 404
    assert api.get("/orgs/sam/labels").status == 404          # a user, not an org


@pytest.mark.parametrize("body", [
    {"name": "x", "color": "red"}, {"name": "x", "color": "#12345"},
    {"name": "x", "color": ""}, {"name": "", "color": "#000000"}, {"color": "#000000"},
    {"name": "x" * 51, "color": "#000000"},
])
def test_bad_input_is_422(api, people, body):
    assert api.post(O, token=people["olive"], json=body).status == 422
    assert api.get(O).json == []


def test_bad_edits(api, people):
    olive = people["olive"]
    bug = new_label(api, olive, "bug")
    assert api.patch(f"{O}/{bug['id']}", token=olive, json={"color": "nope"}).status == 422
    assert api.patch(f"{O}/{bug['id']}", token=olive, json={"name": " "}).status == 422
    assert api.patch(f"{O}/424242", token=olive, json={"name": "x"}).status == 404
    assert api.get(f"{O}/424242", token=olive).status == 404
    assert api.get(f"{O}/{bug['id']}", token=olive).json == bug


def test_an_org_label_on_the_issues_of_its_repository(api, people):
    olive, tess = people["olive"], people["tess"]
    triage = new_label(api, olive, "triage")
    local = api.post(f"{R}/labels", token=olive, json={"name": "local",
                                                       "color": "#111111"}).json
    created = api.post(f"{R}/issues", token=tess, json={"title": "a", "labels": [triage["id"]]})
    assert created.status == 201
    assert [lb["name"] for lb in created.json["labels"]] == ["triage"]
    assert created.json["labels"][0]["url"] == triage["url"]
    assert api.post(f"{R}/issues", token=tess, json={"title": "b"}).status == 201
    added = api.post(f"{R}/issues/2/labels", token=tess,
                     json={"labels": ["triage", local["id"]]})
    assert added.status == 200
    assert [(lb["name"], lb["url"].split("/api/v1/")[1]) for lb in added.json] == [
        ("local", f"repos/acme/app/labels/{local['id']}"),
        ("triage", f"orgs/acme/labels/{triage['id']}")]
    issue = api.get(f"{R}/issues/2").json
    assert [lb["id"] for lb in issue["labels"]] == [local["id"], triage["id"]]
    assert [i["number"] for i in api.get(f"{R}/issues?labels=triage").json] == [2, 1]
    assert [i["number"] for i in api.get(f"{R}/issues?labels=triage,local").json] == [2]
    replaced = api.put(f"{R}/issues/2/labels", token=tess, json={"labels": [triage["id"]]})
    assert [lb["name"] for lb in replaced.json] == ["triage"]
    assert api.delete(f"{R}/issues/2/labels/{triage['id']}", token=tess).status == 204
    assert api.get(f"{R}/issues/2/labels").json == []


def test_another_owners_repository_ignores_the_label(api, people):
    """Forgejo skips a label that is neither the repository's nor its owner's."""
    triage = new_label(api, people["olive"], "triage")
    sam = people["sam"]
    created = api.post("/repos/sam/own/issues", token=sam,
                       json={"title": "a", "labels": [triage["id"]]})
    assert created.status == 201 and created.json["labels"] == []
    added = api.post("/repos/sam/own/issues/1/labels", token=sam,
                     json={"labels": [triage["id"], "triage"]})
    assert added.status == 200 and added.json == []


def test_a_deleted_label_leaves_its_issues_readable(api, people):
    olive, tess = people["olive"], people["tess"]
    gone = new_label(api, olive, "gone")
    kept = new_label(api, olive, "kept")
    assert api.post(f"{R}/issues", token=tess, json={
        "title": "a", "labels": [gone["id"], kept["id"]]}).status == 201
    assert api.delete(f"{O}/{gone['id']}", token=olive).status == 204
    issue = api.get(f"{R}/issues/1")
    assert issue.status == 200 and [lb["name"] for lb in issue.json["labels"]] == ["kept"]
    assert [lb["name"] for lb in api.get(f"{R}/issues/1/labels").json] == ["kept"]
    assert api.get(f"{R}/issues?labels=gone").json == []
    assert [i["number"] for i in api.get(f"{R}/issues").json] == [1]
    assert api.get(f"{R}/issues/1/timeline").status == 200
    added = api.post(f"{R}/issues/1/labels", token=tess, json={"labels": [gone["id"]]})
    assert added.status == 200 and [lb["name"] for lb in added.json] == ["kept"]


class DynamoCalls:
    """Counts the DynamoDB calls made while ``open``; registered once per process (the
    AWS module keeps its hooks), counting only inside ``counting()``."""
    counts: list[int] | None = None

    @classmethod
    def hook(cls, model, **_) -> None:
        if cls.counts is not None and model.service_model.service_name == "dynamodb":
            cls.counts[0] += 1

    @classmethod
    def counting(cls, send) -> int:
        from chalicelib import aws

        if not getattr(aws, "_org_label_test_hook", False):
            aws.add_call_hook(cls.hook)
            aws._org_label_test_hook = True
        cls.counts = [0]
        try:
            assert send().status == 200
            return cls.counts[0]
        finally:
            cls.counts = None


def test_the_org_labels_cost_an_issue_read_no_call(api, people):
    """The label item is in the issue routes' second batch, beside the tracker."""
    olive, sam = people["olive"], people["sam"]
    triage = new_label(api, olive, "triage")
    api.post(f"{R}/issues", token=olive, json={"title": "a", "labels": [triage["id"]]})
    api.post("/repos/sam/own/issues", token=sam, json={"title": "a"})
    in_org = DynamoCalls.counting(lambda: api.get(f"{R}/issues/1", token=olive))
    own = DynamoCalls.counting(lambda: api.get("/repos/sam/own/issues/1", token=sam))
    assert in_org == own
    assert DynamoCalls.counting(lambda: api.get(f"{R}/issues/1/labels")) == \
        DynamoCalls.counting(lambda: api.get("/repos/sam/own/issues/1/labels"))
