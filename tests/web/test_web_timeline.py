"""The issue page shows the issue's timeline events between its comments, in order and
escaped: a pushed "Closes #1" as "closed this issue in commit <short sha>" linking to the
commit page, the commit's reference, label, title, milestone and assignee changes; a pull
request's page its merge.  In-process under moto, through the gateway's HTML."""
from __future__ import annotations

import html as html_lib
import re
from types import SimpleNamespace

import pytest

from chalicelib import clock as nimbus_clock
from tests.issues.test_timeline_events import deliver
from tests.pulls.test_pulls import R, branch_to, open_pull, scene  # noqa: F401

T0 = 1_700_000_000
SCRIPT = "<script>alert('x')</script>"


@pytest.fixture
def clock():
    at = SimpleNamespace(now=T0)
    with nimbus_clock.driven_by(lambda: at.now):
        yield at


def page_text(api, path: str) -> str:
    r = api.get(path, raw=True)
    assert r.status == 200, r
    return r.body.decode("utf-8")


def events_of(text: str) -> list[str]:
    """Each event's sentence, tags stripped and spaces squeezed, in page order."""
    found = re.findall(r'<div class="event"[^>]*>(.*?)</div>', text, re.S)
    return [" ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", f)).split()) for f in found]


def test_issue_page_shows_events_between_comments(api, scene, clock):
    alice = scene["alice"]
    label = api.post(f"{R}/labels", token=alice, json={"name": SCRIPT, "color": "#ff0000"}).json
    milestone = api.post(f"{R}/milestones", token=alice, json={"title": "v1"}).json
    assert api.post(f"{R}/issues", token=alice, json={"title": "Crash"}).status == 201
    steps = [("PATCH", "/issues/1", {"title": f"Crash {SCRIPT}"}),
             ("POST", "/issues/1/labels", {"labels": [label["id"]]}),
             ("POST", "/issues/1/comments", {"body": "a comment"}),
             ("PATCH", "/issues/1", {"milestone": milestone["id"], "assignees": ["bob"]})]
    for offset, (method, path, body) in enumerate(steps, 1):
        clock.now = T0 + 10 * offset
        assert api.request(method, R + path, token=alice, json=body).status in (200, 201)
    clock.now = T0 + 100
    sha = branch_to(api, alice, "main", scene["base"], {"README.md": b"fixed\n"},
                    message="Fix the crash\n\nCloses #1")
    deliver()

    text = page_text(api, "/alice/proj/issues/1")
    assert SCRIPT not in text
    assert f'href="/alice/proj/commit/{sha}"' in text
    shown = events_of(text)
    assert [s.split(" ")[0] for s in shown] == ["alice"] * 6
    assert f"changed the title from Crash to Crash {SCRIPT}" in shown[0]
    assert f"added the {SCRIPT} label" in shown[1]
    assert "added this to the v1 milestone" in shown[2]
    assert "assigned bob" in shown[3]
    assert f"referenced this issue from commit {sha[:7]} Fix the crash" in shown[4]
    assert f"closed this issue in commit {sha[:7]}" in shown[5]
    assert len(shown) == 6
    # The comment sits between the label and the milestone events.
    assert text.index("a comment") > text.index("added the")
    assert text.index("a comment") < text.index("added this to the")


def test_pull_request_page_shows_the_merge(api, scene, clock):
    alice = scene["alice"]
    pull = open_pull(api, alice)
    clock.now = T0 + 10
    assert api.post(f"{R}/pulls/{pull['number']}/merge", token=alice,
                    json={"Do": "merge"}).status == 200
    deliver()
    shown = events_of(page_text(api, f"/alice/proj/pulls/{pull['number']}"))
    assert any("alice merged this pull request" in s for s in shown), shown
