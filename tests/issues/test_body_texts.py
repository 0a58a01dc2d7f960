"""The issue tracker's 422 texts for wrongly typed bodies, as the rules gave them before
the bodies were checked at the edge (clients may match them), and the values the rules
let through."""
import pytest

from tests.conftest import owner_and_writer


@pytest.fixture
def api(fast_api):
    """These texts are the rules' and need no moto: the in-memory twin (the fast layer)."""
    return fast_api

R = "/repos/alice/open"


@pytest.fixture
def people(api):
    """alice owns ``alice/open``, bob writes to it, carol is a stranger."""
    tokens = owner_and_writer(api)
    api.create_user("carol")
    tokens["carol"] = api.create_token("carol")
    return tokens


@pytest.mark.parametrize("who", ["bob", "carol"])
@pytest.mark.parametrize("labels, message", [
    (["x"], "[Labels]: expected a list of integers"),
    ([1, True], "[Labels]: expected a list of integers"),
    ([1.5], "[Labels]: expected a list of integers"),
    ([None], "[Labels]: expected a list of integers"),
    ("1", "[Labels]: expected a list"),
])
def test_issue_labels_of_another_type(api, people, who, labels, message):
    r = api.post(f"{R}/issues", token=people[who], json={"title": "t", "labels": labels})
    assert r.status == 422, r
    assert r.json["message"] == message


@pytest.mark.parametrize("method, path", [("POST", f"{R}/labels"), ("PATCH", f"{R}/labels/ID")])
@pytest.mark.parametrize("color", [5, True, ["#00aabb"], {}])
def test_label_color_that_is_not_a_text(api, people, method, path, color):
    alice = people["alice"]
    label = api.post(f"{R}/labels", token=alice, json={"name": "bug", "color": "#ee0701"})
    assert label.status == 201, label
    r = api.request(method, path.replace("ID", str(label.json["id"])), token=alice,
                    json={"name": "other", "color": color})
    assert r.status == 422, r
    assert r.json["message"] == "[Color]: color must be #rrggbb or rrggbb"


@pytest.mark.parametrize("state", ["x", "Open", "all"])
def test_milestone_state_out_of_the_enum(api, people, state):
    r = api.post(f"{R}/milestones", token=people["alice"], json={"title": "v1", "state": state})
    assert r.status == 422, r
    assert r.json["message"] == "[State]: must be open or closed"


@pytest.mark.parametrize("state", ["", None])
def test_milestone_state_empty_or_null_is_open(api, people, state):
    r = api.post(f"{R}/milestones", token=people["alice"], json={"title": "v1", "state": state})
    assert r.status == 201, r
    assert r.json["state"] == "open"


def test_assignees_that_are_not_names_are_dropped(api, people):
    alice, bob = people["alice"], people["bob"]
    r = api.post(f"{R}/issues", token=alice,
                 json={"title": "t", "assignees": ["bob", 5, None, True, ["alice"]]})
    assert r.status == 201, r
    assert [a["login"] for a in r.json["assignees"]] == ["bob"]
    number = r.json["number"]
    r = api.patch(f"{R}/issues/{number}", token=bob, json={"assignees": [{"login": "alice"}]})
    assert r.status == 201, r
    assert r.json["assignees"] is None
    r = api.patch(f"{R}/issues/{number}", token=bob, json={"assignees": [7, "alice"]})
    assert r.status == 201, r
    assert [a["login"] for a in r.json["assignees"]] == ["alice"]


def test_a_missing_title_is_reported_before_a_wrongly_typed_field(api, people):
    """The rule checked the title first; the edge reports missing fields before types."""
    r = api.post(f"{R}/issues", token=people["bob"], json={"body": 5})
    assert r.status == 422, r
    assert r.json["message"] == "[Title]: Required"
