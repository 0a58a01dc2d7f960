"""Nothing a client sends breaks the service (issue 10, items 1 and 3).

Every write route of the route table gets lone surrogates, oversized fields, deep JSON,
oversized and malformed bodies: no answer is a 5xx, nothing is written, and every list
of the repository still answers 200 afterwards.
"""
from __future__ import annotations

import gzip
import re

import pytest

from chalicelib.http import input_rules
from chalicelib.markup.options import MarkdownOption
from tests.conftest import ADMIN
from tests.accounts.test_users import ssh_key

R = "/repos/alice/proj"
PASSWORD = "secret-pass-1"
LONE = "bad \ud800 text"
# Longer than every written maximum (markdown documents may be 1 MiB).
OVERSIZED = "x" * (MarkdownOption.max_lengths["text"] + 1)
DEEP = ("[" * 100_000 + "]" * 100_000).encode()
LISTS = ("/issues?state=all", "/issues/1/comments", "/issues/comments", "/labels",
         "/milestones?state=all", "/issues/1/times")


@pytest.fixture
def api(fast_api):
    """What a text may hold is the edge's rule, and nothing half-written the unit of
    work's: the in-memory twin (the fast layer) answers the AWS calls."""
    return fast_api


@pytest.fixture
def scene(api, monkeypatch):
    """A user, a repository with an issue, comment, label, milestone, tracked time, a
    deploy key and a hook, an org with a team; ``params`` fills any route's path.  Quota
    is on, so its routes exist (off, they answer 404 before reading a body)."""
    from chalicelib.settings import reset_settings_cache

    monkeypatch.setenv("NIMBUS__QUOTA__ENABLED", "true")
    reset_settings_cache()
    api.create_user("alice")
    api.create_user("bob")
    alice = api.create_token("alice")
    root = api.create_token(*ADMIN)
    assert api.post("/user/repos", token=alice, json={"name": "proj"}).status == 201
    assert api.post(f"{R}/issues", token=alice, json={"title": "first"}).status == 201
    comment = api.post(f"{R}/issues/1/comments", token=alice, json={"body": "hi"}).json
    label = api.post(f"{R}/labels", token=alice, json={"name": "bug", "color": "#ff0000"}).json
    milestone = api.post(f"{R}/milestones", token=alice, json={"title": "v1"}).json
    assert api.post(f"{R}/issues/1/times", token=alice, json={"time": 60}).status == 200
    hook = api.post(f"{R}/hooks", token=alice, json={
        "type": "gitea", "config": {"url": "https://example.com/h", "content_type": "json"},
        "events": ["issues"], "active": True}).json
    key = api.post(f"{R}/keys", token=alice, json={"title": "ci", "key": ssh_key()}).json
    app = api.post("/user/applications/oauth2", token=alice, json={
        "name": "ci", "redirect_uris": ["https://ci.example/cb"]}).json
    assert api.post("/orgs", token=alice, json={"username": "acme"}).status == 201
    team = api.post("/orgs/acme/teams", token=alice, json={"name": "devs",
                                                           "permission": "write"}).json
    params = {"owner": "alice", "repo": "proj", "username": "alice", "org": "acme",
              "collaborator": "bob", "index": "1", "id": None,
              # topics (an invalid name is a 422) and a repository's teams (405: a user's)
              "topic": "x", "team": "devs",
              "position": "1",   # an issue pin's place
              "sha": "main",     # commit statuses: refused before the commit is read
              "quotagroup": "g", "quotarule": "r",
              # releases of the empty repository: bodies are refused before any lookup
              "attachment_id": "1", "tag": "v1",
              # webhook deliveries: redelivering an unknown one is a 404, never a 5xx
              "delivery": "1",
              # contents API: a file to create or update (bodies refused before writing)
              "filepath": "docs/file.txt",
              # branch writes (rename): the repository is empty, no branch to rename
              "branch": "nope",
              # branch protections: an unknown rule (edits answer 404)
              "name": "main",
              # large pushes: applying an upload that was never made
              "upload": "0" * 32,
              # reviews of an issue that is no pull request: 404 after the body check
              "comment": "1",
              # issue subscriptions and blocks: the person named
              "user": "bob",
              # wiki pages, flags, git notes, push mirrors: ones that do not exist
              "pageName": "Nope", "flag": "nope", "template_owner": "alice",
              "template_repo": "proj", "branch_name": "nope",
              # admin cron: a task that does not exist (404 before anything runs)
              "task": "no_such_task"}
    ids = {"comments": comment["id"], "labels": label["id"], "milestones": milestone["id"],
           "hooks": hook["id"], "keys": key["id"], "teams": team["id"], "releases": 1,
           "tag_protections": 1, "reviews": 1, "threads": 1,
           # a deleted repository and a ref history entry that do not exist (404)
           "deleted": 999999, "refs": 999999,
           "git": 1,    # git hooks: refused while hooks are disabled
           "oauth2": app["id"]}
    yield {"alice": alice, "root": root, "params": params, "ids": ids}
    monkeypatch.delenv("NIMBUS__QUOTA__ENABLED")
    reset_settings_cache()


