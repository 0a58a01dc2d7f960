"""The web forms (chalicelib/web/actions_*), in-process under moto through the gateway:
each action works for a permitted user and lands (303) on what it made, is refused as
the API refuses (404 for a private repository, 403 for a reader), needs its CSRF token,
and shows bad input again on the form with the service's message."""
from __future__ import annotations

import base64
import re
from urllib.parse import urlencode

import pytest

PRIVATE = "/alice/secret"
PUBLIC = "/alice/proj"
PASSWORD = "secret-pass-1"


class WebUser:
    """A browser's cookie jar and form tokens over the ``api`` fixture's gateway."""

    def __init__(self, api):
        self.api, self.cookie = api, ""

    def request(self, method: str, path: str, body: bytes | None = None, **headers):
        if self.cookie:
            headers["Cookie"] = self.cookie
        resp = self.api.request(method, path, raw=True, body=body, headers=headers)
        for name, value in resp.header_list:
            if name.lower() == "set-cookie":
                pair = value.split(";", 1)[0]
                self.cookie = "" if pair.endswith("=") else pair
        return resp

    def get(self, path: str):
        return self.request("GET", path)

    def token(self, path: str = "/") -> str:
        found = re.search(r'name="_csrf" value="([^"]+)"', self.get(path).body.decode())
        assert found, f"no form token on {path}"
        return found.group(1)

    def post(self, path: str, fields: dict | list, csrf: str | None = "fresh"):
        pairs = list(fields.items()) if isinstance(fields, dict) else list(fields)
        if csrf == "fresh":
            csrf = self.token("/user/login" if not self.cookie else "/")
        if csrf is not None:
            pairs.append(("_csrf", csrf))
        return self.request("POST", path, urlencode(pairs).encode(),
                            **{"Content-Type": "application/x-www-form-urlencoded"})

    def sign_in(self, name: str) -> "WebUser":
        resp = self.post("/user/login", {"user_name": name, "password": PASSWORD})
        assert resp.status == 303, resp
        return self


def text(resp) -> str:
    return resp.body.decode("utf-8")


def error_shown(resp, message: str) -> bool:
    found = re.search(r'<div class="error" role="alert">([^<]*)</div>', text(resp))
    return bool(found) and message in found.group(1)


def field_error_shown(resp, field: str, message: str) -> bool:
    """The message beside the named field, which the field points to for screen readers."""
    found = re.search(rf'<p class="field-error" id="{field}-error" role="alert">([^<]*)</p>',
                      text(resp))
    return bool(found) and message in found.group(1) \
        and f'aria-describedby="{field}-error"' in text(resp)


@pytest.fixture
def scene(api):
    """alice owns public ``proj`` (a README, a ``feature`` branch one commit ahead) and
    private ``secret``; bob writes to ``proj``; carol is a stranger.  All signed in;
    only alice has a token (the API calls that check what the forms did)."""
    for name in ("alice", "bob", "carol"):
        api.create_user(name)
    tokens = {"alice": api.create_token("alice")}
    for name, private in (("proj", False), ("secret", True)):
        assert api.post("/user/repos", token=tokens["alice"], json={
            "name": name, "private": private, "auto_init": True}).status == 201
    content = base64.b64encode(b"new work\n").decode()
    assert api.post("/repos/alice/proj/contents/feature.txt", token=tokens["alice"],
                    json={"content": content, "new_branch": "feature"}).status == 201
    assert api.put("/repos/alice/proj/collaborators/bob", token=tokens["alice"],
                   json={"permission": "write"}).status == 204
    users = {n: WebUser(api).sign_in(n) for n in ("alice", "bob", "carol")}
    return dict(users, tokens=tokens, anonymous=WebUser(api))


def test_create_repository(api, scene):
    alice = scene["alice"]
    form = alice.get("/repo/create")
    assert form.status == 200 and 'name="repo_name"' in text(form)
    made = alice.post("/repo/create", {"repo_name": "fresh", "description": "from the web",
                                       "private": "on", "auto_init": "on"})
    assert made.status == 303 and made.headers["location"] == "/alice/fresh"
    record = api.get("/repos/alice/fresh", token=scene["tokens"]["alice"]).json
    assert record["private"] is True and record["description"] == "from the web"
    assert not record["empty"] and "README.md" in text(alice.get("/alice/fresh"))
    # Someone else cannot see it; the same name again is shown on the form.
    assert scene["carol"].get("/alice/fresh").status == 404
    again = alice.post("/repo/create", {"repo_name": "fresh"})
    assert again.status == 409 and error_shown(again, "already exists")
    bad = alice.post("/repo/create", {"repo_name": "no spaces here"})
    assert bad.status == 422 and 'value="no spaces here"' in text(bad)
    assert error_shown(bad, "Name")
    # Visitors are sent to sign in, for the form and for a post.
    visitor = scene["anonymous"]
    assert visitor.get("/repo/create").headers["location"].startswith("/user/login?")
    assert visitor.post("/repo/create", {"repo_name": "x"}).status == 303
    assert api.get("/repos/alice/x").status == 404


