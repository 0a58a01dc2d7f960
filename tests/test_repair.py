"""Reads never fail on stored data, and `admin repair` fixes what breaks the rules
(issue 10, item 2)."""
from __future__ import annotations

from chalicelib.issues.options import CreateMilestoneOption
from chalicelib import repair
from tests.conftest import ADMIN, drain_outbox

R = "/repos/alice/proj"


def _scene(api):
    api.create_user("alice")
    token = api.create_token("alice")
    assert api.post("/user/repos", token=token, json={"name": "proj"}).status == 201
    assert api.post(f"{R}/issues", token=token, json={"title": "first"}).status == 201
    assert api.post(f"{R}/issues/1/comments", token=token, json={"body": "c"}).status == 201
    milestone = api.post(f"{R}/milestones", token=token, json={"title": "v1"}).json
    assert api.post(f"{R}/issues/1/times", token=token, json={"time": 60}).status == 200
    return token, milestone["id"]


def _stored(sk_prefix: str) -> dict:
    from chalicelib import aws
    from chalicelib.store.table import Item

    items = aws.client("dynamodb").scan(TableName=Item.Meta.table_name)["Items"]
    return next(i for i in items if i["sk"]["S"].startswith(sk_prefix))


def _write_behind_the_rules(item: dict, path: str, names: dict, value: str) -> None:
    """What an older version could store (straight to the table, no input rules)."""
    from chalicelib import aws
    from chalicelib.store.table import Item

    aws.client("dynamodb").update_item(
        TableName=Item.Meta.table_name, Key={"pk": item["pk"], "sk": item["sk"]},
        UpdateExpression=f"SET {path} = :v", ExpressionAttributeNames=names,
        ExpressionAttributeValues={":v": {"S": value}})


def test_repair_cuts_oversized_stored_texts(api, capsys):
    from chalicelib import cli

    token, milestone_id = _scene(api)
    _write_behind_the_rules(_stored("ITRACKER"), "milestones.#m.#d",
                            {"#m": str(milestone_id), "#d": "description"}, "d" * 100_000)
    _write_behind_the_rules(_stored("ISSUE#"), "#t", {"#t": "title"}, "t" * 1000)
    assert api.get(f"{R}/milestones", token=token).status == 200
    drain_outbox()

    assert cli.main(["--aws", "admin", "repair", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "milestones.*.description: 100000 characters, more than 2048" in out
    assert "issue R#" in out and "title: 1000 characters, more than 255" in out
    assert out.strip().endswith("would fix 2 record(s)")
    assert drain_outbox() == []                                  # a dry run writes nothing

    assert cli.main(["--aws", "admin", "repair"]) == 0
    assert capsys.readouterr().out.strip().endswith("fixed 2 record(s)")
    repaired = drain_outbox()
    assert sorted(e.kind for e in repaired) == ["issue", "issuetracker"]
    assert all(type(e).__name__ == "RecordRepaired" and e.problems for e in repaired)

    for path in ("/issues?state=all", "/issues/1/comments", "/issues/comments", "/labels",
                 "/milestones", "/issues/1/times"):
        assert api.get(R + path, token=token).status == 200, path
    milestone = api.get(f"{R}/milestones/{milestone_id}", token=token).json
    assert len(milestone["description"]) == CreateMilestoneOption.max_lengths["description"]
    assert api.get(f"{R}/issues/1", token=token).json["title"] == "t" * 255
    assert milestone["open_issues"] == 0 and milestone["title"] == "v1"   # the rest is kept

    assert cli.main(["--aws", "admin", "repair"]) == 0
    assert capsys.readouterr().out.strip() == "fixed 0 record(s)"


def test_lone_surrogates_are_found_and_replaced(aws):
    from chalicelib.issues.store import IssueTracker
    from chalicelib.issues.models import Comment

    comment = Comment(pk="R#1", sk="COMMENT#1#1", id=1, repo_id=1, issue_number=1, issue_id=1,
                      poster_id=1, body="a\ud800b", created=0, updated=0)
    changes, findings = repair.inspect(comment)
    assert changes == {"body": "a\ufffdb"}
    assert [(f.field, f.problem) for f in findings] == [("body", "lone surrogate")]

    tracker = IssueTracker(pk="R#1", sk="ITRACKER", labels={"7": {"name": "\udfff" + "x" * 60,
                                                                  "color": "#fff"}})
    changes, findings = repair.inspect(tracker)
    assert changes["labels"]["7"] == {"name": "\ufffd" + "x" * 49, "color": "#fff"}
    assert {f.problem for f in findings} == {"lone surrogate", "61 characters, more than 50"}


def test_rendering_replaces_a_stored_lone_surrogate():
    from chalicelib.http.message import ApiResponse

    body = ApiResponse.json([{"title": "a\ud800b", "body": "pair \U0001f600 kept"}]).body
    assert body.decode("utf-8") == '[{"title":"a\ufffdb","body":"pair \U0001f600 kept"}]\n'


def test_repair_lists_users_written_before_the_user_index(api, capsys):
    """A user stored by an older version is not in the user index (gsi2 ``USERS``), so
    ``/admin/users`` misses it until ``admin repair`` indexes it."""
    from chalicelib import aws, cli
    from chalicelib.store.table import Item

    api.create_user("old")
    stored = next(i for i in aws.client("dynamodb").scan(TableName=Item.Meta.table_name)["Items"]
                  if i["sk"]["S"] == "A" and i["login"]["S"] == "old")
    aws.client("dynamodb").update_item(
        TableName=Item.Meta.table_name, Key={"pk": stored["pk"], "sk": stored["sk"]},
        UpdateExpression="REMOVE gsi2pk, gsi2sk")
    assert [u["login"] for u in api.get("/admin/users", auth=ADMIN).json] == ["root"]
    assert cli.main(["--aws", "admin", "repair"]) == 0
    assert "gsi2pk: not in the user index" in capsys.readouterr().out
    assert [u["login"] for u in api.get("/admin/users", auth=ADMIN).json] == ["old", "root"]
