"""Markup's rules, on the in-memory twin (the fast layer): what the sanitizer lets through
(no script, frame or event handler, harmful URL schemes turned into a dead anchor, ids
and classes kept off the page's own), which references become links in which mode
(``#N``, ``!N``, ``owner/repo#N``), @mentions linked for public accounts only, and
commit ids linked only when they are commits the caller may read, through the render
routes as well."""
from __future__ import annotations

import pytest

from chalicelib import contents
from chalicelib.markup import context as render_context
from chalicelib.markup import render as markup
from tests import memory_scene as scene

APP = "http://nimbus.test/"          # the suite's [server] ROOT_URL
HARMFUL = "#user-content-harmful-link"


def render(text, *, mode="comment", caller=None, where="alice/proj"):
    """``text`` rendered as a route renders it for ``caller`` in the context ``where``:
    mentions and commits resolved against the stored accounts and repositories."""
    owner, repo = markup.repo_of_context(where, APP)

    def commits(shas):
        found = render_context.existing_commits(caller or scene.caller(None), owner, repo,
                                                [s for s in shas if len(s) == 40])
        return {sha: sha for sha in found}

    ctx = markup.RenderContext(mode=mode, base=markup.base_url(where, APP), app_url=APP,
                               owner=owner, repo=repo, dir_auto=False,
                               mentionable=render_context.public_logins,
                               commits=commits if owner else None)
    return markup.render(text, ctx)


@pytest.fixture
def alice(memory):
    return scene.user("alice")


def test_scripts_frames_and_event_handlers_never_survive(alice):
    text = ('<script>alert(1)</script>\n\n<iframe src="https://evil.example"></iframe>\n\n'
            '<img src="x.png" onerror="alert(2)"> <svg onload="alert(3)"></svg>\n\n'
            '<a href="https://ok.example" onclick="alert(4)" target="_blank">ok</a>\n\n'
            '<form action="https://evil.example"><button type="submit">go</button></form>'
            '\n\n<style>body{display:none}</style>\n\nkept')
    for mode in ("markdown", "comment", "gfm"):
        out = render(text, mode=mode).lower()
        for gone in ("<script", "alert(1)", "<iframe", "onerror", "<svg", "onload", "onclick",
                     "<form", "<style", 'type="submit"', "display:none"):
            assert gone not in out, (mode, gone, out)
        assert "<p>kept</p>" in out
    # The link stays, with nofollow, and noopener because it opens a new window.
    assert ('<a href="https://ok.example" target="_blank" rel="nofollow noopener">ok</a>'
            in render(text))


@pytest.mark.parametrize("url", ["javascript:alert(1)", "JaVaScRiPt:alert(1)",
                                 "vbscript:msgbox(1)", "data:text/html;base64,PHNjcmlwdD4="])
def test_harmful_url_schemes_become_a_dead_anchor(alice, url):
    assert render(f"[x]({url})") == f'<p><a href="{HARMFUL}" rel="nofollow">x</a></p>\n'
    out = render(f'<a href="{url}">y</a> ![i]({url})')
    assert url.split(":")[0].lower() not in out.lower()


def test_safe_links_stay_and_relative_ones_resolve_against_the_repository(alice):
    out = render("[h](https://a.example/x) [m](mailto:me@a.example) [r](docs/a.md) "
                 "<a href='#top'>t</a>")
    assert '<a href="https://a.example/x" rel="nofollow">h</a>' in out
    assert '<a href="mailto:me@a.example" rel="nofollow">m</a>' in out
    assert f'<a href="{APP}alice/proj/docs/a.md" rel="nofollow">r</a>' in out
    # Ids and fragments are prefixed so user content cannot take the page's own; classes
    # and styles outside the allowed ones are dropped.
    assert '<a href="#user-content-top" rel="nofollow">t</a>' in out
    assert render("<div class='evil' id='main' style='color:red'>d</div>") == \
        '<div id="user-content-main">d</div>\n'


def test_mentions_link_public_accounts_only(alice):
    scene.user("lim", visibility="limited")
    scene.user("priv", visibility="private")
    scene.org(alice, "acme")
    scene.org(alice, "secret", visibility="private")
    out = render("@alice @lim @priv @acme @secret @nobody `@alice` mail@alice.example")
    linked = [f'<a href="{APP}{n}" class="mention" rel="nofollow">@{n}</a>'
              for n in ("alice", "acme")]
    assert all(link in out for link in linked)
    assert out.count('class="mention"') == 2                # code, e-mail and the rest: none
    assert "<code>@alice</code>" in out
    # Raw markdown (the /markdown/raw route) links no mention at all.
    assert render("@alice", mode="markdown") == "<p>@alice</p>\n"


def test_issue_references_depend_on_the_mode(alice):
    text = "see #3, !4 and bob/lib#2 but not `#5`"
    issue, pull, cross = (f'<a href="{APP}alice/proj/issues/3" class="ref-issue" '
                          'rel="nofollow">#3</a>',
                          f'<a href="{APP}alice/proj/pulls/4" class="ref-issue" '
                          'rel="nofollow">!4</a>',
                          f'<a href="{APP}bob/lib/issues/2" class="ref-issue" '
                          'rel="nofollow">bob/lib#2</a>')
    comment = render(text)
    assert issue in comment and pull in comment and cross in comment
    assert "<code>#5</code>" in comment and "issues/5" not in comment
    # A document links cross-repository references only; raw markdown links none.
    document = render(text, mode="gfm")
    assert cross in document and "issues/3" not in document and "pulls/4" not in document
    assert "ref-issue" not in render(text, mode="markdown")


def test_commit_ids_link_only_commits_the_caller_may_read(alice):
    view = scene.repo(alice, "proj", private=True, auto_init=True)
    sha = contents.branch_info(int(view.repo.id), "main").commit_id
    link = f'<a href="{APP}alice/proj/commit/{sha}" rel="nofollow"><code>{sha[:10]}</code></a>'
    text = f"fixed in {sha}, not in {'0' * 40}"
    assert link in render(text, caller=scene.caller(alice))
    assert "0" * 40 in render(text, caller=scene.caller(alice))      # not a commit: no link
    # Neither a stranger nor an anonymous reader learns that the commit exists.
    stranger = scene.caller(scene.user("dave"))
    for caller in (stranger, None):
        assert "/commit/" not in render(text, caller=caller)
    assert "/commit/" not in render(text, caller=scene.caller(alice), where="alice/other")


def test_the_render_routes_resolve_the_context_as_the_caller_sees_it(fast_api):
    alice = scene.user("alice")
    scene.user("dave")
    view = scene.repo(alice, "hidden", private=True, auto_init=True)
    sha = contents.branch_info(int(view.repo.id), "main").commit_id
    tokens = {n: fast_api.create_token(n, scene.PASSWORD) for n in ("alice", "dave")}
    body = {"Text": f"{sha} @alice", "Mode": "comment"}
    mine = fast_api.post("/repos/alice/hidden/markdown", token=tokens["alice"], json=body)
    assert mine.status == 200 and f"alice/hidden/commit/{sha}" in mine.body.decode()
    # The repository route is 404 to a stranger; naming it as Context leaks nothing.
    assert fast_api.post("/repos/alice/hidden/markdown", token=tokens["dave"],
                         json=body).status == 404
    theirs = fast_api.post("/markdown", token=tokens["dave"],
                           json=dict(body, Context="alice/hidden"))
    assert theirs.status == 200 and "/commit/" not in theirs.body.decode()
    assert 'class="mention"' in theirs.body.decode()
    assert fast_api.post("/markdown", json=body).status == 401        # signed-in callers only