def test_csrf_is_required(api, scene):
    alice = scene["alice"]
    assert alice.post("/repo/create", {"repo_name": "nocsrf"}, csrf=None).status == 403
    assert alice.post("/repo/create", {"repo_name": "nocsrf"}, csrf="forged").status == 403
    # carol's token is no good in alice's session.
    assert alice.post("/repo/create", {"repo_name": "nocsrf"},
                      csrf=scene["carol"].token()).status == 403
    assert alice.post(f"{PUBLIC}/issues/new", {"title": "x"}, csrf=None).status == 403
    assert alice.post(f"{PUBLIC}/releases/new", {"tag_name": "v9", "title": "x"},
                      csrf="").status == 403
    assert alice.post("/user/settings/applications", {"name": "t", "scope": "all"},
                      csrf=None).status == 403
    assert api.get("/repos/alice/nocsrf").status == 404
    assert api.get("/repos/alice/proj/issues?state=all").json == []


def test_a_stale_form_comes_back_with_a_fresh_token(api, scene):
    """A form sent with an expired token is its page again, saying nothing was saved,
    with a token that works; an action that has no page of its own is the 403 page."""
    alice = scene["alice"]
    stale = alice.post(f"{PUBLIC}/issues/new", {"title": "Kept?"}, csrf="expired")
    body = text(stale)
    assert stale.status == 403 and error_shown(stale, "The form had expired")
    assert 'name="title"' in body and "<h2>New issue</h2>" in body
    fresh = re.search(r'name="_csrf" value="([^"]+)"', body).group(1)
    assert api.get("/repos/alice/proj/issues?state=all").json == []
    made = alice.post(f"{PUBLIC}/issues/new", {"title": "Sent again"}, csrf=fresh)
    assert made.status == 303
    assert [i["title"] for i in api.get("/repos/alice/proj/issues?state=all").json] == \
        ["Sent again"]
    # No page at the action's address: the page the form was sent from, on this site.
    assert alice.post(f"{PUBLIC}/issues/1/comments", {"content": "x"}).status == 303
    form = urlencode({"content": "lost?", "_csrf": "expired"}).encode()
    url_encoded = {"Content-Type": "application/x-www-form-urlencoded", "Host": "nimbus.test"}
    back = alice.request("POST", f"{PUBLIC}/issues/1/comments", form, **url_encoded,
                         Referer=f"http://nimbus.test{PUBLIC}/issues/1")
    assert back.status == 403 and error_shown(back, "The form had expired")
    assert "Sent again" in text(back) and 'name="content"' in text(back)
    # From another site, or with no page to go back to: the error page; nothing done.
    for referer in ("http://elsewhere.example/alice/proj/issues/1", ""):
        refused = alice.request("POST", f"{PUBLIC}/issues/1/comments", form, **url_encoded,
                                Referer=referer)
        assert refused.status == 403 and "Invalid CSRF token" in text(refused)
    assert [c["body"] for c in api.get("/repos/alice/proj/issues/1/comments").json] == ["x"]


