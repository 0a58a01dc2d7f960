"""The wiki's pages (chalicelib/web/wiki_pages.py), in-process under moto: the empty
state, a page with its sidebar and footer rendered and sanitized, the page list, the
title search, revisions, the new, edit and delete forms (CSRF, writers only, bad input
shown beside its field), a private repository's wiki a 404 to strangers, and the Wiki
tab."""
from __future__ import annotations

import base64

import pytest

from tests.web.test_web_actions import WebUser, field_error_shown, text


def b64(data: str) -> str:
    return base64.b64encode(data.encode()).decode()


@pytest.fixture
def scene(api):
    for name in ("alice", "bob", "carol"):
        api.create_user(name)
    token = api.create_token("alice")
    for repo, private in (("proj", False), ("secret", True)):
        assert api.post("/user/repos", token=token,
                        json={"name": repo, "private": private, "auto_init": True}).status == 201
    assert api.put("/repos/alice/proj/collaborators/bob", token=token,
                   json={"permission": "write"}).status == 204
    return {"token": token, "alice": WebUser(api).sign_in("alice"),
            "bob": WebUser(api).sign_in("bob"), "carol": WebUser(api).sign_in("carol"),
            "visitor": WebUser(api)}


def test_empty_state_then_the_first_page_and_its_neighbours(api, scene):
    bob, carol = scene["bob"], scene["carol"]
    empty = bob.get("/alice/proj/wiki")
    assert empty.status == 200 and "Create the first page" in text(empty)
    assert 'aria-current="page">Wiki</a>' in text(empty)
    assert "Create the first page" not in text(carol.get("/alice/proj/wiki"))

    form = bob.get("/alice/proj/wiki/?action=_new")
    assert form.status == 200 and 'name="title"' in text(form)
    made = bob.post("/alice/proj/wiki?action=_new", {
        "title": "Home", "content": "# Hello\r\n\r\n[[Other Page]]", "message": ""})
    assert made.status == 303 and made.headers["location"].endswith("/alice/proj/wiki/Home")
    for title, content in (("_Sidebar", "side **bar**"), ("_Footer", "the footer")):
        api.post("/repos/alice/proj/wiki/new", token=scene["token"],
                 json={"title": title, "content_base64": b64(content)})

    shown = carol.get("/alice/proj/wiki")
    body = text(shown)
    assert shown.status == 200 and "<h1" in body and "Hello" in body
    assert "side <strong>bar</strong>" in body and "the footer" in body
    assert '/alice/proj/wiki/Other%20Page"' in body        # a wiki link names a page
    assert "Edit" not in body.split('id="wiki-title"', 1)[1].split("</div>", 1)[0]
    stored = api.get("/repos/alice/proj/wiki/page/Home").json
    assert base64.b64decode(stored["content_base64"]) == b"# Hello\n\n[[Other Page]]"

    listed = text(carol.get("/alice/proj/wiki/?action=_pages"))
    assert ">Home</a>" in listed and ">_Sidebar</a>" in listed
    assert carol.get("/alice/proj/wiki/_pages").status == 200
    found = text(carol.get("/alice/proj/wiki/search?q=side"))
    assert "wiki/_Sidebar\">_Sidebar</a>" in found and "wiki/Home\">Home</a>" not in found
    revs = carol.get("/alice/proj/wiki/Home?action=_revision")
    assert revs.status == 200 and "1 revision" in text(revs)


def test_edit_rename_delete_and_bad_input(api, scene):
    bob, carol = scene["bob"], scene["carol"]
    bob.post("/alice/proj/wiki?action=_new", {"title": "Home", "content": "one"})
    edit = bob.get("/alice/proj/wiki/Home?action=_edit")
    assert edit.status == 200 and ">one</textarea>" in text(edit)
    saved = bob.post("/alice/proj/wiki/Home?action=_edit",
                     {"title": "Start Here", "content": "two", "message": "renamed"})
    assert saved.status == 303 and saved.headers["location"].endswith("/wiki/Start-Here")
    assert api.get("/repos/alice/proj/wiki/page/Start-Here").json["commit_count"] == 1

    taken = bob.post("/alice/proj/wiki?action=_new", {"title": "Start Here", "content": "x"})
    assert taken.status == 400 and field_error_shown(taken, "title", "already exists")
    assert 'value="Start Here"' in text(taken)
    reserved = bob.post("/alice/proj/wiki?action=_new", {"title": "_edit", "content": "x"})
    assert reserved.status == 400 and field_error_shown(reserved, "title", "reserved")

    # Readers may not write; a form without its token saves nothing.
    assert carol.post("/alice/proj/wiki?action=_new", {"title": "C", "content": "c"}).status == 403
    assert bob.post("/alice/proj/wiki?action=_new", {"title": "N", "content": "n"},
                    csrf=None).status == 403
    assert api.get("/repos/alice/proj/wiki/page/N").status == 404
    gone = bob.post("/alice/proj/wiki/Start-Here?action=_delete", {})
    assert gone.status == 303
    assert api.get("/repos/alice/proj/wiki/page/Start-Here").status == 404


def test_private_wiki_and_script_in_a_page(api, scene):
    alice, carol, visitor = scene["alice"], scene["carol"], scene["visitor"]
    alice.post("/alice/secret/wiki?action=_new", {
        "title": "<script>alert(1)</script>",
        "content": "<script>alert(2)</script><img src=x onerror=alert(3)> [x](javascript:alert(4))"})
    assert carol.get("/alice/secret/wiki").status == 404
    assert visitor.get("/alice/secret/wiki/?action=_pages").status == 404
    listed = text(alice.get("/alice/secret/wiki/?action=_pages"))
    assert "<script>alert(1)" not in listed and "&lt;script&gt;alert(1)" in listed
    page_path = api.get("/repos/alice/secret/wiki/pages", token=scene["token"]).json[0]["sub_url"]
    shown = text(alice.get(f"/alice/secret/wiki/{page_path}"))
    assert "<script>alert" not in shown and "onerror" not in shown
    assert "href=\"javascript:" not in shown
