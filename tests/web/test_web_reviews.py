"""Code review and branch protection in the browser (chalicelib/web/actions_reviews,
actions_protection, review_view), in-process under moto through the gateway: the
review form and the line comments land where the API reads them, the poster is offered
no verdict, refusals are shown on the form, the protection page is the 404 page to
everyone but admins and its forms make and delete the rules the API lists."""
from __future__ import annotations

import re

from tests.web.test_web_actions import (PRIVATE, PUBLIC, error_shown, scene,  # noqa: F401
                                        text)

SCRIPT = "<script>alert('x')</script>"
R = "/repos/alice/proj"


def open_pull(api, scene, repo: str = "proj") -> int:
    made = api.post(f"/repos/alice/{repo}/pulls", token=scene["tokens"]["alice"],
                    json={"head": "feature", "base": "main", "title": "Add feature"})
    assert made.status == 201, made
    return made.json["number"]


def reviews_of(api, scene, number: int) -> list[dict]:
    return api.get(f"{R}/pulls/{number}/reviews", token=scene["tokens"]["alice"]).json


def test_approve_through_the_form(api, scene):
    number = open_pull(api, scene)
    bob, alice, carol = scene["bob"], scene["alice"], scene["carol"]
    page = text(bob.get(f"{PUBLIC}/pulls/{number}"))
    assert 'action="/alice/proj/pulls/1/files/reviews/submit"' in page
    assert 'value="APPROVED"' in page and 'value="REQUEST_CHANGES"' in page
    # The poster may comment only; visitors get no form.
    own = text(alice.get(f"{PUBLIC}/pulls/{number}"))
    assert 'value="COMMENT"' in own and 'value="APPROVED"' not in own
    assert "files/reviews/submit" not in text(scene["anonymous"].get(f"{PUBLIC}/pulls/{number}"))

    done = bob.post(f"{PUBLIC}/pulls/{number}/files/reviews/submit",
                    {"content": "Looks **good**", "event": "APPROVED"})
    assert done.status == 303 and done.headers["location"] == f"{PUBLIC}/pulls/1#reviews"
    [review] = reviews_of(api, scene, number)
    assert review["state"] == "APPROVED" and review["user"]["login"] == "bob"
    assert review["official"] is True and review["body"] == "Looks **good**"
    shown = text(carol.get(f"{PUBLIC}/pulls/{number}"))
    assert f'id="issuecomment-{review["id"]}"' in shown and "<strong>good</strong>" in shown
    assert "state-approved" in shown

    # Refusals are Forgejo's messages, on the form, with the API's status.
    own_approval = alice.post(f"{PUBLIC}/pulls/{number}/files/reviews/submit",
                              {"content": "mine", "event": "APPROVED"})
    assert own_approval.status == 422
    assert error_shown(own_approval, "approve your own pull is not allowed")
    assert ">mine</textarea>" in text(own_approval)
    bare = carol.post(f"{PUBLIC}/pulls/{number}/files/reviews/submit",
                      {"content": "", "event": "REQUEST_CHANGES"})
    assert bare.status == 422 and error_shown(bare, "requires a body")
    odd = carol.post(f"{PUBLIC}/pulls/{number}/files/reviews/submit",
                     {"content": "x", "event": "MERGE_NOW"})
    assert odd.status == 422
    # A stranger may request changes on a public repository; the body is escaped.
    rejected = carol.post(f"{PUBLIC}/pulls/{number}/files/reviews/submit",
                          {"content": SCRIPT, "event": "REQUEST_CHANGES"})
    assert rejected.status == 303
    states = {r["user"]["login"]: r["state"] for r in reviews_of(api, scene, number)}
    assert states == {"bob": "APPROVED", "carol": "REQUEST_CHANGES"}
    page = text(bob.get(f"{PUBLIC}/pulls/{number}"))
    assert "<script>alert" not in page and ">Changes requested<" in page
    assert ">Approved<" in page and ">REQUEST_CHANGES<" not in page
    # CSRF, visibility and signing in, as every form.
    assert bob.post(f"{PUBLIC}/pulls/{number}/files/reviews/submit",
                    {"event": "COMMENT", "content": "x"}, csrf=None).status == 403
    assert bob.post(f"{PUBLIC}/pulls/99/files/reviews/submit",
                    {"event": "COMMENT", "content": "x"}).status == 404
    assert len(reviews_of(api, scene, number)) == 2


