"""The webhooks domain's rules, on the in-memory twin (the fast layer): a hook's URL (its
form, then ``[webhook] ALLOWED_HOST_LIST``), event subscriptions and what an edit resets,
which hooks an event reaches (``matching_hooks``), and who may manage repository,
organization and system hooks.

Hook URLs here are IP literals: a host name would be resolved when the hook is made."""
from __future__ import annotations

import pytest

from chalicelib import repos
from chalicelib.errors import InvalidInput, NotFoundError, PermissionDenied
from chalicelib.orgs import teams
from chalicelib.orgs.options import CreateTeamOption
from chalicelib.repos import access
from chalicelib.repos.options import AddCollaboratorOption
from chalicelib.store import unit_of_work
from chalicelib.webhooks import service as hooks
from chalicelib.webhooks.options import CreateHookOption, EditHookOption
from tests import memory_scene as scene
from tests.conftest import drain_outbox
from tests.environment import settings_env

PUBLIC_URL = "http://8.8.8.8/hook"          # an external address: allowed by default
LOCAL_URL = "http://127.0.0.1:8080/hook"


def option(url: str = PUBLIC_URL, **fields) -> CreateHookOption:
    return CreateHookOption(type="forgejo", config={"url": url, "content_type": "json",
                                                    "secret": "s3cret"}, **fields)


@pytest.fixture
def people(memory):
    return {"alice": scene.user("alice"), "bob": scene.user("bob"),
            "dave": scene.user("dave"), "root": scene.user("root", admin=True)}


@pytest.fixture
def app(people):
    """alice's ``app``, which bob writes to and dave administers."""
    view = scene.repo(people["alice"], "app")
    for name, mode in (("bob", "write"), ("dave", "admin")):
        access.add_collaborator(people["alice"], view, name,
                                AddCollaboratorOption(permission=mode))
    return view


def scope_for(account, view) -> hooks.Scope:
    return hooks.repo_scope(repos.view_of(view.repo, scene.caller(account)))


def test_a_hook_url_is_http_to_a_host_the_allowed_list_lets_through(people, app):
    alice, scope = people["alice"], scope_for(people["alice"], app)
    for url in ("ftp://8.8.8.8/hook", "8.8.8.8/hook", "http://8.8. 8.8/"):
        with pytest.raises(InvalidInput, match="^Invalid url$"):
            hooks.create_hook(alice, scope, option(url))
    with pytest.raises(InvalidInput) as local:
        hooks.create_hook(alice, scope, option(LOCAL_URL))
    assert local.value.message == (
        "webhook can only call allowed HTTP servers (check your webhook.ALLOWED_HOST_LIST "
        "setting), deny '127.0.0.1(127.0.0.1:8080)'")
    assert hooks.create_hook(alice, scope, option(PUBLIC_URL)).url == PUBLIC_URL
    with settings_env({"NIMBUS__WEBHOOK__ALLOWED_HOST_LIST": "loopback"}):
        assert hooks.create_hook(alice, scope, option(LOCAL_URL)).url == LOCAL_URL
        with pytest.raises(InvalidInput, match="ALLOWED_HOST_LIST"):
            hooks.create_hook(alice, scope, option(PUBLIC_URL))
    with settings_env({"NIMBUS__WEBHOOK__ALLOWED_HOST_LIST": "*"}):
        # Cloud credential endpoints stay out of reach whatever the setting says.
        with pytest.raises(InvalidInput, match="deny '169.254.169.254"):
            hooks.create_hook(alice, scope, option("http://169.254.169.254/latest"))
    assert [h.url for h in hooks.list_hooks(scope)] == [PUBLIC_URL, LOCAL_URL]


def test_subscriptions_are_names_of_flags_and_none_means_push(people, app):
    alice, scope = people["alice"], scope_for(people["alice"], app)
    assert hooks.events_array(hooks.create_hook(alice, scope, option())) == ["push"]
    issues = hooks.create_hook(alice, scope, option(events=["ISSUES"]))
    assert hooks.events_array(issues) == ["issues", "issue_assign", "issue_label",
                                          "issue_milestone", "issue_comment"]
    base_only = hooks.create_hook(alice, scope, option(events=["issues_only", "fork"]))
    assert hooks.events_array(base_only) == ["fork", "issues"]
    with pytest.raises(InvalidInput, match="^Invalid hook event: tags$"):
        hooks.create_hook(alice, scope, option(events=["push", "tags"]))
    with pytest.raises(InvalidInput, match=r"^\[BranchFilter\]: unexpected end of input$"):
        hooks.create_hook(alice, scope, option(branch_filter="[main"))
    assert len(hooks.list_hooks(scope)) == 3                # the refused ones left nothing


