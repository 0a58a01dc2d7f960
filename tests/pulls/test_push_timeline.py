"""A push to an open pull request's head records Forgejo's ``pull_push`` timeline entry
in the transaction that moves the head (``pulls/sync.py``), on the in-memory twin: who
pushed, the new commits oldest first, a force push marked with the old and new heads;
the same push handled twice records it once; a branch no open pull request has as its
head records nothing."""
from __future__ import annotations

import json

from chalicelib import accounts, issues
from chalicelib.gitstore import refdb
from chalicelib.pulls import sync as pull_sync
from tests.pulls.test_rules import commit_file, open_pull, project, tip  # noqa: F401

HEAD = "refs/heads/feature"


def push_entries(project, number=1) -> list[dict]:
    read = issues.issue_timeline(project["alice"], number)
    return [json.loads(f.item.body) | {"poster": json.loads(f.poster).get("login")}
            for f in read.entries if f.type == "pull_push"]


def handle_push(project, before: str, after: str, ref: str = HEAD, name: str = "bob") -> None:
    """The pull requests' consumer handling one push event, as the queue delivers it."""
    actor = accounts.account_by_name(name)
    pull_sync.on_push(int(project.view.repo.id), ref, int(actor.id), before, after)


def test_two_commits_pushed_are_recorded_once_even_when_the_push_is_handled_twice(project):
    open_pull(project["bob"])
    before = tip(project, "feature")
    first = commit_file(project, "b.txt", "b\n", branch="feature")
    second = commit_file(project, "c.txt", "c\n", branch="feature")
    handle_push(project, before, second)
    handle_push(project, before, second)      # at-least-once delivery
    assert push_entries(project) == [{"is_force_push": False, "commit_ids": [first, second],
                                      "poster": "bob"}]
    read = issues.issue_timeline(project["alice"], 1)
    body = next(f.item.body for f in read.entries if f.type == "pull_push")
    assert body == json.dumps({"is_force_push": False, "commit_ids": [first, second]},
                              separators=(",", ":"))


def test_a_force_push_is_marked_with_the_old_and_the_new_head(project):
    open_pull(project["bob"])
    old = tip(project, "feature")
    other = commit_file(project, "d.txt", "d\n", new_branch="other")   # from main
    assert refdb.put_ref(int(project.view.repo.id), HEAD, other, old)
    handle_push(project, old, other)
    assert push_entries(project) == [{"is_force_push": True, "commit_ids": [old, other],
                                      "poster": "bob"}]


def test_a_push_the_base_gets_or_no_pull_request_has_records_nothing(project):
    open_pull(project["bob"])
    before = tip(project, "main")
    after = commit_file(project, "e.txt", "e\n")            # the base moves
    handle_push(project, before, after, ref="refs/heads/main")
    lone = commit_file(project, "f.txt", "f\n", new_branch="lonely")
    handle_push(project, before, lone, ref="refs/heads/lonely")
    assert push_entries(project) == []