# A write without a body (following, blocking, subscribing someone) is sent at a person
# who does not exist: it must not fail, and it must not change the lists compared.
BYSTANDER = {"username": "nobody-here", "user": "nobody-here",
             "index": "999999"}   # an issue's stopwatch or pin: an issue that does not exist


def _path(route, scene) -> str:
    """The route's pattern with every parameter filled from the scene."""
    def fill(match):
        name = match.group(1)
        if route.body is None and name in BYSTANDER:
            return BYSTANDER[name]
        if name != "id":
            return scene["params"][name]
        kind = route.pattern[:match.start()].rstrip("/").rsplit("/", 1)[-1]
        return str(scene["ids"][kind])
    return re.sub(r"\{(\w+)(?::path)?\}", fill, route.pattern)


def _send(api, route, scene, *, json=None, body=None, headers=None):
    auth = dict(auth=("alice", PASSWORD)) if route.basic_auth_only else dict(token=scene["root"])
    headers = dict(headers or {"Content-Type": "application/json"})
    return api.request(route.method, _path(route, scene), json=json, body=body,
                       headers=headers, **auth)


def _write_routes():
    from chalicelib.http.routes import load_routes

    return [r for r in load_routes().routes
            if r.method in ("POST", "PUT", "PATCH") and not r.raw]


def _fields(route) -> list[str]:
    """The text fields worth poisoning: the route's written ones, plus generic ones."""
    named = input_rules.maxima(route.body)
    return sorted({*named, "name", "title", "body", "description"})


def _snapshot(api, scene) -> dict:
    token = scene["root"]
    return {path: api.get(R + path, token=token).json for path in LISTS}


def _assert_lists_answer(api, scene) -> None:
    for path in LISTS:
        resp = api.get(R + path, token=scene["root"])
        assert resp.status == 200, (path, resp)


# Routes refused before their body is read, as Forgejo's (its reqGitHook runs before the
# body is bound): every request gets that refusal, whatever it carries.
REFUSED_FIRST = {"repoEditGitHook": 403}


def test_every_write_route_refuses_bad_text_without_a_server_error(api, scene):
    before = _snapshot(api, scene)
    failures = []
    # Body size and encoding are checked by the gateway before any route: one route
    # per method shows it (a 7 MB body per route would only slow the test down).
    gateway_checked: set[str] = set()
    for route in _write_routes():
        maxima = input_rules.maxima(route.body)
        cases = []
        for field in _fields(route):
            top, _, inner = field.partition(".")
            oversized = "x" * (maxima.get(field, input_rules.DEFAULT_MAX) + 1)
            for value in (LONE, oversized, "nul \x00 text"):
                cases.append((field, {top: {inner: value} if inner else value}))
        cases.append(("surrogate key", {LONE: 1}))
        cases.append(("surrogate in list", {"labels": [LONE], "events": [LONE]}))
        refused = REFUSED_FIRST.get(route.operation_id)
        bodies = [("deep JSON", dict(body=DEEP), refused or 400),
                  ("broken JSON", dict(body=b'{"title": '), refused or 422),
                  ("not UTF-8", dict(body=b'{"title": "\xff\xfe"}'), refused or 422)]
        if route.method not in gateway_checked:
            gateway_checked.add(route.method)
            bodies += [("huge body", dict(body=b'{"x": "' + b"y" * (7 << 20) + b'"}'), 413),
                       ("bad gzip", dict(body=b"not gzip", headers={
                           "Content-Type": "application/json", "Content-Encoding": "gzip"}), 400)]
        # Routes without a JSON body ignore it: they only must not fail.
        reads_json = route.body is not None
        for what, payload in cases:
            resp = _send(api, route, scene, json=payload)
            if resp.status >= 500 or (reads_json and resp.status < 400):
                failures.append((route.operation_id, what[:40], resp.status, resp.body[:120]))
        for what, kwargs, wanted in bodies:
            resp = _send(api, route, scene, **kwargs)
            if resp.status >= 500 or (reads_json and resp.status != wanted) \
                    or (what == "huge body" and resp.status != 413):
                failures.append((route.operation_id, what, resp.status, resp.body[:120]))
    assert not failures, "\n".join(map(str, failures))
    assert _snapshot(api, scene) == before        # nothing was written
    _assert_lists_answer(api, scene)


