"""The scene the page-wide web tests share: a local runtime (as `make run` serves it)
with alice's ``garden``, the ``acme`` organization and two project migrations of hers
that are not done (``moving`` queued, ``stalled`` failed), and a path for every GET page
(``AUDITED`` for everyone, ``SIGNED`` for alice signed in).  Used by the accessibility
audit (tests/web/test_accessibility.py) and the forms' bad-input sweep
(tests/web/test_form_input.py).
"""
from __future__ import annotations

import base64
from contextlib import contextmanager
from pathlib import Path

import httpx

from chalicelib.local.runtime import LocalRuntime

USERS = {"alice": "alice-password", "bob": "bob-password"}
TIMEOUT = 60
R = "/alice/garden"

# operationId -> the pages it serves here (``{pull}``, ``{sha}`` and the like are filled
# in from the scene); "signed" pages are opened signed in only.
AUDITED: dict[str, tuple[str, ...]] = {
    "webHome": ("/",),
    "webExploreRepos": ("/explore/repos?q=garden",),
    "webProfile": ("/alice", "/acme"),
    "webRepoHome": (R,),
    "webRepoSource": (f"{R}/src/branch/main/app.py", f"{R}/src/branch/main/docs",
                      f"{R}/src/branch/main/docs/guide.md"),
    "webRepoCommits": (f"{R}/commits/branch/main",),
    "webRepoCommitsOfTag": (f"{R}/commits/tag/v1",),
    "webRepoCommit": (f"{R}/commit/{{sha}}",),
    "webRepoBranches": (f"{R}/branches",),
    "webRepoTags": (f"{R}/tags",),
    "webRepoReleases": (f"{R}/releases",),
    "webRepoRelease": (f"{R}/releases/tag/v1",),
    "webRepoIssues": (f"{R}/issues", f"{R}/issues?state=closed"),
    "webRepoIssue": (f"{R}/issues/{{issue}}",),
    "webRepoPulls": (f"{R}/pulls",),
    "webRepoPull": (f"{R}/pulls/{{pull}}",),
    "webRepoPullFiles": (f"{R}/pulls/{{pull}}/files",),
    "webRepoPullCommits": (f"{R}/pulls/{{pull}}/commits",),
    "webLoginForm": ("/user/login",),
    "webRepoPageNotFound": (f"{R}/no/such/page",),
    "webRepoBlame": (f"{R}/blame/branch/main/app.py",),
    "webRepoLabels": (f"{R}/labels",),
    "webRepoMilestones": (f"{R}/milestones",),
    "webOrgMembers": ("/org/acme/members",),
    "webWiki": (f"{R}/wiki", f"{R}/wiki/?action=_pages"),
    "webWikiPage": (f"{R}/wiki/Home", f"{R}/wiki/Home?action=_revision"),
    "webWikiPages": (f"{R}/wiki/_pages",),
    "webWikiSearch": (f"{R}/wiki/search?q=home",),
    # The ref history (_undo_scene: a branch created and deleted), with alice's Restore
    # buttons when signed in; and a filter that matches nothing.
    "webRepoRefHistory": (f"{R}/activity/refs", f"{R}/activity/refs?ref=main&forced=true"),
    # Open in this scene (``SIGN_UP_OPEN``); alice, signed in, is sent to the start page.
    "webSignUpForm": ("/user/sign_up",),
}
SIGNED: dict[str, tuple[str, ...]] = {
    "webRepoCreateForm": ("/repo/create",),
    "webIssueNewForm": (f"{R}/issues/new",),
    "webCompare": (f"{R}/compare/main...feature",),
    "webReleaseNewForm": (f"{R}/releases/new",),
    "webApplications": ("/user/settings/applications",),
    "webRepoSettingsBranches": (f"{R}/settings/branches",),
    "webIssueEditForm": (f"{R}/issues/{{issue}}/edit",),
    "webRepoMilestoneNewForm": (f"{R}/milestones/new",),
    "webRepoMilestoneEditForm": (f"{R}/milestones/{{milestone}}/edit",),
    "webOrgCreateForm": ("/org/create",),
    "webOrgTeams": ("/org/acme/teams",),
    "webOrgTeamNewForm": ("/org/acme/teams/new",),
    "webOrgTeam": ("/org/acme/teams/gardeners",),
    "webOrgTeamEditForm": ("/org/acme/teams/gardeners/edit",),
    "webOrgTeamRepos": ("/org/acme/teams/gardeners/repositories",),
    "webOrgSettings": ("/org/acme/settings",),
    # Deleted repositories: alice's (``weeds``, _undo_scene) and acme's (none: the empty state).
    "webUserDeletedRepos": ("/user/settings/repos/deleted",),
    "webOrgDeletedRepos": ("/org/acme/settings/repos/deleted",),
    # The organization's audit log, with the scene's changes recorded (audit_recorded).
    "webOrgAudit": ("/org/acme/settings/audit", "/org/acme/settings/audit?since=soon"),
    "webRepoSettings": (f"{R}/settings",),
    "webRepoSettingsCollaborators": (f"{R}/settings/collaboration",),
    "webRepoSettingsHooks": (f"{R}/settings/hooks",),
    "webRepoSettingsHookNew": (f"{R}/settings/hooks/new",),
    "webRepoSettingsHook": (f"{R}/settings/hooks/{{hook}}",),
    "webRepoSettingsKeys": (f"{R}/settings/keys",),
    "webNotifications": ("/notifications", "/notifications?type=read"),
    "webUserSettings": ("/user/settings",),
    "webUserSettingsAccount": ("/user/settings/account",),
    "webUserSettingsKeys": ("/user/settings/keys",),
    "webUserSettingsSecurity": ("/user/settings/security",),
    "webTwoFactorEnrollForm": ("/user/settings/security/two_factor/enroll",),
    "webRepoFileNewForm": (f"{R}/_new/main/docs",),
    "webRepoFileUploadForm": (f"{R}/_upload/main/docs",),
    "webRepoFileEditForm": (f"{R}/_edit/main/app.py",),
    "webRepoFileDeleteForm": (f"{R}/_delete/main/docs/guide.md",),
    "webRepoMigrateForm": ("/repo/migrate", "/repo/migrate?service_type=1",
                           "/repo/migrate?service_type=3"),
    # "Use this template": the new repository form of the template ``seeds``.
    "webRepoCreateForm?template_id": ("/repo/create?template_id={template}",),
    # The wiki's forms are the same operations as its pages (``?action=``), for writers.
    "webWiki?action=_new": (f"{R}/wiki/?action=_new",),
    "webWikiPage?action=_edit": (f"{R}/wiki/Home?action=_edit",),
    # A project migration that is not done: its migrating page stands at the address,
    # for its doer (alice) only: one queued, one failed (with Retry and Delete).
    # The queued page without its self-reload (a reload during the audit would cut it).
    "webRepoHome?migrating": ("/alice/moving?refresh=off", "/alice/stalled"),
    # OAuth2: alice's applications, one of them, and its consent page.
    "webOAuth2Applications": ("/user/settings/applications/oauth2",),
    "webOAuth2ApplicationEditForm": ("/user/settings/applications/oauth2/{oauth2_app}",),
    "webOAuthAuthorize": ("/login/oauth/authorize?response_type=code&client_id={oauth2_client}"
                          "&redirect_uri=https%3A%2F%2Fci.example.com%2Fcallback"
                          "&scope=openid+profile+email&state=audit",),
}
# GET routes that are not pages a person reads: bytes, redirects, stylesheets.
NOT_PAGES = {
    "webRepoRaw": "a file's bytes",
    "webRepoMedia": "a file's bytes",
    "webPullDiffOrPatch": "a text diff",
    "webCommitDiffOrPatch": "a text diff",
    "webAsset": "a stylesheet or script",
    "webCompareChoose": "a redirect to /compare/{base}...{head}",
    # A sign-in's second step exists only after a 2FA user's right password, and the
    # admin's page only to a site admin: for the audit's users, a redirect to the sign-in
    # form and a 404 page.  tests/web/test_two_factor_accessibility.py audits them.
    "webTwoFactorForm": "a redirect for the audit's users (tests/web/"
                        "test_two_factor_accessibility.py audits the step)",
    "webTwoFactorScratchForm": "a redirect for the audit's users (tests/web/"
                               "test_two_factor_accessibility.py audits the step)",
    "webWebAuthnForm": "a redirect for the audit's users (tests/web/"
                       "test_two_factor_accessibility.py audits the security key step)",
    "webAdminUserEdit": "a 404 page for the audit's users (tests/web/"
                        "test_two_factor_accessibility.py audits it as a site admin)",
    "webAdminAudit": "a 404 page for the audit's users (tests/web/"
                     "test_audit_accessibility.py audits it as a site admin)",
    "webMustChangePasswordLink": "a redirect to /user/settings/change_password",
    # Shown only to a user a site admin asked for a new password, before any other page;
    # the audit's users have none to change (they are sent to the start page).  Its
    # fields are the account settings' password form's (webUserSettingsAccount).
    "webMustChangePasswordForm": "a redirect for the audit's users (tests/web/"
                                 "test_must_change_password.py shows the form)",
}
# Sign-up is closed by default; the scene opens it so that its form is audited.
SIGN_UP_OPEN = {"NIMBUS__SERVICE__DISABLE_REGISTRATION": "false"}


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _scene(url: str) -> dict:
    """alice's ``garden``: files in a directory with its own README, a branch with a pull
    request, a tag and a release, an issue with a label, a milestone and a comment; the
    ``acme`` organization with alice in a team."""
    api = httpx.Client(base_url=url + "/api/v1", auth=("alice", USERS["alice"]),
                       timeout=TIMEOUT)
    repo = "/repos/alice/garden"

    def must(method: str, path: str, body: dict | None = None) -> dict:
        resp = api.request(method, path, json=body)
        assert resp.status_code < 300, (method, path, resp.status_code, resp.text)
        return resp.json() if resp.content else {}
    must("POST", "/user/repos", {"name": "garden", "auto_init": True,
                                 "description": "Plants and notes"})
    must("POST", f"{repo}/contents/app.py", {"content": _b64("def main():\n    return 1\n")})
    must("POST", f"{repo}/contents/docs/guide.md", {"content": _b64("# Guide\n\nRead *me*.\n")})
    must("POST", f"{repo}/contents/docs/README.md", {"content": _b64("# Docs\n\nAll here.\n")})
    must("POST", f"{repo}/contents/feature.txt", {"content": _b64("work\n"),
                                                  "new_branch": "feature"})
    must("POST", f"{repo}/tags", {"tag_name": "v1"})
    must("POST", f"{repo}/releases", {"tag_name": "v1", "name": "First", "body": "Notes"})
    label = must("POST", f"{repo}/labels", {"name": "bug", "color": "#ee0701"})
    milestone = must("POST", f"{repo}/milestones", {"title": "Spring"})
    issue = must("POST", f"{repo}/issues", {"title": "Water the ferns", "body": "They are *dry*.",
                                            "labels": [label["id"]],
                                            "milestone": milestone["id"],
                                            "assignees": ["alice"]})
    must("POST", f"{repo}/issues/{issue['number']}/comments", {"body": "Done."})
    pull = must("POST", f"{repo}/pulls", {"head": "feature", "base": "main",
                                          "title": "Add the feature"})
    sha = must("GET", f"{repo}/branches/main")["commit"]["id"]
    must("POST", "/orgs", {"username": "acme", "full_name": "Acme"})
    team = must("POST", "/orgs/acme/teams", {"name": "gardeners", "permission": "write",
                                             "units": ["repo.code", "repo.issues"]})
    must("PUT", f"/teams/{team['id']}/members/bob")
    must("PUT", f"{repo}/collaborators/bob", {"permission": "write"})
    hook = must("POST", f"{repo}/hooks", {"type": "gitea", "active": False, "events": ["push"],
                                          "config": {"url": "https://ci.example.com/hook",
                                                     "content_type": "json"}})
    must("POST", f"{repo}/keys", {"title": "deploy", "read_only": True, "key": _ssh_key()})
    for title, text in (("Home", "# Garden wiki\n\nSee [[Planting Guide]]."),
                        ("_Sidebar", "* [[Home]]"), ("_Footer", "Kept by the gardeners.")):
        must("POST", f"{repo}/wiki/new", {"title": title, "content_base64": _b64(text)})
    template = must("POST", "/user/repos", {"name": "seeds", "auto_init": True,
                                            "template": True})
    app = must("POST", "/user/applications/oauth2", {
        "name": "Garden CI", "redirect_uris": ["https://ci.example.com/callback"]})
    return {"issue": issue["number"], "pull": pull["number"], "sha": sha,
            "milestone": milestone["id"], "hook": hook["id"], "template": template["id"],
            "oauth2_app": app["id"], "oauth2_client": app["client_id"]}


