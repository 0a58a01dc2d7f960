"""A repository's lifecycle in the browser (chalicelib/web/lifecycle_pages.py,
template_forms.py, migrate_pages.py, lifecycle_view.py): transfer from the settings
page to an organization (at once) and to a user (who accepts or declines from the
banner on the repository's page, or the owner cancels); a repository generated from a
template through the form; a plain git migration against C git's http-backend and a
project migration whose migrating page stands at ``/{owner}/{repo}`` until it is done,
failing, retried and deleted.  Bad input comes back beside its field with nothing
written, every form needs its CSRF token, strangers get the 404 page."""
from __future__ import annotations

import re

import pytest

from chalicelib import migrations
from chalicelib.errors import InvalidInput
from tests.migrations.project_fakes import FakeSource, pump
from tests.migrations.test_migration_api import queued  # noqa: F401
from tests.repo_admin.test_migrations import local_networks_allowed, remote  # noqa: F401
from tests.web.test_web_actions import WebUser, error_shown, field_error_shown, text


@pytest.fixture
def scene(api):
    """alice owns public ``proj`` (a README, a label) and private ``secret``, and the
    organization ``acme``; bob and carol have accounts.  Everyone signed in."""
    for name in ("alice", "bob", "carol"):
        api.create_user(name, email=f"{name}@example.com")
    tokens = {name: api.create_token(name) for name in ("alice", "bob")}
    for name, private in (("proj", False), ("secret", True)):
        assert api.post("/user/repos", token=tokens["alice"], json={
            "name": name, "private": private, "auto_init": True}).status == 201
    assert api.post("/repos/alice/proj/labels", token=tokens["alice"],
                    json={"name": "bug", "color": "#ee0701"}).status == 201
    assert api.post("/orgs", token=tokens["alice"], json={"username": "acme"}).status == 201
    users = {n: WebUser(api).sign_in(n) for n in ("alice", "bob", "carol")}
    return dict(users, tokens=tokens, anonymous=WebUser(api))


def record(api, scene, path: str, who: str = "alice"):
    return api.get(f"/repos/{path}", token=scene["tokens"][who])


# Transfer ---------------------------------------------------------------------------

def test_transfer_to_a_user_is_accepted_declined_or_cancelled(api, scene):
    alice, bob, carol = scene["alice"], scene["bob"], scene["carol"]
    page = alice.get("/alice/proj/settings")
    assert page.status == 200 and 'action="/alice/proj/settings/transfer"' in text(page)
    # A wrong confirmation, an unknown owner: the form again, nothing written.
    wrong = alice.post("/alice/proj/settings/transfer",
                       {"new_owner_name": "bob", "repo_name": "nope"})
    assert wrong.status == 422 and field_error_shown(wrong, "transfer_repo_name", "does not match")
    assert 'value="bob"' in text(wrong)
    unknown = alice.post("/alice/proj/settings/transfer",
                         {"new_owner_name": "nobody-here", "repo_name": "proj"})
    assert unknown.status == 422
    assert field_error_shown(unknown, "transfer_new_owner", "new owner does not exist")
    assert record(api, scene, "alice/proj").json["repo_transfer"] is None
    # Without the form's token: refused, nothing written.
    assert alice.post("/alice/proj/settings/transfer",
                      {"new_owner_name": "bob", "repo_name": "proj"}, csrf=None).status == 403
    assert record(api, scene, "alice/proj").json["repo_transfer"] is None
    # Strangers and readers cannot start one.
    assert carol.post("/alice/proj/settings/transfer",
                      {"new_owner_name": "carol", "repo_name": "proj"}).status == 404
    assert carol.post("/alice/secret/settings/transfer",
                      {"new_owner_name": "carol", "repo_name": "secret"}).status == 404

    def start() -> None:
        made = alice.post("/alice/proj/settings/transfer",
                          {"new_owner_name": "bob", "repo_name": "proj"})
        assert made.status == 303, text(made)
        assert made.headers["location"] == "/alice/proj/settings?transfer=started#danger-zone"
        assert record(api, scene, "alice/proj").json["repo_transfer"]["recipient"]["login"] == "bob"

    start()
    settings = text(alice.get("/alice/proj/settings?transfer=started"))
    assert "Cancel transfer" in settings and "waits for their answer" in settings
    # Another transfer while this one waits is refused beside the field.
    again = alice.post("/alice/proj/settings/transfer",
                       {"new_owner_name": "carol", "repo_name": "proj"})
    # (the pending transfer hides the form: posting anyway is the service's 409)
    assert again.status == 409 and error_shown(again, "already being transferred")
    # bob sees the banner; alice and carol do not.
    home = text(bob.get("/alice/proj"))
    assert "alice</strong> wants to transfer this repository to you" in home
    assert 'action="/alice/proj/action/accept_transfer"' in home
    assert "wants to transfer" not in text(carol.get("/alice/proj"))
    assert "wants to transfer" not in text(alice.get("/alice/proj"))
    # carol cannot answer it; without the token nothing happens.
    assert carol.post("/alice/proj/action/accept_transfer", {}).status == 403
    assert bob.post("/alice/proj/action/accept_transfer", {}, csrf=None).status == 403
    assert record(api, scene, "alice/proj").json["owner"]["login"] == "alice"
    # Declined: nothing moves, nothing pending.
    declined = bob.post("/alice/proj/action/reject_transfer", {})
    assert declined.status == 303 and declined.headers["location"] == "/alice/proj"
    assert record(api, scene, "alice/proj").json["repo_transfer"] is None
    # Cancelled by the owner (bob cannot cancel: not an owner).
    start()
    assert bob.post("/alice/proj/settings/transfer/cancel", {}).status == 404
    cancelled = alice.post("/alice/proj/settings/transfer/cancel", {})
    assert cancelled.status == 303
    assert record(api, scene, "alice/proj").json["repo_transfer"] is None
    assert "The transfer was cancelled" in text(alice.get(cancelled.headers["location"]))
    # Accepted: the repository is bob's.
    start()
    accepted = bob.post("/alice/proj/action/accept_transfer", {})
    assert accepted.status == 303 and accepted.headers["location"] == "/bob/proj"
    moved = record(api, scene, "bob/proj", "bob").json
    assert moved["owner"]["login"] == "bob" and moved["repo_transfer"] is None
    assert bob.get("/bob/proj").status == 200


