"""A pull request's pages in the browser (chalicelib/web/pull_pages, pull_view, the
reviewers form of actions_reviews), in-process under moto through the gateway: the same
tabs with the right counts on the conversation, commits and files pages, each page
showing its own part (the conversation no diff), and the sidebar's reviewers form
asking and withdrawing through the API's rules."""
from __future__ import annotations

import re

from tests.web.test_web_actions import (PUBLIC, field_error_shown, scene,  # noqa: F401
                                        text)

R = "/repos/alice/proj"
TABS = re.compile(r'<nav class="tabs pull-tabs" aria-label="Pull request">(.*?)</nav>', re.S)
TAB = re.compile(r'<a href="([^"]+)" data-tab="(\w+)"( aria-current="page")?>([^<]+)'
                 r'<span class="tab-count">(\d+)</span></a>')


def open_pull(api, scene) -> int:
    made = api.post(f"{R}/pulls", token=scene["tokens"]["alice"],
                    json={"head": "feature", "base": "main", "title": "Add feature"})
    assert made.status == 201, made
    return made.json["number"]


def tabs_of(resp) -> list[tuple]:
    """[(url, key, current, label, count)] of the page's pull request tabs."""
    assert resp.status == 200, resp
    [nav] = TABS.findall(text(resp))
    return [(url, key, bool(current), label.strip(), int(count))
            for url, key, current, label, count in TAB.findall(nav)]


def requested(api, scene, number: int) -> list[str]:
    record = api.get(f"{R}/pulls/{number}", token=scene["tokens"]["alice"]).json
    return [u["login"] for u in record.get("requested_reviewers") or []]


def test_the_same_tabs_on_every_page_with_their_counts(api, scene):
    number = open_pull(api, scene)
    alice = scene["tokens"]["alice"]
    assert api.post(f"{R}/issues/{number}/comments", token=alice,
                    json={"body": "first note"}).status == 201
    # bob's review and a pending one of carol's: the conversation shows bob's only.
    assert scene["bob"].post(f"{PUBLIC}/pulls/{number}/files/reviews/submit",
                             {"content": "Fine", "event": "APPROVED"}).status == 303
    assert scene["carol"].post(f"{PUBLIC}/pulls/{number}/files/reviews/comments",
                               {"path": "feature.txt", "line": "1", "content": "hm",
                                "mode": "review"}).status == 303
    base = f"{PUBLIC}/pulls/{number}"
    pages = {"conversation": base, "commits": f"{base}/commits", "files": f"{base}/files"}
    seen = {}
    for who in ("anonymous", "bob"):
        for key, path in pages.items():
            found = tabs_of(scene[who].get(path))
            assert [k for _, k, current, _, _ in found if current] == [key]
            seen[(who, key)] = [(url, k, label, count) for url, k, _, label, count in found]
    # Identical on the three pages (only the current one differs), for everyone.
    assert len(set(map(tuple, seen.values()))) == 1
    record = api.get(f"{R}/pulls/{number}", token=alice).json
    listed = api.get(f"{R}/pulls/{number}/commits", token=alice).json
    assert len(listed) == 1 and record["changed_files"] == 1
    assert seen[("bob", "files")] == [
        (base, "conversation", "Conversation", 2),      # one comment, one review
        (f"{base}/commits", "commits", "Commits", len(listed)),
        (f"{base}/files", "files", "Files changed", record["changed_files"])]
    # The count is what the conversation shows: the comment and bob's review.
    page = text(scene["bob"].get(base))
    assert "first note" in page and re.search(r'class="comment review approved"', page)


def test_each_page_shows_its_own_part(api, scene):
    number = open_pull(api, scene)
    base = f"{PUBLIC}/pulls/{number}"
    visitor = scene["anonymous"]
    conversation = text(visitor.get(base))
    # The conversation: description, the merge section, no diff and no file list.
    assert "No description provided." in conversation and 'aria-label="Merge"' in conversation
    assert "diff-table" not in conversation and 'id="files"' not in conversation
    assert "feature.txt" not in conversation and 'id="commits"' not in conversation
    # The issue URL of a pull request shows the same conversation.
    assert tabs_of(visitor.get(f"/alice/proj/issues/{number}"))[0][2] is True
    commits = visitor.get(f"{base}/commits")
    head = api.get(f"{R}/pulls/{number}", token=scene["tokens"]["alice"]).json["head"]["sha"]
    assert commits.status == 200 and head[:10] in text(commits)
    assert f'href="/alice/proj/commit/{head}"' in text(commits)
    assert "diff-table" not in text(commits)
    files = text(visitor.get(f"{base}/files"))
    assert 'class="diff-table highlight"' in files and "feature.txt" in files
    assert "new work" in files
    for path in (f"{base}/commits", f"{base}/files", base):
        assert visitor.get(path.replace(f"/{number}", "/99")).status == 404
    assert visitor.get(f"{PUBLIC}/pulls/abc/commits").status == 404
    # Private: the commits page is the 404 page to a stranger, as the others.
    assert api.post("/repos/alice/secret/contents/feature.txt", token=scene["tokens"]["alice"],
                    json={"content": "eA==", "new_branch": "feature"}).status == 201
    secret = api.post("/repos/alice/secret/pulls", token=scene["tokens"]["alice"],
                      json={"head": "feature", "base": "main", "title": "s"}).json["number"]
    assert scene["carol"].get(f"/alice/secret/pulls/{secret}/commits").status == 404
    assert scene["alice"].get(f"/alice/secret/pulls/{secret}/commits").status == 200