def test_review_requests_and_private_pull_requests(api, scene):
    number = open_pull(api, scene)
    assert api.post(f"{R}/pulls/{number}/requested_reviewers", token=scene["tokens"]["alice"],
                    json={"reviewers": ["bob"]}).status == 201
    page = text(scene["carol"].get(f"{PUBLIC}/pulls/{number}"))
    assert re.search(r'Review requested from:\s*<span class="label reviewer">bob</span>', page)
    assert api.post("/repos/alice/secret/contents/feature.txt", token=scene["tokens"]["alice"],
                    json={"content": "eA==", "new_branch": "feature"}).status == 201
    secret = open_pull(api, scene, "secret")
    for path in (f"{PRIVATE}/pulls/{secret}/files", f"{PRIVATE}/pulls/{secret}"):
        assert scene["carol"].get(path).status == 404
    for action, fields in (("submit", {"event": "COMMENT", "content": "x"}),
                           ("comments", {"path": "feature.txt", "line": "1", "content": "x",
                                         "mode": "single"})):
        resp = scene["carol"].post(f"{PRIVATE}/pulls/{secret}/files/reviews/{action}", fields)
        assert resp.status == 404, (action, resp)


def test_line_comments_on_the_diff(api, scene):
    number = open_pull(api, scene)
    bob, carol = scene["bob"], scene["carol"]
    files = f"{PUBLIC}/pulls/{number}/files"
    page = text(bob.get(files))
    link = "/alice/proj/pulls/1/files?path=feature.txt&amp;line=1#comment-form"
    assert link in page and 'class="add"' in page and "new work" in page
    assert 'id="comment-form"' not in page
    assert "files?path=" not in text(scene["anonymous"].get(files))
    form = text(bob.get(f"{files}?path=feature.txt&line=1"))
    assert 'id="comment-form"' in form and 'name="line" value="1"' in form

    said = bob.post(f"{files}/reviews/comments", {"path": "feature.txt", "line": "1",
                                                 "content": "Why *this*?", "mode": "single"})
    assert said.status == 303 and said.headers["location"] == f"{files}#files"
    [review] = reviews_of(api, scene, number)
    assert review["state"] == "COMMENT" and review["comments_count"] == 1
    [comment] = api.get(f"{R}/pulls/{number}/reviews/{review['id']}/comments").json
    assert comment["path"] == "feature.txt" and comment["position"] == 1
    assert comment["body"] == "Why *this*?"
    shown = text(carol.get(files))
    assert f'id="issuecomment-{comment["id"]}"' in shown and "<em>this</em>" in shown

    # A review started from a line stays pending (its author's alone) until the review
    # form submits it with a verdict.
    assert bob.post(f"{files}/reviews/comments", {"path": "feature.txt", "line": "1",
                                                 "content": SCRIPT, "mode": "review"}).status == 303
    assert [r["state"] for r in reviews_of(api, scene, number)] == ["COMMENT"]
    assert "pending" in text(bob.get(files)) and "<script>alert" not in text(bob.get(files))
    assert SCRIPT not in text(carol.get(files)) and "&lt;script" not in text(carol.get(files))
    assert "Add review comment" in text(bob.get(f"{files}?path=feature.txt&line=1"))
    approved = bob.post(f"{PUBLIC}/pulls/{number}/files/reviews/submit",
                        {"content": "", "event": "APPROVED"})
    assert approved.status == 303
    last = reviews_of(api, scene, number)[-1]
    assert last["state"] == "APPROVED" and last["comments_count"] == 1

    # Refusals on the line's form.
    blank = bob.post(f"{files}/reviews/comments", {"path": "feature.txt", "line": "1",
                                                  "content": " ", "mode": "single"})
    assert blank.status == 422 and error_shown(blank, "[Body]: Required")
    elsewhere = bob.post(f"{files}/reviews/comments", {"path": "README.md", "line": "1",
                                                      "content": "x", "mode": "single"})
    assert elsewhere.status == 422 and error_shown(elsewhere, "is not changed")
    assert 'name="path" value="README.md"' in text(elsewhere)