def test_transfer_refuses_a_name_the_new_owner_has(api, scene):
    alice = scene["alice"]
    assert api.post("/user/repos", token=scene["tokens"]["bob"],
                    json={"name": "proj"}).status == 201
    clash = alice.post("/alice/proj/settings/transfer",
                       {"new_owner_name": "bob", "repo_name": "proj"})
    assert clash.status == 422
    assert field_error_shown(clash, "transfer_new_owner", "already exists")
    assert record(api, scene, "alice/proj").json["repo_transfer"] is None


def test_transfer_to_an_organization_happens_at_once(api, scene):
    alice = scene["alice"]
    moved = alice.post("/alice/proj/settings/transfer",
                       {"new_owner_name": "acme", "repo_name": "proj"})
    assert moved.status == 303 and moved.headers["location"] == "/acme/proj"
    found = record(api, scene, "acme/proj").json
    assert found["owner"]["login"] == "acme" and found["repo_transfer"] is None
    assert alice.get("/acme/proj").status == 200


# Templates --------------------------------------------------------------------------

def test_generate_from_a_template(api, scene):
    bob, carol = scene["bob"], scene["carol"]
    plain = record(api, scene, "alice/proj").json
    assert "Use this template" not in text(bob.get("/alice/proj"))
    assert bob.get(f"/repo/create?template_id={plain['id']}").status == 404
    assert api.patch("/repos/alice/proj", token=scene["tokens"]["alice"],
                     json={"template": True}).status == 200
    home = text(bob.get("/alice/proj"))
    assert '<span class="label">Template</span>' in home
    link = f"/repo/create?template_id={plain['id']}"
    assert f'href="{link}"' in home
    assert "Use this template" not in text(scene["anonymous"].get("/alice/proj"))
    form = bob.get(link)
    assert form.status == 200 and 'name="git_content"' in text(form)
    assert 'name="protected_branch"' in text(form) and 'value="bob"' in text(form)
    fields = {"template_id": str(plain["id"]), "owner": "bob", "repo_name": "sprout",
              "description": "grown", "git_content": "on", "labels": "on"}
    # Bad input: each beside its field, nothing written.
    none = bob.post("/repo/create", {**fields, "git_content": "", "labels": ""})
    assert none.status == 422 and field_error_shown(none, "items", "at least one")
    stranger = bob.post("/repo/create", {**fields, "owner": "nobody-here"})
    assert stranger.status == 422 and field_error_shown(stranger, "owner", "does not exist")
    theirs = bob.post("/repo/create", {**fields, "owner": "alice"})
    assert theirs.status == 403 and field_error_shown(theirs, "owner", "Only admin")
    badname = bob.post("/repo/create", {**fields, "repo_name": "no spaces"})
    assert badname.status == 422 and field_error_shown(badname, "repo_name", "[Name]")
    assert 'value="no spaces"' in text(badname)
    assert bob.post("/repo/create", fields, csrf=None).status == 403
    assert record(api, scene, "bob/sprout", "bob").status == 404
    # The template's files and labels.
    made = bob.post("/repo/create", fields)
    assert made.status == 303 and made.headers["location"] == "/bob/sprout"
    sprout = record(api, scene, "bob/sprout", "bob").json
    assert sprout["description"] == "grown" and sprout["empty"] is False
    assert api.get("/repos/bob/sprout/raw/README.md", token=scene["tokens"]["bob"]).status == 200
    labels = api.get("/repos/bob/sprout/labels", token=scene["tokens"]["bob"]).json
    assert [label["name"] for label in labels] == ["bug"]
    again = bob.post("/repo/create", fields)
    assert again.status == 409 and field_error_shown(again, "repo_name", "already exists")
    # A private template is a 404 to whoever cannot see it; so is an id that names nothing.
    secret = record(api, scene, "alice/secret").json
    assert carol.get(f"/repo/create?template_id={secret['id']}").status == 404
    assert carol.get("/repo/create?template_id=999999").status == 404


