"""Scenarios for the web pages (chalicelib/web): every page a reader opens, anonymous
and signed in (the session cookie: pages take no token; its account is one more item in
the same batch).  Raw files are downloads, which a token may fetch too.

``alice/demo`` (auto-initialized: a README) gets, once, a second file, a branch with a
pull request, a tag, a release and an issue with a comment.

The sign-in and sign-out POSTs carry a session cookie and a CSRF token, which the
bench's requests cannot: they are EXEMPT here and covered by tests/web/test_web_session.py.
"""
from __future__ import annotations

import base64

from scenarios_git import LOCAL_REMOTES, remote
from scenarios_migrations import RefusingSource, failed_migration
from scenarios_repos import any_deploy_key, any_hook, collaborator, index_alices_repos
from scenarios_webhooks import repo_delivery
from scenarios_wiki import demo_wiki
from scene import Req, Scene, after, settings_in_force

DEMO = "/repos/alice/demo"
OPEN_SIGN_UP = {"NIMBUS__SERVICE__DISABLE_REGISTRATION": "false"}
WEB = "/alice/demo"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def web_scene(s: Scene) -> dict:
    def build() -> dict:
        s.must("POST", f"{DEMO}/contents/app.py", "token",
               {"content": _b64("def main():\n    return 1\n")})
        s.must("POST", f"{DEMO}/contents/web.txt", "token",
               {"content": _b64("web\n"), "new_branch": "web-feature"})
        s.must("POST", f"{DEMO}/tags", "token", {"tag_name": "web-v1"})
        s.must("POST", f"{DEMO}/releases", "token", {"tag_name": "web-v1", "name": "Web v1",
                                                     "body": "notes"})
        issue = s.must("POST", f"{DEMO}/issues", "token", {"title": "Web issue", "body": "*x*"})
        s.must("POST", f"{DEMO}/issues/{issue['number']}/comments", "token", {"body": "ok"})
        pull = s.must("POST", f"{DEMO}/pulls", "token", {"head": "web-feature", "base": "main",
                                                         "title": "Web pull"})
        head = s.must("GET", f"{DEMO}/branches/main", "token", expect=200)["commit"]["id"]
        return {"issue": issue["number"], "pull": pull["number"], "head": head}
    return s.once("web_scene", build)


def dashboard_scene(s: Scene) -> None:
    """What alice's dashboard shows, made once: an organization, an issue of alice/demo
    assigned to her, a pull request of root's asking for her review, a thread telling
    her about it and her feed (the bench runs no event worker: the set-up hands the
    events to the consumers, as the notifications and activity scenarios do); and her
    session, so signing in is not counted with the page."""
    from scenarios_activity import activities
    from scenarios_notifications import _deliver_pending as notify
    from scenarios_notifications import mentioning_issue
    from scenarios_orgs import org

    def build() -> None:
        org(s)
        _index(s.must("POST", f"{DEMO}/issues", "admin", {"title": "Yours",
                                                           "assignees": ["alice"]}))
        s.must("POST", f"{DEMO}/contents/review.txt", "admin",
               {"content": _b64("look\n"), "new_branch": "web-review"})
        pull = s.must("POST", f"{DEMO}/pulls", "admin", {"head": "web-review", "base": "main",
                                                         "title": "Please review"})
        s.must("POST", f"{DEMO}/pulls/{pull['number']}/requested_reviewers", "admin",
               {"reviewers": ["alice"]})
        _index(s.must("GET", f"{DEMO}/issues/{pull['number']}", "admin", expect=200))
        mentioning_issue(s)
        activities(s)
        notify()
    s.once("dashboard_scene", build)
    s.session_cookie()


def _index(issue: dict) -> None:
    """What the event worker would do for the issue search index (its lists of who is
    assigned and whose review is asked), for this issue only: the other scenarios'
    counts stay what they were."""
    from chalicelib import search

    search.index_issue(int(issue["repository"]["id"]), int(issue["number"]))


