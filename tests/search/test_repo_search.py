"""Repository search through the API: under moto (the index kept current as commits
land, as the event pipeline does) and on the local runtime with its event pipeline,
where a creation, a visibility change, an owner's rename and a deletion reach the
search within the event delay."""
from __future__ import annotations

import time

from tests.local_server import BOSS, call, make_user, runtime_with_events


def names(resp) -> list[str]:
    return [r["full_name"] for r in resp.json["data"]]


def test_search_pages_sorts_and_hides_private_repositories(api):
    api.create_user("alice")
    alice = api.create_token("alice")
    for name, private in (("tool-one", False), ("tool-two", False), ("toolbox", True),
                          ("other", False)):
        assert api.post("/user/repos", token=alice,
                        json={"name": name, "private": private}).status == 201
    assert names(api.get("/repos/search?q=TOOL")) == ["alice/tool-one", "alice/tool-two"]
    assert names(api.get("/repos/search?q=tool", token=alice)) == [
        "alice/tool-one", "alice/tool-two", "alice/toolbox"]
    assert names(api.get("/repos/search?q=tool&sort=created&order=desc", token=alice)) == [
        "alice/toolbox", "alice/tool-two", "alice/tool-one"]
    first = api.get("/repos/search?q=ool&limit=1&page=1", token=alice)
    second = api.get("/repos/search?q=ool&limit=1&page=2", token=alice)
    assert names(first) == ["alice/tool-one"] and names(second) == ["alice/tool-two"]
    assert int(first.headers["x-total-count"]) == 3
    assert api.get("/repos/search?q=tool&is_private=true").json["data"] == []
    assert api.get("/repos/search?sort=alpha&order=sideways").status == 422


def wait_for(check, what: str, timeout: float = 20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def found(base: str, query: str) -> list[str]:
    status, body = call(base, "GET", f"/api/v1/repos/search?{query}", auth=None)
    assert status == 200
    return [r["full_name"] for r in body["data"]]


def issues_found(base: str, query: str) -> list[str]:
    status, body = call(base, "GET", f"/api/v1/repos/issues/search?{query}", auth=None)
    assert status == 200
    return [i["title"] for i in body]


def test_changes_reach_search_within_the_event_delay(tmp_path):
    with runtime_with_events(tmp_path / "data") as server:
        base = server.url
        dana = make_user(base, "dana")
        assert call(base, "POST", "/api/v1/user/repos", {"name": "findme"}, auth=dana)[0] == 201
        wait_for(lambda: found(base, "q=findme") == ["dana/findme"], "the new repository")
        assert call(base, "PUT", "/api/v1/repos/dana/findme/topics/gardening",
                    auth=dana)[0] == 204
        wait_for(lambda: found(base, "q=gardening&topic=true") == ["dana/findme"], "the topic")
        assert found(base, "q=garden") == ["dana/findme"]      # inside a topic, as Forgejo
        assert call(base, "DELETE", "/api/v1/repos/dana/findme/topics/gardening",
                    auth=dana)[0] == 204
        wait_for(lambda: found(base, "q=gardening&topic=true") == [], "the topic's removal")
        assert call(base, "POST", "/api/v1/repos/dana/findme/issues",
                    {"title": "Seedlings wilt"}, auth=dana)[0] == 201
        wait_for(lambda: issues_found(base, "q=seedlings") == ["Seedlings wilt"], "the issue")
        assert call(base, "PATCH", "/api/v1/repos/dana/findme", {"private": True},
                    auth=dana)[0] == 200
        wait_for(lambda: found(base, "q=findme") == [], "the repository to turn private")
        wait_for(lambda: issues_found(base, "q=seedlings") == [], "its issues to turn private")
        assert call(base, "PATCH", "/api/v1/repos/dana/findme", {"private": False},
                    auth=dana)[0] == 200
        assert call(base, "POST", "/api/v1/admin/users/dana/rename",
                    {"new_username": "daniela"}, auth=BOSS)[0] == 204
        wait_for(lambda: found(base, "q=findme") == ["daniela/findme"], "the owner's new name")
        assert call(base, "DELETE", "/api/v1/repos/daniela/findme", auth=BOSS)[0] == 204
        wait_for(lambda: found(base, "q=findme") == [], "the deletion")
        assert issues_found(base, "q=seedlings") == []


def test_the_cli_rebuilds_the_index(api, capsys):
    """An index lost (or never built): ``admin search reindex`` makes it again."""
    from chalicelib import cli
    from chalicelib.search.models import RepoEntry, RepoIndexDoc
    from chalicelib.store.table import Item

    api.create_user("erin")
    erin = api.create_token("erin")
    for name in ("rebuilt-one", "rebuilt-two"):
        assert api.post("/user/repos", token=erin, json={"name": name}).status == 201
    for item in list(Item.scan()):
        if isinstance(item, (RepoEntry, RepoIndexDoc)):
            item.delete()
    assert api.get("/repos/search?q=rebuilt").json["data"] == []
    assert cli.main(["--aws", "admin", "search", "reindex"]) == 0
    assert "indexed 2 repositories" in capsys.readouterr().out
    assert names(api.get("/repos/search?q=rebuilt")) == ["erin/rebuilt-one", "erin/rebuilt-two"]


def test_the_cli_rebuilds_the_issue_index(api, capsys):
    from chalicelib import cli
    from chalicelib.search.models import IssueEntry, IssueIndexDoc
    from chalicelib.store.table import Item

    api.create_user("erin")
    erin = api.create_token("erin")
    assert api.post("/user/repos", token=erin, json={"name": "tracked"}).status == 201
    assert api.post("/repos/erin/tracked/issues", token=erin,
                    json={"title": "Rebuilt issue"}).status == 201
    for item in list(Item.scan()):
        if isinstance(item, (IssueEntry, IssueIndexDoc)):
            item.delete()
    assert api.get("/repos/issues/search?q=rebuilt").json == []
    assert cli.main(["--aws", "admin", "search", "reindex"]) == 0
    assert "and 1 issues" in capsys.readouterr().out
    assert [i["title"] for i in api.get("/repos/issues/search?q=rebuilt").json] == [
        "Rebuilt issue"]