def test_an_edit_resets_what_it_omits_but_never_the_secret_or_active(people, app):
    alice, scope = people["alice"], scope_for(people["alice"], app)
    made = hooks.create_hook(alice, scope, option(
        events=["create"], branch_filter="main", authorization_header="Bearer t", active=True))
    hooks.edit_hook(alice, scope, int(made.id), EditHookOption(
        config={"url": "http://1.1.1.1/new", "secret": "other"}))
    stored = hooks.get_hook(scope, int(made.id))
    assert (stored.url, hooks.events_array(stored), stored.branch_filter,
            stored.authorization_header, stored.active, stored.secret) == (
        "http://1.1.1.1/new", ["push"], "", "", True, "s3cret")
    # A refused edit changes nothing, even what it named before the refused field, nor
    # the copy the request cached (the same request may read the hook again).
    with unit_of_work.start():
        with pytest.raises(InvalidInput, match="Invalid content type"):
            hooks.edit_hook(alice, scope, int(made.id), EditHookOption(
                config={"url": PUBLIC_URL, "content_type": "xml"}, active=False))
        cached = hooks.get_hook(scope, int(made.id))
        assert (cached.url, cached.active) == ("http://1.1.1.1/new", True)
    again = hooks.get_hook(scope, int(made.id))
    assert (again.url, again.active) == ("http://1.1.1.1/new", True)


def test_an_event_reaches_the_repository_s_then_the_org_s_active_hooks(people):
    alice = people["alice"]
    acme = scene.org(alice, "acme")
    view = scene.repo(acme, "svc", actor=alice)
    on_repo = scope_for(alice, view)
    on_org = hooks.org_scope(alice, "acme")

    def made(scope, **fields):
        return int(hooks.create_hook(alice, scope, option(**fields)).id)

    org_pushes = made(on_org, events=["push"], active=True)
    pushes = made(on_repo, active=True)
    main_only = made(on_repo, events=["push"], branch_filter="{main,release/*}", active=True)
    made(on_repo, events=["push", "issues"], active=False)            # inactive: never

    def reached(event, branch=None):
        return [int(h.id) for h in hooks.matching_hooks(view.repo, acme, event, branch)]

    assert reached("push", "main") == [pushes, main_only, org_pushes]
    assert reached("push", "release/2.0") == [pushes, main_only, org_pushes]   # * crosses /
    assert reached("push", "dev") == [pushes, org_pushes]
    assert reached("push") == [pushes, main_only, org_pushes]          # a tag: no filter
    assert reached("issues") == []
    with pytest.raises(ValueError, match="unknown webhook event type 'tag_push'"):
        reached("tag_push")


def test_repository_hooks_are_for_repository_admins(people, app):
    with pytest.raises(PermissionDenied, match="owner or a collaborator with admin"):
        scope_for(people["bob"], app)                                  # a writer
    for name in ("alice", "dave", "root"):                             # owner, admin, site
        assert scope_for(people[name], app) == hooks.Scope("repo", int(app.repo.id))
    with pytest.raises(PermissionDenied):
        hooks.system_scope(people["alice"])
    assert hooks.system_scope(people["root"]) == hooks.SYSTEM


def test_organization_hooks_are_for_its_owners(people):
    alice, bob, dave = people["alice"], people["bob"], people["dave"]
    acme = scene.org(alice, "acme", visibility="private")
    admins = teams.create_team(alice, acme, CreateTeamOption(name="admins", permission="admin"))
    teams.add_team_member(alice, admins, bob)
    with pytest.raises(PermissionDenied, match="Must be an organization owner"):
        hooks.org_scope(bob, "acme")                     # a member, even an admin team's
    with pytest.raises(NotFoundError, match=r"organization does not exist \[name: acme\]"):
        hooks.org_scope(dave, "acme")                    # a stranger to a private org
    with pytest.raises(NotFoundError):
        hooks.org_scope(alice, "alice")                  # a user is no organization
    assert hooks.org_scope(alice, "acme") == hooks.Scope("org", int(acme.id))


def test_each_change_of_a_hook_is_one_event_and_a_deleted_hook_is_gone(people, app):
    alice, scope = people["alice"], scope_for(people["alice"], app)
    drain_outbox()                                       # the scene's own events
    hook_id = int(hooks.create_hook(alice, scope, option()).id)
    hooks.edit_hook(alice, scope, hook_id, EditHookOption(active=True))
    hooks.delete_hook(alice, scope, hook_id)
    changes = [e for e in drain_outbox() if type(e).__name__ == "HookChanged"]
    assert [(e.action, e.hook_id, e.owner_kind) for e in changes] == [
        ("created", hook_id, "repo"), ("edited", hook_id, "repo"), ("deleted", hook_id, "repo")]
    for again in (lambda: hooks.delete_hook(alice, scope, hook_id),
                  lambda: hooks.edit_hook(alice, scope, hook_id, EditHookOption(active=False))):
        with pytest.raises(NotFoundError, match=f"webhook does not exist \\[id: {hook_id}\\]"):
            again()
    assert hooks.list_hooks(scope) == []
