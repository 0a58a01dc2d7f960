"""Scenarios for an organization's labels: alice owns an organization of its own for
them (``label_org()``) with two labels; reads run against those, and each write gets a
label of its own.
"""
from __future__ import annotations

from scenarios_orgs import new_org
from scene import Req, Scene


def label_org(s: Scene) -> str:
    def make() -> str:
        name = new_org(s)
        for label in ("bug", "triage"):
            new_label(s, name, label)
        return name
    return s.once("label_org", make)


def new_label(s: Scene, org: str, name: str = "") -> int:
    return s.must("POST", f"/orgs/{org}/labels", "token",
                  {"name": name or s.unique("label"), "color": "#ee0701"})["id"]


def labels_path(s: Scene, label_id: int | None = None) -> str:
    path = f"/orgs/{label_org(s)}/labels"
    return path if label_id is None else f"{path}/{label_id}"


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        "orgListLabels": lambda s: [Req("GET", labels_path(s), "anon"),
                                    Req("GET", labels_path(s), "token")],
        "orgCreateLabel": lambda s: [Req("POST", labels_path(s), "token",
                                         {"name": s.unique("label"), "color": "#00ff00"},
                                         expect=201)],
        "orgGetLabel": lambda s: [Req("GET", labels_path(s, new_label(s, label_org(s))),
                                      "token")],
        "orgEditLabel": lambda s: [Req("PATCH", labels_path(s, new_label(s, label_org(s))),
                                       "token", {"color": "#0000ff"})],
        "orgDeleteLabel": lambda s: [Req("DELETE", labels_path(s, new_label(s, label_org(s))),
                                         "token", expect=204)],
    }


# Reads: the token and the caller (two batches, with a token), the organization by its
# name (one Query of the name index; it cannot be preloaded: the label item's key needs
# the organization's id), then its label item (one GetItem).  A write adds alice's
# membership (is she an owner: one GetItem) and one conditional put; a create's label
# id comes from the process's block of ids (a counter update once in 16 creates).
BUDGETS = {
    ("orgListLabels", "anon"): 2,
    ("orgListLabels", "token"): 4,
    ("orgGetLabel", "token"): 4,
    ("orgCreateLabel", "token"): 6,
    ("orgEditLabel", "token"): 6,
    ("orgDeleteLabel", "token"): 6,
}