def test_open_issue_comment_close_and_reopen(api, scene):
    bob, carol = scene["bob"], scene["carol"]
    assert 'name="title"' in text(bob.get(f"{PUBLIC}/issues/new"))
    made = bob.post(f"{PUBLIC}/issues/new", {"title": "Web issue", "content": "Some *text*"})
    assert made.status == 303 and made.headers["location"] == f"{PUBLIC}/issues/1"
    issue = api.get("/repos/alice/proj/issues/1").json
    assert issue["title"] == "Web issue" and issue["user"]["login"] == "bob"
    assert "<em>text</em>" in text(bob.get(f"{PUBLIC}/issues/1"))
    # Anyone signed in may comment on a public repository's issue.
    said = carol.post(f"{PUBLIC}/issues/1/comments", {"content": "Me **too**"})
    assert said.status == 303
    assert re.fullmatch(rf"{PUBLIC}/issues/1#issuecomment-\d+", said.headers["location"])
    page = text(carol.get(f"{PUBLIC}/issues/1"))
    assert "<strong>too</strong>" in page and 'name="status" value="close"' in page
    # Closing needs the poster or a writer, as the API's edit.
    assert carol.post(f"{PUBLIC}/issues/1/comments", {"status": "close"}).status == 403
    closed = bob.post(f"{PUBLIC}/issues/1/comments", {"content": "", "status": "close"})
    assert closed.status == 303 and api.get("/repos/alice/proj/issues/1").json["state"] == \
        "closed"
    assert bob.post(f"{PUBLIC}/issues/1/comments", {"status": "reopen"}).status == 303
    assert api.get("/repos/alice/proj/issues/1").json["state"] == "open"
    assert api.get("/repos/alice/proj/issues/1/comments").json[0]["body"] == "Me **too**"
    # Bad input is shown on the form.
    empty = bob.post(f"{PUBLIC}/issues/new", {"title": "  ", "content": "kept"})
    assert empty.status == 422 and field_error_shown(empty, "title", "[Title]: Required")
    assert ">kept</textarea>" in text(empty)
    blank = bob.post(f"{PUBLIC}/issues/1/comments", {"content": ""})
    assert blank.status == 422 and error_shown(blank, "[Body]: Required")
    assert bob.post(f"{PUBLIC}/issues/1/comments", {"status": "explode"}).status == 422
    assert bob.post(f"{PUBLIC}/issues/99/comments", {"content": "x"}).status == 404


def test_private_repository_actions_are_404_to_strangers(api, scene):
    carol, alice = scene["carol"], scene["alice"]
    assert alice.post(f"{PRIVATE}/issues/new", {"title": "Hidden"}).status == 303
    for path in (f"{PRIVATE}/issues/new", f"{PRIVATE}/compare/main...feature",
                 f"{PRIVATE}/releases/new"):
        assert carol.get(path).status == 404, path
        assert scene["anonymous"].get(path).status == 404, path
    for path, fields in ((f"{PRIVATE}/issues/new", {"title": "x"}),
                         (f"{PRIVATE}/issues/1/comments", {"content": "x"}),
                         (f"{PRIVATE}/compare/main...feature", {"title": "x"}),
                         (f"{PRIVATE}/pulls/1/merge", {"do": "merge"}),
                         (f"{PRIVATE}/releases/new", {"tag_name": "v1", "title": "x"})):
        resp = carol.post(path, fields)
        assert resp.status == 404, (path, resp)
    assert api.get("/repos/alice/secret/issues?state=all",
                   token=scene["tokens"]["alice"]).json[0]["comments"] == 0


def test_compare_open_and_merge_pull_request(api, scene):
    bob, carol, alice = scene["bob"], scene["carol"], scene["alice"]
    assert bob.get(f"{PUBLIC}/compare?base=main&head=feature").headers["location"] == \
        f"{PUBLIC}/compare/main...feature"
    page = text(bob.get(f"{PUBLIC}/compare/main...feature"))
    assert "1 commit" in page and "Create pull request" in page and 'id="compare-head"' in page
    assert "Choose two different" in text(bob.get(f"{PUBLIC}/compare/main...main"))
    assert bob.get(f"{PUBLIC}/compare/main...nope").status == 404
    no_title = bob.post(f"{PUBLIC}/compare/main...feature", {"title": "", "content": "why"})
    assert no_title.status == 422 and error_shown(no_title, "[Title]: Required")
    opened = bob.post(f"{PUBLIC}/compare/main...feature", {"title": "Add feature",
                                                           "content": "Please"})
    assert opened.status == 303 and opened.headers["location"] == f"{PUBLIC}/pulls/1"
    pull = api.get("/repos/alice/proj/pulls/1").json
    assert pull["head"]["label"] == "feature" and pull["user"]["login"] == "bob"
    twice = bob.post(f"{PUBLIC}/compare/main...feature", {"title": "Again"})
    assert twice.status == 409 and error_shown(twice, "already exists")
    # The merge form offers the allowed styles only; a reader may not merge.
    assert api.patch("/repos/alice/proj", token=scene["tokens"]["alice"],
                     json={"allow_squash_merge": False}).status == 200
    shown = text(alice.get(f"{PUBLIC}/pulls/1"))
    assert 'value="merge"' in shown and 'value="squash"' not in shown
    assert carol.post(f"{PUBLIC}/pulls/1/merge", {"do": "merge"}).status == 403
    refused = alice.post(f"{PUBLIC}/pulls/1/merge", {"do": "squash"})
    assert refused.status == 405 and error_shown(refused, "not an allowed merge style")
    assert 'value="squash"' not in text(refused) and 'value="merge"' in text(refused)
    assert alice.post(f"{PUBLIC}/pulls/1/merge", {"do": "manually-merged"}).status == 422
    merged = alice.post(f"{PUBLIC}/pulls/1/merge", {"do": "merge"})
    assert merged.status == 303 and merged.headers["location"] == f"{PUBLIC}/pulls/1"
    assert api.get("/repos/alice/proj/pulls/1").json["merged"] is True
    page = text(alice.get(f"{PUBLIC}/pulls/1"))
    assert "merged <code>" in page and "wants to merge" not in page
    assert "feature.txt" in text(alice.get(PUBLIC))
    assert alice.post(f"{PUBLIC}/pulls/1/merge", {"do": "merge"}).status == 405
    assert alice.post(f"{PUBLIC}/pulls/7/merge", {"do": "merge"}).status == 404


