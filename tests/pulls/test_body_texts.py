"""The pull requests' 422 texts for wrongly typed bodies, as the rules gave them before
the bodies were checked at the edge (clients may match them), and the values the rules
let through."""
import pytest

from tests.conftest import drain_outbox, owner_and_writer
from tests.pulls.test_pulls import push_main_and_feature


@pytest.fixture
def api(fast_api):
    """These texts are the rules' and need no moto: the in-memory twin (the fast layer)."""
    return fast_api

R = "/repos/alice/open"
PULL = {"head": "feature", "base": "main", "title": "Add a"}


@pytest.fixture
def people(api):
    """alice owns ``alice/open`` with ``main`` and ``feature``, bob writes to it, carol is
    a stranger."""
    tokens = owner_and_writer(api)
    api.create_user("carol")
    tokens["carol"] = api.create_token("carol")
    push_main_and_feature(api, tokens["alice"], "open")
    drain_outbox()
    return tokens


LABELS = [
    (["x"], "[Labels]: expected a list of integers"),
    ([1, True], "[Labels]: expected a list of integers"),
    ([2.5], "[Labels]: expected a list of integers"),
    ("1", "[Labels]: expected a list"),
]


@pytest.mark.parametrize("who", ["bob", "carol"])
@pytest.mark.parametrize("labels, message", LABELS)
def test_open_with_labels_of_another_type(api, people, who, labels, message):
    r = api.post(f"{R}/pulls", token=people[who], json={**PULL, "labels": labels})
    assert r.status == 422, r
    assert r.json["message"] == message


@pytest.mark.parametrize("labels, message", LABELS)
def test_edit_with_labels_of_another_type(api, people, labels, message):
    number = api.post(f"{R}/pulls", token=people["carol"], json=PULL).json["number"]
    r = api.patch(f"{R}/pulls/{number}", token=people["bob"], json={"labels": labels})
    assert r.status == 422, r
    assert r.json["message"] == message


def test_assignees_that_are_not_names_are_dropped(api, people):
    bob = people["bob"]
    r = api.post(f"{R}/pulls", token=bob, json={**PULL, "assignees": ["alice", 5, None]})
    assert r.status == 201, r
    assert [a["login"] for a in r.json["assignees"]] == ["alice"]
    r = api.patch(f"{R}/pulls/{r.json['number']}", token=bob,
                  json={"assignees": [False, "bob", {"login": "alice"}]})
    assert r.status == 201, r
    assert [a["login"] for a in r.json["assignees"]] == ["bob"]


@pytest.mark.parametrize("style, alias, name, alias_text, name_text", [
    ("merge", "merge_title_field", "MergeTitleField",
     "[MergeTitleField]: expected a string", "[Mergetitlefield]: expected a string"),
    ("merge", "merge_message_field", "MergeMessageField",
     "[MergeMessageField]: expected a string", "[Mergemessagefield]: expected a string"),
    ("manually-merged", "merge_commit_id", "MergeCommitID",
     "[MergeCommitId]: expected a string", "[Mergecommitid]: expected a string"),
])
@pytest.mark.parametrize("value", [5, True, ["x"]])
def test_merge_field_sent_by_its_snake_case_name(api, people, style, alias, name, alias_text,
                                                 name_text, value):
    """Named as sent: by Gitea's snake-case alias, or by the Go name (as the binding
    names it)."""
    alice = people["alice"]
    assert api.patch(R, token=alice, json={"allow_manual_merge": True}).status == 200
    number = api.post(f"{R}/pulls", token=people["bob"], json=PULL).json["number"]
    r = api.post(f"{R}/pulls/{number}/merge", token=alice, json={"do": style, alias: value})
    assert r.status == 422, r
    assert r.json["message"] == alias_text
    r = api.post(f"{R}/pulls/{number}/merge", token=alice, json={"Do": style, name: value})
    assert r.status == 422, r
    assert r.json["message"] == name_text