def test_protection_page_is_for_admins(api, scene):
    alice, bob, carol = scene["alice"], scene["bob"], scene["carol"]
    settings = f"{PUBLIC}/settings/branches"
    page = alice.get(settings)
    assert page.status == 200 and "No branch is protected." in text(page)
    assert 'href="/alice/proj/settings"' in text(alice.get(PUBLIC))
    assert "/settings/branches" not in text(bob.get(PUBLIC))
    for who in (bob, carol, scene["anonymous"]):
        assert who.get(settings).status == 404
        assert who.get(f"{PRIVATE}/settings/branches").status == 404
    assert bob.post(settings, {"rule_name": "main"}).status == 404
    assert bob.post(f"{PUBLIC}/settings/tags", {"name_pattern": "v*",
                                                "whitelist_usernames": "bob"}).status == 404
    assert alice.post(settings, {"rule_name": "main"}, csrf=None).status == 403
    assert api.get(f"{R}/branch_protections", token=scene["tokens"]["alice"]).json == []


def test_protection_rules_through_the_forms(api, scene):
    alice = scene["alice"]
    token = scene["tokens"]["alice"]
    settings = f"{PUBLIC}/settings/branches"
    made = alice.post(settings, {
        "rule_name": "main", "push": "whitelist", "push_whitelist_usernames": "bob, alice",
        "required_approvals": "2", "status_check_contexts": "ci/build\nlint\n",
        "dismiss_stale_approvals": "on", "block_on_rejected_reviews": "on",
        "block_on_outdated_branch": "on", "protected_file_patterns": "*.lock",
        "require_signed_commits": "on", "apply_to_admins": "on"})
    assert made.status == 303 and made.headers["location"] == f"{settings}#branch-rules"
    [rule] = api.get(f"{R}/branch_protections", token=token).json
    assert rule["rule_name"] == "main" and rule["enable_push"] and rule["enable_push_whitelist"]
    assert rule["push_whitelist_usernames"] == ["alice", "bob"]
    assert rule["required_approvals"] == 2 and rule["enable_status_check"]
    assert rule["status_check_contexts"] == ["ci/build", "lint"]
    assert rule["dismiss_stale_approvals"] and rule["block_on_rejected_reviews"]
    assert rule["block_on_outdated_branch"] and rule["require_signed_commits"]
    assert rule["apply_to_admins"] and rule["protected_file_patterns"] == "*.lock"
    assert "ci/build, lint" in text(alice.get(settings))
    # Refusals on the form: the rule exists; an unknown user; not a number.
    again = alice.post(settings, {"rule_name": "main", "push": "all"})
    assert again.status == 403 and error_shown(again, "Branch protection already exist")
    unknown = alice.post(settings, {"rule_name": "dev", "push": "whitelist",
                                    "push_whitelist_usernames": "nobody"})
    assert unknown.status == 422 and error_shown(unknown, "user does not exist")
    assert 'value="dev"' in text(unknown)
    assert alice.post(settings, {"rule_name": "x", "required_approvals": "many"}).status == 422
    # A rule name with markup is shown as text.
    assert alice.post(settings, {"rule_name": SCRIPT, "push": "none"}).status == 303
    page = text(alice.get(settings))
    assert "<script>alert" not in page and "&lt;script&gt;" in page
    # Tag rules.
    tagged = alice.post(f"{PUBLIC}/settings/tags", {"name_pattern": "v*",
                                                    "whitelist_usernames": "bob"})
    assert tagged.status == 303
    [tag_rule] = api.get(f"{R}/tag_protections", token=token).json
    assert tag_rule["name_pattern"] == "v*" and tag_rule["whitelist_usernames"] == ["bob"]
    empty = alice.post(f"{PUBLIC}/settings/tags", {"name_pattern": "x*"})
    assert empty.status == 400 and error_shown(empty, "whitelist_usernames")
    # Deleting.
    for name in ("main", SCRIPT):
        gone = alice.post(f"{settings}/delete", {"rule_name": name})
        assert gone.status == 303, name
    assert api.get(f"{R}/branch_protections", token=token).json == []
    assert alice.post(f"{PUBLIC}/settings/tags/delete", {"id": tag_rule["id"]}).status == 303
    assert api.get(f"{R}/tag_protections", token=token).json == []
    assert alice.post(f"{settings}/delete", {"rule_name": "main"}).status == 404