def _ssh_key() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519

    return ed25519.Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH).decode()


def _git(*args: str, cwd: Path | None = None) -> None:
    import os
    import subprocess

    env = {**os.environ, "GIT_AUTHOR_NAME": "Src", "GIT_AUTHOR_EMAIL": "src@example.com",
           "GIT_COMMITTER_NAME": "Src", "GIT_COMMITTER_EMAIL": "src@example.com",
           "GIT_TERMINAL_PROMPT": "0"}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                   timeout=TIMEOUT)


@contextmanager
def _git_remote():
    """A source repository (one commit on main) served by C git's ``http-backend`` on
    loopback, for as long as the migrations are being made: its URL."""
    import tempfile

    from tests.git_backend import serve_http_backend

    with tempfile.TemporaryDirectory(prefix="scene-remote-") as folder:
        root, work = Path(folder) / "served", Path(folder) / "work"
        root.mkdir()
        _git("init", "-q", "--bare", "-b", "main", str(root / "plants.git"))
        _git("init", "-q", "-b", "main", str(work))
        (work / "seeds.txt").write_text("seeds\n")
        _git("add", ".", cwd=work)
        _git("commit", "-q", "-m", "first", cwd=work)
        _git("push", "-q", str(root / "plants.git"), "main", cwd=work)
        server, url = serve_http_backend(root)
        try:
            yield f"{url}/plants.git"
        finally:
            server.shutdown()