def test_a_repository_that_is_no_template_is_refused(api, scene):
    plain = record(api, scene, "alice/proj").json
    refused = scene["bob"].post("/repo/create", {
        "template_id": str(plain["id"]), "owner": "bob", "repo_name": "x", "topics": "on"})
    assert refused.status == 422 and field_error_shown(refused, "items", "not a template")
    assert record(api, scene, "bob/x", "bob").status == 404


# Migrations -------------------------------------------------------------------------

def test_git_migration_through_the_form(api, scene, remote, local_networks_allowed):  # noqa: F811
    alice = scene["alice"]
    choose = text(alice.get("/repo/migrate"))
    assert 'href="/repo/migrate?service_type=1"' in choose
    assert 'href="/repo/migrate?service_type=3"' in choose
    form = alice.get("/repo/migrate?service_type=1")
    assert form.status == 200 and 'name="mirror"' in text(form)
    assert 'name="issues"' not in text(form)
    fields = {"service": "git", "clone_addr": remote["url"], "repo_owner": "alice",
              "repo_name": "copy", "description": "brought"}
    taken = alice.post("/repo/migrate", {**fields, "repo_name": "proj"})
    assert taken.status == 409 and field_error_shown(taken, "repo_name", "already exists")
    nobody = alice.post("/repo/migrate", {**fields, "repo_owner": "nobody-here"})
    assert nobody.status == 422 and field_error_shown(nobody, "repo_owner", "does not exist")
    empty = alice.post("/repo/migrate", {**fields, "clone_addr": ""})
    assert empty.status == 422 and field_error_shown(empty, "clone_addr", "Required")
    assert alice.post("/repo/migrate", fields, csrf=None).status == 403
    assert record(api, scene, "alice/copy").status == 404
    made = alice.post("/repo/migrate", {**fields, "auth_password": "pw-not-shown"})
    assert made.status == 303 and made.headers["location"] == "/alice/copy"
    copy = record(api, scene, "alice/copy").json
    assert copy["original_url"] == remote["url"] and copy["description"] == "brought"
    assert api.get("/repos/alice/copy/raw/hello.txt").body == b"hello\n"
    # Visitors are sent to sign in.
    visitor = scene["anonymous"]
    assert visitor.get("/repo/migrate").headers["location"].startswith("/user/login?")


def test_loopback_source_is_refused_beside_the_address(api, scene, remote):  # noqa: F811
    refused = scene["alice"].post("/repo/migrate", {
        "service": "git", "clone_addr": remote["url"], "repo_owner": "alice",
        "repo_name": "copy"})
    assert refused.status == 422 and 'aria-describedby="clone_addr-error"' in text(refused)
    assert record(api, scene, "alice/copy").status == 404


@pytest.fixture
def source(remote):  # noqa: F811
    fake = FakeSource(issues_n=2, pulls_n=0)
    migrations.use_source_opener(lambda *a, **kw: fake)
    yield fake
    migrations.use_source_opener(None)


def project_fields(remote) -> dict:  # noqa: F811
    return {"service": "gitea", "clone_addr": remote["url"], "repo_owner": "alice",
            "repo_name": "moved", "auth_token": "s3cret-token-value", "issues": "on",
            "labels": "on", "milestones": "on"}