KNOWN_500S = [            # each answered 500 (and was often stored) before the input rules
    ("POST", "/issues", {"title": LONE}, "Title"),
    ("POST", "/issues", {"title": "t", "body": LONE}, "Body"),
    ("PATCH", "/issues/1", {"title": LONE}, "Title"),
    ("POST", "/issues/1/comments", {"body": LONE}, "Body"),
    ("POST", "/labels", {"name": LONE, "color": "#00ff00"}, "Name"),
    ("POST", "/labels", {"name": "ok", "color": "#00ff00", "description": LONE}, "Description"),
    ("POST", "/milestones", {"title": LONE}, "Title"),
    ("POST", "/milestones", {"title": "m", "description": LONE}, "Description"),
    ("PATCH", "", {"description": LONE}, "Description"),
    ("POST", "/markdown", {"text": LONE}, "Text"),
]


def test_lone_surrogates_are_refused_naming_the_field(api, scene):
    before = _snapshot(api, scene)
    for method, path, payload, field in KNOWN_500S:
        resp = api.request(method, R + path, json=payload, token=scene["alice"])
        assert resp.status == 422, (method, path, resp)
        assert resp.json["message"].startswith(f"[{field}]:"), resp.json
        assert set(resp.json) == {"message", "url"}
    assert _snapshot(api, scene) == before
    _assert_lists_answer(api, scene)


def test_nul_and_control_characters(api, scene):
    """NUL is refused in every text; single-line fields (names, titles, refs) refuse
    every C0 control, tab and newline included; bodies keep the others (a log pasted
    into an issue holds escape sequences).  Each refusal names the field."""
    alice = scene["alice"]
    before = _snapshot(api, scene)
    refused = [
        ("POST", "/issues", {"title": "nul \x00 here"}, "Title"),
        ("POST", "/issues", {"title": "colour \x1b[31m"}, "Title"),
        ("POST", "/issues", {"title": "two\nlines"}, "Title"),
        ("POST", "/issues", {"title": "tab\there"}, "Title"),
        ("POST", "/issues", {"title": "t", "body": "nul \x00 in a body"}, "Body"),
        ("PATCH", "/issues/1", {"title": "bell \x07"}, "Title"),
        ("POST", "/issues/1/comments", {"body": "\x00"}, "Body"),
        ("POST", "/labels", {"name": "bu\x08g", "color": "#00ff00"}, "Name"),
        ("POST", "/labels", {"name": "ok", "color": "#00ff00", "description": "a\nb"},
         "Description"),
        ("POST", "/milestones", {"title": "v\r2"}, "Title"),
        ("POST", "/milestones", {"title": "m", "description": "\x00"}, "Description"),
        ("PATCH", "", {"name": "pro\x01j"}, "Name"),
        ("PATCH", "", {"description": "nul \x00"}, "Description"),
        ("POST", "/keys", {"title": "k\ney", "key": ssh_key()}, "Title"),
        ("POST", "/releases", {"tag_name": "v1", "name": "r\x1b"}, "Name"),
        ("POST", "/branches", {"new_branch_name": "b\tx"}, "NewBranchName"),
        ("POST", "/statuses/main", {"state": "success", "context": "ci\n"}, "Context"),
    ]
    for method, path, payload, field in refused:
        resp = api.request(method, R + path, json=payload, token=alice)
        assert resp.status == 422, (method, path, payload, resp)
        assert resp.json["message"].startswith(f"[{field}]: must not contain"), resp.json
    for payload, field in (({"full_name": "Al\x00ice", "login_name": "alice"}, "FullName"),
                           ({"location": "a\tb", "login_name": "alice"}, "Location")):
        edit = api.patch("/admin/users/alice", auth=ADMIN, json=payload)
        assert edit.status == 422 and edit.json["message"].startswith(f"[{field}]:"), edit
    assert api.post("/orgs", token=alice, json={"username": "o\x00rg"}).status == 422
    assert api.post("/users/alice/tokens", auth=("alice", PASSWORD),
                    json={"name": "to\nken", "scopes": ["all"]}).status == 422
    assert _snapshot(api, scene) == before
    # Bodies and multi-line descriptions keep escape sequences, tabs and newlines.
    log = "build failed:\n\x1b[31merror\x1b[0m\tline 3\r\n"
    made = api.post(f"{R}/issues", token=alice, json={"title": "CI log", "body": log})
    assert made.status == 201 and made.json["body"] == log
    comment = api.post(f"{R}/issues/1/comments", token=alice, json={"body": log})
    assert comment.status == 201 and comment.json["body"] == log
    edited = api.patch(R, token=alice, json={"description": "two\nlines\tand a tab"})
    assert edited.status == 200 and edited.json["description"] == "two\nlines\tand a tab"
    _assert_lists_answer(api, scene)