def org_web_scene(s: Scene) -> dict:
    """alice's organization with a write team (a member and a repository), as the
    organization scenarios make them, and her session, so signing in is not counted
    with the page."""
    from scenarios_orgs import org, team

    def build() -> dict:
        made = team(s)
        name = s.must("GET", f"/teams/{made['id']}", "token", expect=200)["name"]
        return {"org": org(s), "team": name}
    found = s.once("org_web_scene", build)
    s.session_cookie()
    return found


def org_page(s: Scene, *more: str) -> str:
    return "/org/" + org_web_scene(s)["org"] + "".join("/" + part for part in more)


def three_collaborators(s: Scene) -> None:
    """alice/demo with three collaborators at least (write, read, admin), so the
    collaborators page's budget shows it does not grow with the list."""
    def build() -> None:
        collaborator(s)
        for permission in ("read", "admin"):
            s.must("PUT", f"{DEMO}/collaborators/{s.new_user()}", "token",
                   {"permission": permission}, expect=204)
    s.once("web_three_collaborators", build)


def migrating_pages(s: Scene) -> list[str]:
    """alice's project migrations that are not done, made once: one queued (the bench
    runs no event worker) and one failed at its labels step (failed_migration); the
    addresses of their migrating pages (behind webRepoHome).  And her session."""
    def build() -> list[str]:
        from chalicelib import migrations

        name = s.unique("arriving")
        migrations.use_source_opener(lambda *a, **kw: RefusingSource())
        try:
            with settings_in_force({**LOCAL_REMOTES, "NIMBUS__MIGRATIONS__INLINE_SECONDS": "0"}):
                s.must("POST", "/repos/migrate", "token", {
                    "clone_addr": remote(s)["url"], "repo_name": name, "service": "gitea",
                    "labels": True}, expect=201)
        finally:
            migrations.use_source_opener(None)
        return [f"/alice/{name}", f"/alice/{failed_migration(s)}"]
    return after(s.session_cookie(), s.once("web_migrating_pages", build))


def both(path: str) -> list[Req]:
    return [Req("GET", path), Req("GET", path, "session")]