def _migrations(url: str) -> None:
    """alice's project migrations ``moving`` (queued: nothing runs it, the runtime has
    no event pipeline) and ``stalled`` (its first turn, run here, fails at the labels:
    the source refuses them).  The fake source, the loopback allowance and the queueing
    without an inline turn hold only while they are made."""
    from chalicelib import migrations
    from chalicelib.errors import InvalidInput
    from chalicelib.settings import overridden
    from tests.migrations.project_fakes import FakeSource

    api = httpx.Client(base_url=url + "/api/v1", auth=("alice", USERS["alice"]),
                       timeout=TIMEOUT)
    refusing = FakeSource(fail_on="labels", fail_with=InvalidInput)
    sources = {"moving": FakeSource(), "stalled": refusing}
    settings = {"NIMBUS__MIGRATIONS__ALLOW_LOCALNETWORKS": "true",
                "NIMBUS__MIGRATIONS__INLINE_SECONDS": "0"}
    with _git_remote() as remote, overridden(settings):
        try:
            # The fake source's refusal quotes this token: the page shows it masked.
            for name, source in sources.items():
                migrations.use_source_opener(lambda *a, source=source, **kw: source)
                made = api.post("/repos/migrate", json={
                    "clone_addr": remote, "repo_name": name, "service": "gitea",
                    "auth_token": "s3cret-token-value", "issues": True, "labels": True,
                    "milestones": True})
                assert made.status_code == 201, (name, made.status_code, made.text)
            migrations.use_source_opener(lambda *a, **kw: refusing)
            assert migrations.run_migration_step("alice", "stalled", 1) == "failed"
        finally:
            migrations.use_source_opener(None)