def test_request_and_withdraw_a_review(api, scene):
    number = open_pull(api, scene)
    action = f"{PUBLIC}/pulls/{number}/reviewers"
    alice, bob, carol = scene["alice"], scene["bob"], scene["carol"]
    # The poster and writers get the form; readers and visitors do not.
    for who in (alice, bob):
        assert f'action="{action}"' in text(who.get(f"{PUBLIC}/pulls/{number}"))
    for who in (carol, scene["anonymous"]):
        assert f'action="{action}"' not in text(who.get(f"{PUBLIC}/pulls/{number}"))

    asked = alice.post(action, {"action": "add", "reviewers": "bob"})
    assert asked.status == 303 and asked.headers["location"] == f"{PUBLIC}/pulls/{number}"
    assert requested(api, scene, number) == ["bob"]
    page = text(alice.get(f"{PUBLIC}/pulls/{number}"))
    assert 'name="reviewers" value="bob"' in page          # the withdraw button's form
    assert re.search(r'A review was requested from <strong>bob</strong>', page)

    # Someone who does not exist: beside the field, the typed names kept, nothing asked.
    unknown = bob.post(action, {"action": "add", "reviewers": "carol, nobody-here"})
    assert unknown.status == 422
    assert field_error_shown(unknown, "reviewers", "not exist")
    assert 'value="carol, nobody-here"' in text(unknown)
    assert requested(api, scene, number) == ["bob"]
    # The poster cannot be asked (the API's rule), beside the field too.
    poster = bob.post(action, {"action": "add", "reviewers": "alice"})
    assert poster.status == 422 and field_error_shown(poster, "reviewers", "poster")
    empty = bob.post(action, {"action": "add", "reviewers": " "})
    assert empty.status == 422 and field_error_shown(empty, "reviewers", "name someone")

    # A reader may not change the requests: 403, nothing written.
    assert carol.post(action, {"action": "add", "reviewers": "carol"}).status == 403
    assert carol.post(action, {"action": "remove", "reviewers": "bob"}).status == 403
    assert requested(api, scene, number) == ["bob"]
    # Without the form's token: 403, nothing written.
    assert alice.post(action, {"action": "remove", "reviewers": "bob"}, csrf=None).status == 403
    assert requested(api, scene, number) == ["bob"]
    # Visitors are sent to sign in; a missing pull request is a 404.
    assert scene["anonymous"].post(action, {"action": "add", "reviewers": "bob"}).status == 303
    assert alice.post(f"{PUBLIC}/pulls/99/reviewers",
                      {"action": "add", "reviewers": "bob"}).status == 404

    withdrawn = alice.post(action, {"action": "remove", "reviewers": "bob"})
    assert withdrawn.status == 303 and requested(api, scene, number) == []
    # Whoever was asked may withdraw their own request, as the API lets them.
    assert alice.post(action, {"action": "add", "reviewers": "carol"}).status == 303
    assert requested(api, scene, number) == ["carol"]
    assert carol.post(action, {"action": "remove", "reviewers": "carol"}).status == 303
    assert requested(api, scene, number) == []


def test_request_a_team_on_an_organization_repository(api, scene):
    token = scene["tokens"]["alice"]
    assert api.post("/orgs", token=token, json={"username": "acme"}).status == 201
    assert api.post("/orgs/acme/repos", token=token,
                    json={"name": "tools", "auto_init": True}).status == 201
    assert api.post("/repos/acme/tools/contents/feature.txt", token=token,
                    json={"content": "eA==", "new_branch": "feature"}).status == 201
    assert api.post("/orgs/acme/teams", token=token, json={
        "name": "gardeners", "permission": "read", "includes_all_repositories": True,
        "units": ["repo.code", "repo.pulls"]}).status == 201
    number = api.post("/repos/acme/tools/pulls", token=token, json={
        "head": "feature", "base": "main", "title": "Tools"}).json["number"]
    action = f"/acme/tools/pulls/{number}/reviewers"
    alice = scene["alice"]
    assert 'id="side-team-reviewers"' in text(alice.get(f"/acme/tools/pulls/{number}"))
    # A user's repository has no teams: no team field there.
    plain = open_pull(api, scene)
    assert 'id="side-team-reviewers"' not in text(alice.get(f"{PUBLIC}/pulls/{plain}"))

    def teams() -> list[str]:
        record = api.get(f"/repos/acme/tools/pulls/{number}", token=token).json
        return [t["name"] for t in record.get("requested_reviewers_teams") or []]

    unknown = alice.post(action, {"action": "add", "team_reviewers": "nobody"})
    assert unknown.status == 422
    assert field_error_shown(unknown, "team_reviewers", "not exist") and teams() == []
    assert alice.post(action, {"action": "add", "team_reviewers": "gardeners"}).status == 303
    assert teams() == ["gardeners"]
    shown = text(alice.get(f"/acme/tools/pulls/{number}"))
    assert re.search(r'team gardeners</span>\s*<form', shown)
    assert alice.post(action, {"action": "remove", "team_reviewers": "gardeners"}).status == 303
    assert teams() == []