def scenarios() -> dict:
    import scenarios_web_undo

    return {
        **scenarios_web_undo.scenarios(),
        "webHome": lambda s: after(dashboard_scene(s), both("/")),
        "webNotifications": lambda s: after(dashboard_scene(s), [
            Req("GET", "/notifications", "session"),
            Req("GET", "/notifications?type=read", "session")]),
        # Signed in, alice belongs to an organization (its ids and her collaborations
        # widen the index's filter; the page's cost does not grow with them).
        "webExploreRepos": lambda s: after((org_web_scene(s), index_alices_repos()),
                                           both("/explore/repos?q=demo")),
        # A user's profile lists their organizations (alice belongs to one); an
        # organization's shows a page of its members and, to its members, its teams.
        "webProfile": lambda s: [Req("GET", "/alice"),
                                 Req("GET", "/" + org_web_scene(s)["org"], "session")],
        "webOrgMembers": lambda s: both(org_page(s, "members")),
        "webOrgTeams": lambda s: [Req("GET", org_page(s, "teams"), "session")],
        "webOrgTeam": lambda s: [Req("GET", org_page(s, "teams", org_web_scene(s)["team"]),
                                    "session")],
        "webOrgTeamRepos": lambda s: [Req("GET", org_page(s, "teams", org_web_scene(s)["team"],
                                                          "repositories"), "session")],
        "webOrgTeamNewForm": lambda s: [Req("GET", org_page(s, "teams", "new"), "session")],
        "webOrgTeamEditForm": lambda s: [Req("GET", org_page(s, "teams", org_web_scene(s)["team"],
                                                             "edit"), "session")],
        "webOrgSettings": lambda s: [Req("GET", org_page(s, "settings"), "session")],
        "webOrgCreateForm": lambda s: after(org_web_scene(s), [Req("GET", "/org/create",
                                                                   "session")]),
        # The migrating page (a queued and a failed project migration, to their doer)
        # first: the home page's rows come last, which its BUDGETS entries count.
        "webRepoHome": lambda s: after(web_scene(s), [
            Req("GET", path, "session", expect_body=b"Migrating from")
            for path in migrating_pages(s)] + both(WEB)),
        "webRepoSource": lambda s: after(web_scene(s), both(f"{WEB}/src/branch/main/app.py")
                                                     + both(f"{WEB}/src/branch/main")),
        "webRepoBlame": lambda s: after(web_scene(s), both(f"{WEB}/blame/branch/main/app.py")),
        "webRepoRaw": lambda s: after(web_scene(s), both(f"{WEB}/raw/branch/main/app.py")
                                                  + [Req("GET", f"{WEB}/raw/branch/main/app.py",
                                                         "token")]),
        "webRepoCommits": lambda s: after(web_scene(s), both(f"{WEB}/commits/branch/main")
                                                     + both(f"{WEB}/commits/branch/main/app.py")),
        "webRepoCommitsOfTag": lambda s: after(web_scene(s), both(f"{WEB}/commits/tag/web-v1")),
        "webRepoCommit": lambda s: both(f"{WEB}/commit/{web_scene(s)['head']}"),
        "webRepoBranches": lambda s: after(web_scene(s), both(f"{WEB}/branches")),
        "webRepoTags": lambda s: after(web_scene(s), both(f"{WEB}/tags")),
        "webRepoReleases": lambda s: after(web_scene(s), both(f"{WEB}/releases")),
        "webRepoRelease": lambda s: after(web_scene(s), both(f"{WEB}/releases/tag/web-v1")),
        "webRepoIssues": lambda s: after(web_scene(s), both(f"{WEB}/issues")),
        "webRepoIssue": lambda s: both(f"{WEB}/issues/{web_scene(s)['issue']}"),
        "webRepoPulls": lambda s: after(web_scene(s), both(f"{WEB}/pulls")),
        "webRepoPull": lambda s: both(f"{WEB}/pulls/{web_scene(s)['pull']}"),
        "webRepoPullFiles": lambda s: both(f"{WEB}/pulls/{web_scene(s)['pull']}/files"),
        "webRepoPullCommits": lambda s: both(f"{WEB}/pulls/{web_scene(s)['pull']}/commits"),
        "webPullDiffOrPatch": lambda s: both(f"{WEB}/pulls/{web_scene(s)['pull']}.diff"),
        "webCommitDiffOrPatch": lambda s: both(f"{WEB}/commit/{web_scene(s)['head']}.patch"),
        "webAsset": lambda s: [Req("GET", "/assets/nimbus.css")],
        "webLoginForm": lambda s: [Req("GET", "/user/login")],
        # Sign-up, opened for the request (closed, it is a 404 page that reads nothing).
        "webSignUpForm": lambda s: [Req("GET", "/user/sign_up", settings=OPEN_SIGN_UP)],
        # The address the API's refusal names: a redirect to the form, reading nothing.
        "webMustChangePasswordLink": lambda s: [
            Req("GET", "/user/change_password", expect=303)],
        # The forced password form: alice has nothing to change, so she is sent on (303)
        # after the one read the form makes too (her session's account); the bench's
        # sessions are hers only.  tests/web/test_must_change_password.py shows the form.
        "webMustChangePasswordForm": lambda s: [
            Req("GET", "/user/settings/change_password", "session", expect=303)],
        # The forms, signed in.
        "webRepoCreateForm": lambda s: [Req("GET", "/repo/create", "session"), Req(
            "GET", f"/repo/create?template_id={template_repo(s)}", "session")],
        # New migration: the choice of service, and a service's form.
        "webRepoMigrateForm": lambda s: [Req("GET", "/repo/migrate", "session"),
                                         Req("GET", "/repo/migrate?service_type=3", "session")],
        "webIssueNewForm": lambda s: after(web_scene(s), [Req("GET", f"{WEB}/issues/new",
                                                              "session")]),
        "webCompareChoose": lambda s: after(web_scene(s), [    # on to base...head
            Req("GET", f"{WEB}/compare?base=main&head=web-feature", "session", expect=303)]),
        "webCompare": lambda s: after(web_scene(s), [
            Req("GET", f"{WEB}/compare/main...web-feature", "session")]),
        "webReleaseNewForm": lambda s: [Req("GET", f"{WEB}/releases/new", "session")],
        "webApplications": lambda s: [Req("GET", "/user/settings/applications", "session")],
        "webUserSettings": lambda s: [Req("GET", "/user/settings", "session")],
        "webUserSettingsAccount": lambda s: [Req("GET", "/user/settings/account", "session")],
        "webUserSettingsKeys": lambda s: [Req("GET", "/user/settings/keys", "session")],
        # Security (two-factor authentication): the session's account and one Query of
        # its second factor's items; the enrolment form makes a secret and stores nothing.
        "webUserSettingsSecurity": lambda s: [Req("GET", "/user/settings/security", "session")],
        "webTwoFactorEnrollForm": lambda s: [
            Req("GET", "/user/settings/security/two_factor/enroll", "session")],
        "webRepoSettingsBranches": lambda s: [Req("GET", f"{WEB}/settings/branches",
                                                  "session")],
        # The repository settings pages (alice is demo's owner): a collaborator, a
        # deploy key and a hook with one delivery to list.
        "webRepoSettings": lambda s: [Req("GET", f"{WEB}/settings", "session")],
        "webRepoSettingsCollaborators": lambda s: after(three_collaborators(s), [
            Req("GET", f"{WEB}/settings/collaboration", "session")]),
        "webRepoSettingsHooks": lambda s: after(any_hook(s), [
            Req("GET", f"{WEB}/settings/hooks", "session")]),
        "webRepoSettingsHookNew": lambda s: [Req("GET", f"{WEB}/settings/hooks/new", "session")],
        "webRepoSettingsHook": lambda s: [
            Req("GET", f"{WEB}/settings/hooks/{repo_delivery(s)[0]}", "session")],
        "webRepoSettingsKeys": lambda s: after(any_deploy_key(s), [
            Req("GET", f"{WEB}/settings/keys", "session")]),
        # The tracker's pages: labels and milestones (one of each), the forms.
        "webRepoLabels": lambda s: after(tracker_scene(s), both(f"{WEB}/labels")),
        "webRepoMilestones": lambda s: after(tracker_scene(s), both(f"{WEB}/milestones")),
        "webRepoMilestoneNewForm": lambda s: [Req("GET", f"{WEB}/milestones/new", "session")],
        "webRepoMilestoneEditForm": lambda s: [
            Req("GET", f"{WEB}/milestones/{tracker_scene(s)['milestone']}/edit", "session")],
        "webIssueEditForm": lambda s: [
            Req("GET", f"{WEB}/issues/{web_scene(s)['issue']}/edit", "session")],
        # The file forms (alice writes to demo): the preloads and one open of the
        # repository (refs, pack list) for the branch and, editing, the file.
        "webRepoFileNewForm": lambda s: after(web_scene(s), [
            Req("GET", f"{WEB}/_new/main", "session")]),
        "webRepoFileUploadForm": lambda s: after(web_scene(s), [
            Req("GET", f"{WEB}/_upload/main", "session")]),
        "webRepoFileEditForm": lambda s: after(web_scene(s), [
            Req("GET", f"{WEB}/_edit/main/app.py", "session")]),
        "webRepoFileDeleteForm": lambda s: after(web_scene(s), [
            Req("GET", f"{WEB}/_delete/main/app.py", "session")]),
        # The wiki (scenarios_wiki.demo_wiki: a home page, a sidebar, a footer): the home
        # page, the list, a page with its revisions, the title search, and the forms.
        "webWiki": lambda s: after(demo_wiki(s), both(f"{WEB}/wiki") + both(
            f"{WEB}/wiki/?action=_pages") + [Req("GET", f"{WEB}/wiki/?action=_new", "session")]),
        "webWikiPage": lambda s: after(demo_wiki(s), both(f"{WEB}/wiki/Home") + both(
            f"{WEB}/wiki/Home?action=_revision") + [
            Req("GET", f"{WEB}/wiki/Home?action=_edit", "session")]),
        "webWikiPages": lambda s: after(demo_wiki(s), both(f"{WEB}/wiki/_pages")),
        "webWikiSearch": lambda s: after(demo_wiki(s), both(f"{WEB}/wiki/search?q=side")),
    }


