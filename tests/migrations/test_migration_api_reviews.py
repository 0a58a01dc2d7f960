"""After a project migration, through the normal API: the pull request's reviews and
their code comments with Forgejo's field types, assignees, milestones' due dates, and
the migrated issues found by a keyword search (the index takes them once the
repository exists, a page per event)."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from chalicelib import events, migrations, search
from chalicelib.migrations.project import Page
from tests.migrations.test_migration_api import alice, form, remote  # noqa: F401
from tests.migrations.test_review_import_rules import ReviewedSource
from tests.repo_admin.test_migrations import local_networks_allowed  # noqa: F401


@dataclass
class SearchableSource(ReviewedSource):
    def issues(self, page: int, per_page: int) -> Page:
        found = super().issues(page, per_page)
        items = [type(i)(**{**i.__dict__, "title": f"{i.title} quokka" if i.number == 2
                            else i.title}) for i in found.items]
        return Page(items, found.last)


@pytest.fixture
def source(remote):  # noqa: F811
    fake = SearchableSource(issues_n=2, pulls_n=1, head_sha=remote["head"])
    migrations.use_source_opener(lambda *a, **kw: fake)
    yield fake
    migrations.use_source_opener(None)


def run_queued(limit: int = 500) -> list:
    """The migration's steps and the search index's events, as their workers run them;
    the index's events taken."""
    from tests.conftest import drain_outbox

    indexed = []
    for _ in range(limit):
        waiting = drain_outbox()
        if not waiting:
            return indexed
        for event in waiting:
            if isinstance(event, events.MigrationStepDue):
                migrations.on_event(event)
            elif search.wants_event(event) and isinstance(event, search.EVENT_TYPES):
                search.on_event(event)
                indexed.append(event)
    return indexed


def test_reviews_assignees_milestones_and_search(api, alice, remote, source,  # noqa: F811
                                                 local_networks_allowed):  # noqa: F811
    assert api.post("/repos/migrate", token=alice, json=form(remote)).status == 201
    run_queued()
    assert api.get("/repos/alice/proj/migration", token=alice).json["status"] == "done"

    listed = api.get("/repos/alice/proj/pulls/3/reviews", token=alice)
    assert listed.status == 200, listed
    approval, rejection = listed.json
    assert approval["state"] == "APPROVED" and rejection["state"] == "REQUEST_CHANGES"
    assert approval["user"]["login"] == "alice" and approval["body"] == "lgtm"
    assert approval["commit_id"] == "d" * 40 and approval["official"] is True
    assert approval["stale"] is False and approval["dismissed"] is False
    assert isinstance(approval["id"], int) and approval["comments_count"] == 3
    assert approval["submitted_at"] == "2023-11-14T22:18:20Z" and approval["team"] is None
    assert rejection["user"]["login"] == "alice"          # the migrator stands in
    notes = api.get(f"/repos/alice/proj/pulls/3/reviews/{approval['id']}/comments",
                    token=alice).json
    assert [(n["path"], n["position"], n["original_position"]) for n in notes] == [
        ("a.txt", 1, 0), ("a.txt", 0, 2), ("a.txt", 3, 0)]
    first = notes[0]
    assert first["body"] == "line note 0" and first["pull_request_review_id"] == approval["id"]
    assert isinstance(first["id"], int) and first["diff_hunk"].startswith("@@")
    assert first["created_at"] == "2023-11-14T22:23:20Z"
    assert first["user"]["login"] == "alice"             # the migrator stands in

    one = api.get("/repos/alice/proj/issues/1", token=alice).json
    assert [a["login"] for a in one["assignees"]] == ["alice"]
    assert one["assignee"]["login"] == "alice"
    milestones = api.get("/repos/alice/proj/milestones?state=all", token=alice).json
    due = {m["title"]: (m["due_on"], m["state"], m["closed_at"]) for m in milestones}
    assert due["v1"][0] == "2023-11-15T00:43:20Z" and due["v1"][1] == "open"
    assert due["v0"][1] == "closed" and due["v0"][2] == "2023-11-14T22:14:10Z"

    found = api.get("/repos/alice/proj/issues?q=quokka&state=all", token=alice)
    assert found.status == 200 and [i["number"] for i in found.json] == [2]
    across = api.get("/repos/issues/search?q=quokka&state=all", token=alice).json
    assert [i["number"] for i in across] == [2]
    pulls_found = api.get("/repos/alice/proj/issues?q=pull&type=pulls&state=all",
                          token=alice).json
    assert [i["number"] for i in pulls_found] == [3]