def test_create_release(api, scene):
    alice, bob, carol = scene["alice"], scene["bob"], scene["carol"]
    form = text(bob.get(f"{PUBLIC}/releases/new"))
    assert 'name="tag_name"' in form and "<option value=\"main\" selected>main</option>" in form
    assert carol.get(f"{PUBLIC}/releases/new").status == 403
    assert carol.post(f"{PUBLIC}/releases/new", {"tag_name": "v0", "title": "x"}).status == 403
    made = bob.post(f"{PUBLIC}/releases/new", {"tag_name": "v1.0", "target": "feature",
                                               "title": "One", "content": "**Notes**",
                                               "prerelease": "on"})
    assert made.status == 303 and made.headers["location"] == f"{PUBLIC}/releases/tag/v1.0"
    record = api.get("/repos/alice/proj/releases/tags/v1.0").json
    assert record["prerelease"] is True and record["draft"] is False
    assert record["target_commitish"] == "feature" and record["author"]["login"] == "bob"
    assert "<strong>Notes</strong>" in text(carol.get(f"{PUBLIC}/releases/tag/v1.0"))
    draft = alice.post(f"{PUBLIC}/releases/new", {"tag_name": "v2", "title": "Two",
                                                  "draft": "on"})
    assert draft.status == 303
    assert api.get("/repos/alice/proj/releases/tags/v2").status == 404   # drafts: writers only
    again = alice.post(f"{PUBLIC}/releases/new", {"tag_name": "v1.0", "title": "Dup"})
    assert again.status == 409 and error_shown(again, "already exist")
    untitled = alice.post(f"{PUBLIC}/releases/new", {"tag_name": "v3", "title": ""})
    assert untitled.status == 422 and 'value="v3"' in text(untitled)
    assert "New release" in text(alice.get(f"{PUBLIC}/releases"))
    assert "New release" not in text(carol.get(f"{PUBLIC}/releases"))


def test_access_tokens(api, scene):
    alice, carol = scene["alice"], scene["carol"]
    page = text(alice.get("/user/settings/applications"))
    assert ">t</strong>" in page        # the fixture's token
    made = alice.post("/user/settings/applications", [("name", "ci"), ("scope", "read:user"),
                                                      ("scope", "write:repository")])
    assert made.status == 200 and made.headers["cache-control"] == "no-store"
    secret = re.search(r'id="new-token-value"[^>]*value="([0-9a-f]{40})"', text(made))
    assert secret, "the new token is shown once"
    me = api.get("/user", token=secret.group(1))
    assert me.status == 200 and me.json["login"] == "alice"
    listed = api.get("/users/alice/tokens", auth=("alice", PASSWORD)).json
    ci = next(t for t in listed if t["name"] == "ci")
    assert sorted(ci["scopes"]) == ["read:user", "write:repository"]
    assert secret.group(1) not in text(alice.get("/user/settings/applications"))
    # Bad input stays on the form with the service's message.
    dup = alice.post("/user/settings/applications", {"name": "ci", "scope": "all"})
    assert dup.status == 400 and error_shown(dup, "has been used already")
    none = alice.post("/user/settings/applications", {"name": "noscope"})
    assert none.status == 400 and error_shown(none, "must have a scope")
    # carol cannot delete alice's token: her own list has no such id.
    assert carol.post("/user/settings/applications/delete", {"id": ci["id"]}).status == 404
    gone = alice.post("/user/settings/applications/delete", {"id": ci["id"]})
    assert gone.status == 303 and gone.headers["location"] == "/user/settings/applications"
    assert api.get("/user", token=secret.group(1)).status == 401
    assert scene["anonymous"].get("/user/settings/applications").status == 303