def template_repo(s: Scene) -> int:
    """alice's template repository ``seed`` (auto-initialized), made once: its id."""
    return s.once("template_repo", lambda: s.must(
        "POST", "/user/repos", "token", {"name": "seed", "auto_init": True,
                                         "template": True})["id"])


def tracker_scene(s: Scene) -> dict:
    """A label and a milestone of alice/demo, made once."""
    def build() -> dict:
        s.must("POST", f"{DEMO}/labels", "token", {"name": "web-bug", "color": "#ee0701"})
        made = s.must("POST", f"{DEMO}/milestones", "token", {"title": "web-v1"})
        return {"milestone": made["id"]}
    return s.once("tracker_scene", build)


_FORM_POST = "a form POST needs a session cookie and its CSRF token (tests/web/test_web_actions.py)"
EXEMPT = {
    **{op: "a form POST needs a session cookie and its CSRF token (tests/web/test_web_wiki.py)"
       for op in ("webWikiNew", "webWikiEdit")},
    "webRepoPageNotFound": "its only answer is a 404 page that reads nothing, so it has no "
                           "success path to count (tests/web/test_web_pages.py)",
    "webLogin": "needs the sign-in form's cookie and CSRF token (tests/web/test_web_session.py)",
    "webSignUp": "needs the sign-up form's cookie and CSRF token "
                 "(tests/web/test_signup_pages.py)",
    "webMustChangePassword": "a form POST needs a session cookie and its CSRF token "
                             "(tests/web/test_must_change_password.py)",
    "webLogout": "needs a session cookie and its CSRF token (tests/web/test_web_session.py)",
    **{op: "the second step of a sign-in needs the pending sign-in cookie a right password "
           "sets for a user with two-factor authentication (tests/web/test_two_factor_pages.py)"
       for op in ("webTwoFactorForm", "webTwoFactor", "webTwoFactorScratchForm",
                  "webTwoFactorScratch")},
    **{op: "a form POST needs a session cookie and its CSRF token "
           "(tests/web/test_two_factor_pages.py)" for op in (
        "webTwoFactorEnroll", "webTwoFactorRegenerate", "webTwoFactorDisable",
        "webAdminUserEditPost")},
    "webAdminUserEdit": "a site admin's page: the bench's sessions are alice's, who gets its "
                        "404 (tests/web/test_two_factor_pages.py)",
    # Security keys: the sign-in's key step exists only after the right password of a
    # user with a key (tests/web/test_security_key_pages.py counts its calls: 3 for the
    # page, 5 for the answer); the settings' key forms are form POSTs.
    **{op: "the second step of a sign-in needs the pending sign-in cookie a right password "
           "sets for a user with a security key (tests/web/test_security_key_pages.py "
           "counts its calls)" for op in ("webWebAuthnForm", "webWebAuthn")},
    **{op: "a form POST needs a session cookie and its CSRF token "
           "(tests/web/test_security_key_pages.py)" for op in (
        "webWebAuthnRequestRegister", "webWebAuthnRegister", "webWebAuthnDelete")},
    **{op: _FORM_POST for op in (
        "webRepoCreate", "webIssueNew", "webIssueComment", "webCompareOpenPull",
        "webPullMerge", "webReleaseNew", "webApplicationsCreate", "webApplicationsDelete",
        "webPullReviewSubmit", "webPullReviewComment", "webRepoBranchProtectionCreate",
        "webRepoBranchProtectionDelete", "webRepoTagProtectionCreate",
        "webRepoTagProtectionDelete")},
    **{op: "a form POST needs a session cookie and its CSRF token "
           "(tests/web/test_web_orgs.py)" for op in (
        "webOrgCreate", "webOrgMemberRemove", "webOrgTeamNew", "webOrgTeamEdit",
        "webOrgTeamDelete", "webOrgTeamMember", "webOrgTeamRepo", "webOrgSettingsSave",
        "webOrgDelete")},
    **{op: "a form POST needs a session cookie and its CSRF token "
           "(tests/web/test_web_repo_settings.py)" for op in (
        "webRepoSettingsEdit", "webRepoSettingsArchive", "webRepoSettingsDelete",
        "webRepoSettingsCollaboratorAdd", "webRepoSettingsCollaboratorDelete",
        "webRepoSettingsHookCreate", "webRepoSettingsHookEdit", "webRepoSettingsHookDelete",
        "webRepoSettingsHookTest", "webRepoSettingsHookRedeliver", "webRepoSettingsKeyAdd",
        "webRepoSettingsKeyDelete")},
    **{op: "a form POST needs a session cookie and its CSRF token "
           "(tests/web/test_web_lifecycle.py)" for op in (
        "webRepoTransfer", "webRepoTransferCancel", "webRepoTransferAccept",
        "webRepoTransferReject", "webRepoMigrate", "webRepoMigrationRetry",
        "webRepoMigrationDelete")},
    "webPullReviewRequest": "a form POST needs a session cookie and its CSRF token "
                            "(tests/web/test_web_pull_tabs.py)",
    **{op: "a form POST needs a session cookie and its CSRF token "
           "(tests/web/test_web_dashboard.py)" for op in (
        "webNotificationStatus", "webNotificationPurge")},
    **{op: "a form POST needs a session cookie and its CSRF token "
           "(tests/web/test_web_user_settings.py)" for op in (
        "webUserSettingsProfile", "webUserSettingsAvatar", "webUserSettingsAvatarDelete",
        "webUserSettingsPassword", "webUserSettingsEmailAdd", "webUserSettingsEmailDelete",
        "webUserSettingsKeyAdd", "webUserSettingsKeyDelete")},
    **{op: "a form POST needs a session cookie and its CSRF token "
           "(tests/web/test_web_files.py)" for op in (
        "webRepoFileNew", "webRepoFileUpload", "webRepoFileEdit", "webRepoFileDelete")},
    **{op: "a form POST needs a session cookie and its CSRF token "
           "(tests/web/test_web_tracker.py)" for op in (
        "webIssueEdit", "webIssueLabels", "webIssueMilestone", "webIssueAssignees",
        "webMarkup", "webRepoLabelNew", "webRepoLabelEdit", "webRepoLabelDelete",
        "webRepoMilestoneNew", "webRepoMilestoneEdit", "webRepoMilestoneState",
        "webRepoMilestoneDelete")},
}