def test_full_name_and_top_level_markdown(api, scene):
    edit = api.patch("/admin/users/alice", auth=ADMIN, json={"full_name": LONE,
                                                             "login_name": "alice"})
    assert edit.status == 422 and edit.json["message"].startswith("[FullName]:")
    assert api.post("/markdown", token=scene["alice"], json={"Text": LONE}).status == 422
    assert api.post("/admin/users", auth=ADMIN, json={
        "username": "zed", "password": PASSWORD, "email": "z@example.com",
        "full_name": LONE}).status == 422
    assert api.get("/users/zed", token=scene["root"]).status == 404


def test_oversized_bodies_are_refused_and_burn_no_number(api, scene):
    alice = scene["alice"]
    big = "é" * (input_rules.BODY_MAX + 1)                     # also over 400 KB as UTF-16
    assert api.post(f"{R}/issues", token=alice, json={"title": "t", "body": big}).status == 422
    assert api.post(f"{R}/issues/1/comments", token=alice, json={"body": big}).status == 422
    assert api.patch(f"{R}/issues/1", token=alice, json={"body": big}).status == 422
    huge = "x" * 450_000                                       # over DynamoDB's item limit
    assert api.post(f"{R}/issues", token=alice, json={"title": "t", "body": huge}).status == 422
    fits = api.post(f"{R}/issues", token=alice, json={"title": "t",
                                                      "body": "y" * input_rules.BODY_MAX})
    assert fits.status == 201 and fits.json["number"] == 2      # no number was burned
    # Within every text limit, yet its copies (the issue, the event in the outbox, old
    # and new text of an edit) may overflow a 400 KB item: 413, nothing written.
    wide = "\U0001f600" * input_rules.BODY_MAX
    for method, path, payload in (("POST", "/issues", {"title": "t", "body": wide}),
                                  ("PATCH", "/issues/2", {"body": wide}),
                                  ("POST", "/issues/2/comments", {"body": wide})):
        resp = api.request(method, R + path, json=payload, token=alice)
        assert resp.status in (200, 201, 413), (method, path, resp)
    again = api.post(f"{R}/issues", token=alice, json={"title": "after"}).json["number"]
    listed = api.get(f"{R}/issues?state=all&limit=50", token=alice).json
    assert again == max(i["number"] for i in listed) == len(listed)   # no number burned
    assert api.post(f"{R}/milestones", token=alice, json={
        "title": "big", "description": "d" * 1_000_000}).status == 422
    assert api.patch(R, token=alice, json={"description": "d" * 3000}).status == 422
    assert api.patch(R, token=alice, json={"website": "w" * 2000}).status == 422
    _assert_lists_answer(api, scene)


def test_deep_json_and_body_size(api, scene):
    alice = scene["alice"]
    deep = api.post(f"{R}/issues", token=alice, body=DEEP,
                    headers={"Content-Type": "application/json"})
    assert deep.status == 400 and deep.json["message"]
    too_deep: list = []
    for _ in range(input_rules.MAX_DEPTH + 1):
        too_deep = [too_deep]
    nested = api.post(f"{R}/issues", token=alice, json={"title": "t", "x": too_deep})
    assert nested.status == 400
    bomb = gzip.compress(b'{"title": "' + b"a" * (7 << 20) + b'"}')
    resp = api.post(f"{R}/issues", token=alice, body=bomb, headers={
        "Content-Type": "application/json", "Content-Encoding": "gzip"})
    assert resp.status == 413
    assert api.get(f"{R}/issues?state=all", token=alice).headers["x-total-count"] == "1"


def test_every_answer_has_a_request_id_and_a_5xx_names_it(api, scene, monkeypatch, caplog):
    import json

    from chalicelib.issues import service as issues

    ok = api.get(f"{R}/issues", token=scene["alice"])
    assert ok.status == 200 and ok.headers["x-request-id"]

    def explode(*args, **kwargs):
        raise RuntimeError("boom in the service")
    monkeypatch.setattr(issues, "create_issue", explode)
    caplog.set_level("ERROR", logger="nimbus.gateway")
    resp = api.post(f"{R}/issues", token=scene["alice"], json={"title": "t"})
    assert resp.status == 500
    request_id = resp.headers["x-request-id"]
    assert resp.json["request_id"] == request_id and request_id in resp.json["message"]
    assert "Traceback" not in resp.body.decode() and "boom" not in resp.body.decode()
    logged = [json.loads(r.getMessage()) for r in caplog.records if r.name == "nimbus.gateway"]
    assert len(logged) == 1
    assert logged[0]["request_id"] == request_id and logged[0]["status"] == 500
    assert "RuntimeError: boom in the service" in logged[0]["traceback"]
