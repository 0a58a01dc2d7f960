"""A commit added to a pull request's head branch through the API shows on its timeline,
once the events are delivered: the timeline API lists Forgejo's ``pull_push`` entry
(the pusher, the JSON body naming the commit) and the pull request's page says
"added 1 commit" with the short id linking to the commit's page.  In-process under
moto, through the gateway."""
from __future__ import annotations

import base64
import json

from tests.issues.test_timeline_events import deliver
from tests.pulls.test_pulls import R, open_pull, scene  # noqa: F401
from tests.web.test_web_timeline import clock, events_of, page_text  # noqa: F401


def test_a_commit_pushed_to_the_head_is_on_the_api_and_page_timelines(api, scene, clock):
    alice, bob = scene["alice"], scene["bob"]
    pull = open_pull(api, alice)
    deliver()
    clock.now += 10
    r = api.post(f"{R}/contents/b.txt", token=bob,
                 json={"content": base64.b64encode(b"b\n").decode(), "branch": "feature",
                       "message": "Add b"})
    assert r.status == 201, r
    sha = r.json["commit"]["sha"]
    deliver(deliver())      # each event delivered twice (at-least-once)

    timeline = api.get(f"{R}/issues/{pull['number']}/timeline", token=alice).json
    pushes = [e for e in timeline if e["type"] == "pull_push"]
    assert len(pushes) == 1, timeline
    assert pushes[0]["user"]["login"] == "bob"
    assert json.loads(pushes[0]["body"]) == {"is_force_push": False, "commit_ids": [sha]}

    text = page_text(api, f"/alice/proj/pulls/{pull['number']}")
    shown = [s for s in events_of(text) if "added 1 commit" in s]
    assert shown and shown[0].startswith("bob added 1 commit"), events_of(text)
    assert f'href="/alice/proj/commit/{sha}"' in text