# The repository home: the two preload batches, then one open of the repository (refs
# and pack list) that serves the listing, the README and the branch and tag switcher.
# A file page the same.  The sign-in form reads (and on first use creates) the session
# key in SSM, once per container.
BUDGETS = {
    # The wiki's pages: the two preload batches, the wiki's refs and its pack list (the
    # page, sidebar and footer, the list or the search from one tree); the packs come
    # from the local cache.  The preloads carry the session's account.
    ("webWiki", "anon"): 4,
    ("webWiki", "session"): 4,
    ("webWikiPage", "anon"): 4,
    ("webWikiPage", "session"): 4,
    ("webWikiPages", "anon"): 4,
    ("webWikiPages", "session"): 4,
    ("webWikiSearch", "anon"): 4,
    ("webWikiSearch", "session"): 4,
    # Organization pages: the session's account, the organization by name and the
    # caller's membership; then one Query per list and one batch for a page of members.
    ("webOrgMembers", "anon"): 2,
    ("webOrgMembers", "session"): 5,
    ("webOrgTeams", "session"): 4,
    ("webOrgTeam", "session"): 6,
    ("webOrgTeamNewForm", "session"): 3,
    ("webOrgTeamEditForm", "session"): 4,
    ("webOrgSettings", "session"): 3,
    ("webOrgCreateForm", "session"): 1,
    # A team's repositories: the session's account (GetItem), the organization by name
    # (Query), the caller's membership (GetItem), the teams (Query, to find the one
    # named), the team's repository links (Query), then one BatchGetItem of the
    # repositories (by the keys the links hold) with the caller's collaboration on each.
    ("webOrgTeamRepos", "session"): 6,
    # A user's profile: the user by name (Query), their organizations (Query of the
    # member-of items, one batch of the organizations), their repositories (Query).
    ("webProfile", "anon"): 4,
    # An organization's profile seen by a member: the session's account (GetItem), the
    # name (one Query, user or organization), its memberships and teams (one Query of
    # its partition, which holds the caller's membership too), the first members'
    # accounts (BatchGetItem), its repositories (Query), the caller's collaborations on
    # them (one BatchGetItem, however many there are).
    ("webProfile", "session"): 6,
    # The home page also reads the language figures (one GetItem: the stored item the
    # API's /languages serves) for its language bar.
    ("webRepoHome", "anon"): 5,
    ("webRepoHome", "session"): 5,
    # Blame: the preloads and one open of the repository (refs, pack list); the history
    # walk reads loaded packs only.  The commit list (and a file's history) adds one
    # BatchGetItem for the status summaries of its commits; one commit, one GetItem
    # for its statuses (its diff now reads the same open repository).
    ("webRepoBlame", "anon"): 4,
    ("webRepoBlame", "session"): 4,
    ("webRepoCommits", "anon"): 5,
    ("webRepoCommits", "session"): 5,
    ("webRepoCommit", "anon"): 5,
    ("webRepoCommit", "session"): 5,
    ("webRepoSource", "anon"): 4,
    ("webAsset", "anon"): 0,
    # A diff or patch: the two preload batches, the pull request (or the repository's
    # refs) and the repository's pack list; the same as the API's.
    ("webPullDiffOrPatch", "anon"): 4,
    ("webPullDiffOrPatch", "session"): 4,
    ("webCommitDiffOrPatch", "anon"): 4,
    # An issue and a pull request's tabs.  The issue and the tracker come with the
    # caller's access in the second preload batch (conversation_view.tracker_page).
    # The issue: then one Query of its comments and events, one of the references its
    # timeline shows, one of the reactions of the whole page.
    ("webRepoIssue", "anon"): 5,
    ("webRepoIssue", "session"): 5,
    # The conversation: the preloads, one consistent batch of the branch tips the record
    # is checked against with the head's status summary, then one Query each: the
    # reviews, the comments and events, the references, the reactions.  No diff, no
    # files, no code comments (each review shows its count).  Above the pages' 6: see
    # bench/page_weight.py OVER_CALLS.
    ("webRepoPull", "anon"): 7,
    ("webRepoPull", "session"): 7,
    # Files changed: the preloads, the tips batch, the repository's pack list (the
    # diff), the reviews (one Query more for their code comments once one has some).
    ("webRepoPullFiles", "anon"): 5,
    ("webRepoPullFiles", "session"): 5,
    # Commits: the preloads, the tips batch, the pack list (the walk), the reviews
    # (the Conversation tab's count).
    ("webRepoPullCommits", "anon"): 5,
    ("webRepoPullCommits", "session"): 5,
    # The protection page: the preloads and the repository's rules item (one GetItem).
    ("webRepoSettingsBranches", "session"): 3,
    # The repository settings: the preloads, then the branch names (options), the
    # hooks, the deploy keys (one Query each); a hook's page reads the hook and its
    # latest deliveries (one Query); the new-hook form nothing more.  The collaborators
    # page (three collaborators here) is one Query of the collaboration items, which
    # hold each one's permission, and one BatchGetItem of their accounts.
    ("webRepoSettingsCollaborators", "session"): 4,
    ("webRepoSettings", "session"): 3,
    ("webRepoSettingsHooks", "session"): 3,
    ("webRepoSettingsHookNew", "session"): 2,
    ("webRepoSettingsHook", "session"): 4,
    ("webRepoSettingsKeys", "session"): 3,
    ("webLoginForm", "anon"): 2,
    # Security settings: the session's account, then one Query of the second factor's
    # items (whether it is on, the recovery codes left); the enrolment form makes its
    # secret and seals it (the session key, cached), reading nothing more.
    ("webUserSettingsSecurity", "session"): 2,
    ("webTwoFactorEnrollForm", "session"): 1,
    # Sign-up as the sign-in form: the session key for its form token (SSM, once per
    # container); the forced password form: the session's account.
    ("webSignUpForm", "anon"): 2,
    ("webMustChangePasswordForm", "session"): 4,
    ("webMustChangePasswordLink", "anon"): 0,
    # Explore (repo_search.py): a page of the index (one Query, filtered by DynamoDB),
    # then one BatchGetItem of the page's repositories, their owners and, signed in,
    # her collaboration and membership for each (what the read rule decides).  Signed
    # in also: her session's account (GetItem), the ids of her organizations (Query of
    # her member-of items) and of the repositories she collaborates on (Query of her
    # links), which widen the index's filter to her private repositories, each kept
    # only when the read rule keeps it: the same with any number of organizations.
    # With the whole bench's scene, alice has many repositories named "demo…" that the
    # caller may not see: the read-ahead takes one more chunk of index entries.
    ("webExploreRepos", "anon"): 3,
    ("webExploreRepos", "session"): 6,
    # The signed-in dashboard (dashboard_pages.py): her account (1, GetItem); one Query
    # per list: her feed, her own repositories, the pull requests asking for her review
    # and the issues assigned to her (her own lists of the issue index: 4); one batch
    # for everything they show and decide (the issues, trackers and label sets, their
    # repositories and owners, her access to them, the feed's repositories and actors:
    # 1).  The same with any number of organizations.
    ("webHome", "session"): 6,
    # Notifications: her account, one Query of her index, one batch of the threads'
    # repositories and owners (none when the page is empty).
    ("webNotifications", "session"): 3,
    # The user settings: the session's account (GetItem), then one Query per list the
    # page shows (the e-mail addresses; the SSH keys and the GPG keys): 1, 2 and 3.
    # The first session page a run measures also pays the session key (SSM read and
    # create, once per container) and the bench's sign-in Query: 3 more.
    ("webUserSettings", "session"): 4,
    ("webUserSettingsAccount", "session"): 5,
    ("webUserSettingsKeys", "session"): 6,
    # Labels and milestones: the preloads and the tracker item (their counters in it).
    ("webRepoLabels", "anon"): 3,
    ("webRepoMilestones", "anon"): 3,
}


# The pages of the undo and the audit log keep their scenarios apart (scenarios_web_undo).
def _merge_undo_pages() -> None:
    import scenarios_web_undo

    EXEMPT.update(scenarios_web_undo.EXEMPT)
    BUDGETS.update(scenarios_web_undo.BUDGETS)


_merge_undo_pages()
