"""Every routes module; importing one registers its routes in the route table.

The order is the routes' precedence (first match wins), written out module by module:
the accounts, the repository reads (whose request helpers every area below
``/repos/{owner}/{repo}`` uses), git, then the other domains, the web forms, and the
pages last.
"""
# ruff: noqa: F401, E402, I001  (imported for the routes they register, in this order)
from chalicelib.accounts import routes as users
from chalicelib.accounts import admin_routes as admin
from chalicelib.accounts import block_routes as user_blocks
from chalicelib.accounts import follow_routes as user_follows
from chalicelib.accounts import email_routes as user_emails
from chalicelib.accounts import settings_routes as user_settings
from chalicelib.oauth2 import routes as oauth2_applications
from chalicelib.oauth2 import protocol_routes as oauth2_provider
# Before the repositories: /repos/issues/search would read as a repository's path.
from chalicelib.search import issue_routes as issue_search
# Before the repositories too: /repos/deleted/{id}/restore would read as a repository's path.
from chalicelib.repo_admin import deleted_routes as deleted_repos
from chalicelib.repos import routes as repos
from chalicelib.search import routes as search
# Before the repository's git: /{owner}/{repo}/info/refs would read x.wiki.git as a name.
from chalicelib.wiki import transport_routes as wiki_git_http
from chalicelib.git_transport import routes as git_http
from chalicelib.lfs import routes as lfs
from chalicelib.lfs import lock_routes as lfs_locks
# Before the webhooks: their /hooks/{id} would take /hooks/git.
from chalicelib.repo_admin import disabled_routes as repo_disabled_areas
from chalicelib.webhooks import routes as webhook_routes
from chalicelib.webhooks import user_hook_routes
from chalicelib.instance import routes as instance
from chalicelib.instance import metrics_routes as instance_metrics   # /metrics before /{username}
from chalicelib.instance import cron_routes as instance_cron
from chalicelib.orgs import routes as orgs
from chalicelib.orgs import people_routes as org_people
from chalicelib.orgs import block_routes as org_blocks
from chalicelib.audit import routes as audit_log
from chalicelib.repos import access_routes as repo_access
from chalicelib.repos import owner_routes as owner_renames
from chalicelib.repos import topic_routes as repo_topics
from chalicelib.repos import id_routes as repo_by_id
from chalicelib.orgs import repo_team_routes as repo_teams
from chalicelib.contents import file_routes as repo_content
from chalicelib.repo_admin import routes as repo_admin
from chalicelib.migrations import routes as migrations
from chalicelib.repo_admin import template_routes as repo_templates
from chalicelib.repo_admin import push_mirror_routes as push_mirrors
from chalicelib.repo_admin import fork_sync_routes as fork_sync
from chalicelib.repo_admin import transfer_routes as repo_transfers
from chalicelib.repo_admin import flag_routes as repo_flags
from chalicelib.repo_admin import conversion_routes as repo_conversions
from chalicelib.repo_admin import generate_routes as repo_generation
from chalicelib.http import swagger
# Before the issues: /issues/{index}/subscriptions/check would read as a subscriber's name.
from chalicelib.notifications import subscription_routes as issue_subscriptions
# Before the issues and pull requests: /issues/pinned, /pulls/pinned would read as numbers.
from chalicelib.issues import pin_routes as issue_pins
from chalicelib.pulls import pin_routes as pull_pins
from chalicelib.issues import stopwatch_routes as issue_stopwatches
from chalicelib.issues import time_routes as issue_times
from chalicelib.issues import routes as issues
from chalicelib.issues import label_template_routes as label_templates
from chalicelib.issues import reaction_routes as issue_reactions
from chalicelib.issues import attachment_routes as issue_attachments
from chalicelib.issues import issue_template_routes as issue_templates
from chalicelib.issues import dependency_routes as issue_dependencies
from chalicelib.issues import org_label_routes as org_labels
from chalicelib.notifications import routes as notifications
from chalicelib.activity import routes as activity
from chalicelib.ref_history import routes as ref_history
# Before the pull requests: their /pulls/{base}/{head:path} would take /pulls/1/reviews.
from chalicelib.reviews import routes as reviews
from chalicelib.pulls import routes as pulls
from chalicelib.signing import key_routes as signing_key_routes
from chalicelib.signing import gpg_verify_routes as gpg_key_verification
from chalicelib.markup import routes as markdown
from chalicelib.signing import routes as signing_routes
from chalicelib.statuses import routes as statuses
from chalicelib.protection import routes as protection
from chalicelib.releases import routes as releases
from chalicelib.releases import asset_routes as release_assets
from chalicelib.webhooks import delivery_routes
from chalicelib.quota import routes as quota_routes
from chalicelib.quota import admin_routes as quota_admin_routes
from chalicelib.contents import commit_routes as commits
from chalicelib.contents import routes as contents
from chalicelib.contents import patch_routes as diff_patches
from chalicelib.contents import branch_routes as branch_admin
from chalicelib.languages import routes as languages
from chalicelib.contents import tag_routes as tags
from chalicelib.wiki import routes as wiki
from chalicelib.contents import git_data_routes as git_data
from chalicelib.contents import note_routes as git_notes
from chalicelib.contents import blob_routes as git_blobs
from chalicelib.git_transport import large_push_routes as large_push
from chalicelib.avatars import routes as avatars
# The web forms before the pages, whose /{owner}/{repo}/… patterns would match their
# literal paths first (docs/web.md); any other page below a repository last.
from chalicelib.web import actions_repos, actions_issues, actions_pulls, actions_releases
from chalicelib.web import actions_tokens, actions_reviews, actions_protection, patches
from chalicelib.web import actions_issue_edit, label_pages, milestone_pages  # issues/{n}/edit, labels, milestones
from chalicelib.web import actions_files   # /_new, /_upload, /_edit, /_delete before /{owner}/{repo}/…
from chalicelib.web import org_pages, org_team_pages, org_settings   # /org/… before /{owner}/{repo}
from chalicelib.web import audit_pages   # /admin/audit, /org/{org}/settings/audit before /{owner}/{repo}…
from chalicelib.web import deleted_repo_pages, ref_history_pages  # …/repos/deleted, /{owner}/{repo}/activity/refs
from chalicelib.web import settings_repo, settings_collaborators, settings_hooks  # /{owner}/{repo}/settings…
from chalicelib.web import settings_keys
from chalicelib.web import lifecycle_pages, migrate_pages   # /settings/transfer, /repo/migrate…
from chalicelib.web import signup_pages, password_pages  # /user/sign_up, /user/settings/change_password
from chalicelib.web import settings_user, settings_account, settings_user_keys  # /user/settings…
from chalicelib.web import settings_security, admin_user_pages  # /user/settings/security…, /admin/users/{id}/edit
from chalicelib.web import oauth2_pages   # /login/oauth/…, /user/settings/applications/oauth2…
from chalicelib.web import notification_pages   # /notifications before /{username}
from chalicelib.web import account_pages, assets, pages, repo_pages, issue_pages
from chalicelib.web import pull_pages   # /pulls/{n}, /commits, /files (issue_pages imports it)
from chalicelib.web import blame_pages
from chalicelib.web import wiki_pages   # /{owner}/{repo}/wiki… before the 404 page below a repository
from chalicelib.web import not_found