def test_small_project_is_done_when_the_form_answers(api, scene, remote, source,  # noqa: F811
                                                     local_networks_allowed):  # noqa: F811
    """As the API: the first turn runs in the request, so a small project is complete."""
    made = scene["alice"].post("/repo/migrate", project_fields(remote))
    assert made.status == 303 and made.headers["location"] == "/alice/moved"
    assert record(api, scene, "alice/moved").json["open_issues_count"] == 2
    home = scene["alice"].get("/alice/moved")
    assert home.status == 200 and "Migrating" not in text(home)
    # Failed for good in the request: the form says why, nothing is left.
    source.fail_on, source.fail_with = "labels", InvalidInput
    refused = scene["alice"].post("/repo/migrate", {**project_fields(remote),
                                                    "repo_name": "other"})
    assert refused.status == 422 and field_error_shown(refused, "clone_addr", "Migration failed")
    assert "s3cret-token-value" not in text(refused) and 'value="other"' in text(refused)
    assert record(api, scene, "alice/other").status == 404
    assert api.get("/repos/alice/other/migration",
                   token=scene["tokens"]["alice"]).status == 404


def test_project_migration_shows_its_migrating_page(api, scene, remote, source,  # noqa: F811
                                                    queued, local_networks_allowed):  # noqa: F811
    alice = scene["alice"]
    form = text(alice.get("/repo/migrate?service_type=3"))
    assert 'name="pull_requests"' in form and 'name="mirror"' not in form
    made = alice.post("/repo/migrate", project_fields(remote))
    assert made.status == 303 and made.headers["location"] == "/alice/moved"
    page = alice.get("/alice/moved")
    body = text(page)
    assert page.status == 200 and "Migrating from" in body
    assert 'data-reload-after="5"' in body and '<meta http-equiv="refresh"' not in body
    assert "s3cret" not in body and "Issues" in body
    # Queued: no step runs yet, every one waits for a worker.
    assert "<td>running</td>" not in body and "<td>Git data</td><td>waiting</td>" in body
    assert 'data-reload-after' not in text(alice.get("/alice/moved?refresh=off"))
    # Only the doer and the owner's admins see it; the API still answers 404.
    assert scene["carol"].get("/alice/moved").status == 404
    assert scene["anonymous"].get("/alice/moved").status == 404
    assert record(api, scene, "alice/moved").status == 404
    pump()
    done = alice.get("/alice/moved")
    assert done.status == 200 and "Migrating" not in text(done)
    assert record(api, scene, "alice/moved").json["open_issues_count"] == 2


def test_failed_migration_is_retried_or_deleted(api, scene, remote, source,  # noqa: F811
                                                queued, local_networks_allowed):  # noqa: F811
    alice = scene["alice"]
    source.fail_on = "labels"
    assert alice.post("/repo/migrate", project_fields(remote)).status == 303
    pump()
    failed = text(alice.get("/alice/moved"))
    assert "failed" in failed and "s3cret-token-value" not in failed
    assert 'data-reload-after' not in failed
    assert 'action="/alice/moved/settings/migrate/retry"' in failed
    # Strangers cannot retry or delete it; without the token nothing happens.
    assert scene["carol"].post("/alice/moved/settings/migrate/retry", {}).status == 404
    assert alice.post("/alice/moved/settings/migrate/cancel", {}, csrf=None).status == 403
    source.fail_on = ""
    retried = alice.post("/alice/moved/settings/migrate/retry", {})
    assert retried.status == 303 and retried.headers["location"] == "/alice/moved"
    assert "Migrating from" in text(alice.get("/alice/moved"))
    pump()
    assert record(api, scene, "alice/moved").status == 200
    # Another one fails, and is deleted: nothing is left at its address.
    source.fail_on = "labels"
    assert alice.post("/repo/migrate", {**project_fields(remote),
                                        "repo_name": "again"}).status == 303
    pump()
    assert "failed" in text(alice.get("/alice/again"))
    deleted = alice.post("/alice/again/settings/migrate/cancel", {})
    assert deleted.status == 303 and deleted.headers["location"] == "/alice"
    assert alice.get("/alice/again").status == 404
    assert api.get("/repos/alice/again/migration",
                   token=scene["tokens"]["alice"]).status == 404


def test_new_migration_is_linked(scene):
    alice = scene["alice"]
    assert 'href="/repo/migrate"' in text(alice.get("/repo/create"))
    assert re.search(r'<a href="/repo/migrate">New migration</a>', text(alice.get("/alice")))
