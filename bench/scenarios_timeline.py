"""An issue's timeline (issueGetCommentsAndTimeline) with events: the reviewed pull
request of scenarios_reviews (comments, reviews, a review request) retitled, labelled,
closed and reopened, so its timeline holds every kind of item it reads.  Replaces the
reviews module's scenario and budget for the operation (registered after it).
"""
from __future__ import annotations

from scenarios_pulls import DEMO
from scenarios_reviews import busy_pull
from scene import Req

# The issue routes' two batches, one Query of the comments together with the events (one
# key prefix), one of the references and, for a pull request, one of its reviews: 5.
# When a reference comes from another issue or a comment of the repository, one
# BatchGetItem more reads those (6); never a read per entry.
BUDGETS = {
    ("issueGetCommentsAndTimeline", "anon"): 5,
    ("issueGetCommentsAndTimeline", "token"): 5,
}


def eventful_pull(s) -> int:
    """The busy pull request with a title change, a label, a close and a reopen (once)."""
    def make() -> int:
        number = busy_pull(s)
        label = s.must("POST", f"{DEMO}/labels", "token",
                       {"name": s.unique("label"), "color": "#00aabb"}, 201)["id"]
        s.must("PATCH", f"{DEMO}/issues/{number}", "token", {"title": s.unique("title ")}, 201)
        s.must("POST", f"{DEMO}/issues/{number}/labels", "token", {"labels": [label]}, 200)
        for state in ("closed", "open"):
            s.must("PATCH", f"{DEMO}/pulls/{number}", "token", {"state": state}, 201)
        return number
    return s.once("eventful_pull", make)


def scenarios() -> dict:
    return {
        "issueGetCommentsAndTimeline": lambda s: [
            Req("GET", f"{DEMO}/issues/{eventful_pull(s)}/timeline"),
            Req("GET", f"{DEMO}/issues/{eventful_pull(s)}/timeline", "token")],
    }