def audit_recorded() -> None:
    """The scene's changes in the audit log, so its pages show entries: the runtime runs
    no event pipeline, so each waiting event is handed to the audit-log consumer here,
    as the worker would, and left in the outbox as it was."""
    import time

    from chalicelib import audit, events
    from chalicelib.store import outbox

    for item in outbox.pending(older_than=time.time() + 3600):
        event = events.from_message(outbox.message_of(item))
        if audit.wants_event(event):
            audit.on_event(event)


def _undo_scene(url: str) -> None:
    """What the undo pages show: alice's deleted repository ``weeds`` and garden's branch
    ``old-idea``, created and deleted, in the ref history (handed to its consumer here, as
    the worker would, the events left in the outbox)."""
    import time

    from chalicelib import events, ref_history
    from chalicelib.store import outbox

    api = httpx.Client(base_url=url + "/api/v1", auth=("alice", USERS["alice"]),
                       timeout=TIMEOUT)
    for method, path, body in (
            ("POST", "/user/repos", {"name": "weeds", "auto_init": True}),
            ("DELETE", "/repos/alice/weeds", None),
            ("POST", "/repos/alice/garden/branches", {"new_branch_name": "old-idea"}),
            ("DELETE", "/repos/alice/garden/branches/old-idea", None)):
        resp = api.request(method, path, json=body)
        assert resp.status_code < 300, (method, path, resp.status_code, resp.text)
    for item in outbox.pending(older_than=time.time() + 3600):
        event = events.from_message(outbox.message_of(item))
        if ref_history.wants_event(event):
            ref_history.on_event(event)


@contextmanager
def scene_runtime(data_dir: Path):
    """The runtime with the users and the scene (``runtime.scene``: the numbers and ids
    the paths name)."""
    from chalicelib.settings import overridden

    with overridden(SIGN_UP_OPEN), \
            LocalRuntime(port=0, data_dir=data_dir, access_log=False) as runtime:
        from chalicelib.accounts.service import ensure_admin

        ensure_admin("boss", "boss-password", "boss@example.com")
        for name, password in USERS.items():
            httpx.post(f"{runtime.url}/api/v1/admin/users", auth=("boss", "boss-password"),
                       json={"username": name, "email": f"{name}@example.com",
                             "password": password, "must_change_password": False},
                       timeout=TIMEOUT).raise_for_status()
        runtime.scene = _scene(runtime.url)
        _migrations(runtime.url)
        audit_recorded()
        _undo_scene(runtime.url)
        yield runtime


def paths(runtime, table: dict) -> list[str]:
    """The table's paths with the scene's numbers filled in."""
    return [p.format(**runtime.scene) for found in table.values() for p in found]
