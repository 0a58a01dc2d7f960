"""Swagger definitions of the records we send.

Field names and types follow Forgejo's API description.  Each domain's records modules
build the records; ``swagger.py`` publishes these; tests check all three agree.  The
bodies we accept are declared once, as typed options in each domain's ``options.py``
(``http.options``).
"""
from __future__ import annotations

from chalicelib.http.schema_types import B, EMAIL, I, S, STRINGS, T, nullable, ref  # noqa: F401

RECORDS: dict[str, dict[str, dict]] = {
    "User": {
        "id": I, "login": S, "login_name": S, "source_id": I, "full_name": S, "email": EMAIL,
        "avatar_url": S, "html_url": S, "language": S, "is_admin": B, "last_login": T,
        "created": T, "restricted": B, "active": B, "prohibit_login": B, "location": S,
        "pronouns": S, "website": S, "description": S, "visibility": S, "followers_count": I,
        "following_count": I, "starred_repos_count": I, "username": S,
    },
    "PublicKey": {
        "id": I, "key": S, "url": S, "title": S, "fingerprint": S, "created_at": T,
        "updated_at": T, "user": ref("User"), "read_only": B, "key_type": S, "verified": B,
    },
    "AccessToken": {
        "id": I, "name": S, "sha1": S, "token_last_eight": S, "scopes": STRINGS,
        "created_at": T,
        "repositories": nullable({"type": "array", "items": {"type": "object"}}),
    },
    "ServerVersion": {"version": S},
    "GeneralAPISettings": {
        "max_response_items": I, "default_paging_num": I, "default_git_trees_per_page": I,
        "default_max_blob_size": I,
    },
    "APIError": {"message": S, "url": S},
    "Permission": {"admin": B, "push": B, "pull": B},
    "InternalTracker": {"enable_time_tracker": B, "allow_only_contributors_to_track_time": B,
                        "enable_issue_dependencies": B},
    "Repository": {
        "id": I, "owner": ref("User"), "name": S, "full_name": S, "description": S, "empty": B,
        "private": B, "fork": B, "template": B, "parent": nullable(ref("Repository")), "mirror": B,
        "size": I, "language": S, "languages_url": S, "html_url": S, "url": S, "link": S,
        "ssh_url": S, "clone_url": S, "original_url": S, "website": S, "stars_count": I,
        "forks_count": I, "watchers_count": I, "open_issues_count": I, "open_pr_counter": I,
        "release_counter": I, "default_branch": S, "archived": B, "created_at": T,
        "updated_at": T, "archived_at": T, "permissions": ref("Permission"), "has_issues": B,
        "internal_tracker": ref("InternalTracker"), "has_wiki": B, "wiki_branch": S,
        "globally_editable_wiki": B, "has_pull_requests": B, "has_projects": B,
        "has_releases": B, "has_packages": B, "has_actions": B, "ignore_whitespace_conflicts": B,
        "allow_merge_commits": B, "allow_rebase": B, "allow_rebase_explicit": B,
        "allow_squash_merge": B, "allow_fast_forward_only_merge": B, "allow_rebase_update": B,
        "default_delete_branch_after_merge": B, "default_merge_style": S,
        "default_update_style": S, "default_allow_maintainer_edit": B, "avatar_url": S,
        "internal": B, "mirror_interval": S, "object_format_name": S, "mirror_updated": T,
        "repo_transfer": nullable(ref("RepoTransfer")), "topics": STRINGS, "wiki_clone_url": S,
        "wiki_ssh_url": S, "has_wiki_contents": B,
    },
    "RepoTransfer": {"doer": ref("User"), "recipient": ref("User"),
                     "teams": {"type": "array", "items": {"type": "object"}}},
    "SearchResults": {"ok": B, "data": {"type": "array", "items": ref("Repository")}},
    "PayloadUser": {"name": S, "email": EMAIL, "username": S},
    "PayloadCommitVerification": {"verified": B, "reason": S, "signature": S,
                                  "signer": nullable(ref("PayloadUser")), "payload": S},
    "PayloadCommit": {
        "id": S, "message": S, "url": S, "author": ref("PayloadUser"),
        "committer": ref("PayloadUser"), "verification": ref("PayloadCommitVerification"),
        "timestamp": T, "added": nullable(STRINGS), "removed": nullable(STRINGS),
        "modified": nullable(STRINGS),
    },
    "Organization": {
        "id": I, "name": S, "username": S, "full_name": S, "email": S, "avatar_url": S,
        "description": S, "website": S, "location": S, "visibility": S,
        "repo_admin_change_team_access": B, "created": T,
    },
    "Team": {
        "id": I, "name": S, "description": S, "organization": ref("Organization"),
        "includes_all_repositories": B, "permission": S, "units": STRINGS,
        "units_map": {"type": "object", "additionalProperties": S}, "can_create_org_repo": B,
    },
    "Branch": {
        "name": S, "commit": ref("PayloadCommit"), "protected": B, "required_approvals": I,
        "enable_status_check": B, "status_check_contexts": STRINGS, "user_can_push": B,
        "user_can_merge": B, "effective_branch_protection_name": S,
    },
}

# Request bodies: (required fields, properties).

# Lists are arrays of a record: responses named <Record>List.
LISTS = ("User", "PublicKey", "AccessToken", "Repository", "Branch", "Organization", "Team")

# Collaborators, stars, watches and deploy keys (repos/access_routes.py).
RECORDS.update({
    "RepoCollaboratorPermission": {"permission": S, "role_name": S, "user": ref("User")},
    # reason is an untyped (always null) field in Forgejo's description too.
    "WatchInfo": {"subscribed": B, "ignored": B, "reason": {}, "created_at": T, "url": S,
                  "repository_url": S},
    "DeployKey": {"id": I, "key_id": I, "key": S, "url": S, "title": S, "fingerprint": S,
                  "created_at": T, "read_only": B, "repository": ref("Repository")},
})
LISTS += ("DeployKey",)

# Webhooks (appended: other areas edit the tables above concurrently).
_STRING_MAP = {"type": "object", "additionalProperties": S}
RECORDS["Hook"] = {
    "id": I, "type": S, "branch_filter": S, "url": S, "config": _STRING_MAP, "events": STRINGS,
    "authorization_header": S, "content_type": S,
    "metadata": {},   # Forgejo's is untyped: null, or the hook type's settings object
    "active": B, "updated_at": T, "created_at": T,
}
LISTS += ("Hook",)

# Markdown and signing (issue 6; appended).
RECORDS["GPGKeyEmail"] = {"email": S, "verified": B}
RECORDS["GPGKey"] = {
    "id": I, "primary_key_id": S, "key_id": S, "public_key": S,
    "emails": {"type": "array", "items": ref("GPGKeyEmail")},
    "subkeys": {"type": "array", "items": ref("GPGKey")}, "can_sign": B,
    "can_encrypt_comms": B, "can_encrypt_storage": B, "can_certify": B, "verified": B,
    "created_at": T, "expires_at": T,
}
LISTS += ("GPGKey",)

# Issue tracker (issues/routes.py; appended).
RECORDS.update({
    "Label": {"id": I, "name": S, "exclusive": B, "is_archived": B, "color": S,
              "description": S, "url": S},
    "Milestone": {"id": I, "title": S, "description": S, "state": S,
                  "open_issues": I, "closed_issues": I, "created_at": T, "updated_at": T,
                  "closed_at": nullable(T), "due_on": nullable(T)},
    "RepositoryMeta": {"id": I, "name": S, "owner": S, "full_name": S},
    "PullRequestMeta": {"merged": B, "merged_at": nullable(T), "draft": B, "html_url": S},
    "Attachment": {"id": I, "name": S, "size": I, "download_count": I, "created_at": T,
                   "uuid": S, "browser_download_url": S,
                   "type": {"type": "string", "enum": ["attachment", "external"]}},
    "Issue": {
        "id": I, "url": S, "html_url": S, "number": I, "user": ref("User"),
        "original_author": S, "original_author_id": I, "title": S, "body": S, "ref": S,
        "assets": {"type": "array", "items": ref("Attachment")},
        "labels": {"type": "array", "items": ref("Label")},
        "milestone": nullable(ref("Milestone")), "assignee": nullable(ref("User")),
        "assignees": nullable({"type": "array", "items": ref("User")}),
        "state": S, "is_locked": B, "comments": I, "created_at": T,
        "updated_at": T, "closed_at": nullable(T), "due_date": nullable(T), "pin_order": I,
        "pull_request": nullable(ref("PullRequestMeta")), "repository": ref("RepositoryMeta"),
    },
    "Comment": {
        "id": I, "html_url": S, "pull_request_url": S, "issue_url": S, "user": ref("User"),
        "original_author": S, "original_author_id": I, "body": S,
        "assets": {"type": "array", "items": ref("Attachment")}, "created_at": T,
        "updated_at": T,
    },
    "TrackedTime": {"id": I, "created": T, "time": I, "user_id": I, "user_name": S,
                    "issue_id": I, "issue": nullable(ref("Issue"))},
})
LISTS += ("Issue", "Comment", "Label", "Milestone", "TrackedTime")

# Commit statuses (statuses/routes.py; appended).  Forgejo's state fields are a $ref to
# CommitStatusState, a string enum.
_STATUS_STATE = {"type": "string",
                 "enum": ["pending", "success", "error", "failure", "warning", "skipped"]}
RECORDS.update({
    "CommitStatus": {"id": I, "status": _STATUS_STATE, "target_url": S, "description": S,
                     "url": S, "context": S, "creator": ref("User"), "created_at": T,
                     "updated_at": T},
    # Empty (state "", statuses and repository null) for a commit without statuses.
    "CombinedStatus": {"state": {"type": "string", "enum": ["", *_STATUS_STATE["enum"]]},
                       "sha": S, "total_count": I,
                       "statuses": nullable({"type": "array", "items": ref("CommitStatus")}),
                       "repository": nullable(ref("Repository")), "commit_url": S, "url": S},
})
LISTS += ("CommitStatus",)

# Pull requests (pulls/routes.py; appended).
RECORDS.update({
    "PRBranchInfo": {"label": S, "ref": S, "sha": S, "repo_id": I,
                     "repo": nullable(ref("Repository"))},
    "PullRequest": {
        "id": I, "url": S, "number": I, "user": ref("User"), "title": S, "body": S,
        "labels": {"type": "array", "items": ref("Label")},
        "milestone": nullable(ref("Milestone")), "assignee": nullable(ref("User")),
        "assignees": nullable({"type": "array", "items": ref("User")}),
        "requested_reviewers": {"type": "array", "items": ref("User")},
        "requested_reviewers_teams": {"type": "array", "items": ref("Team")},
        "state": S, "draft": B, "is_locked": B, "comments": I, "review_comments": I,
        "additions": I, "deletions": I, "changed_files": I, "html_url": S, "diff_url": S,
        "patch_url": S, "mergeable": B, "merged": B, "merged_at": nullable(T),
        "merge_commit_sha": nullable(S), "merged_by": nullable(ref("User")),
        "allow_maintainer_edit": B, "base": ref("PRBranchInfo"), "head": ref("PRBranchInfo"),
        "merge_base": S, "due_date": nullable(T), "created_at": T, "updated_at": T,
        "closed_at": nullable(T), "pin_order": I, "flow": I,
    },
    "ChangedFile": {"filename": S, "previous_filename": S, "status": S, "additions": I,
                    "deletions": I, "changes": I, "html_url": S, "contents_url": S,
                    "raw_url": S},
    "CommitUser": {"name": S, "email": S, "date": S},
    "CommitMeta": {"url": S, "sha": S, "created": T},
    "RepoCommit": {"url": S, "author": ref("CommitUser"), "committer": ref("CommitUser"),
                   "message": S, "tree": ref("CommitMeta"),
                   "verification": ref("PayloadCommitVerification")},
    "CommitStats": {"total": I, "additions": I, "deletions": I},
    "CommitAffectedFiles": {"filename": S, "status": S},
    "Commit": {
        "url": S, "sha": S, "created": T, "html_url": S, "commit": ref("RepoCommit"),
        "author": nullable(ref("User")), "committer": nullable(ref("User")),
        "parents": {"type": "array", "items": ref("CommitMeta")},
        "files": nullable({"type": "array", "items": ref("CommitAffectedFiles")}),
        "stats": nullable(ref("CommitStats")),
    },
})
LISTS += ("PullRequest", "ChangedFile", "Commit")

# Releases and their attachments (releases/routes.py, releases/asset_routes.py; appended).
# Attachment is declared with the issue tracker above.
RECORDS.update({
    "TagArchiveDownloadCount": {"zip": I, "tar_gz": I},
    "Release": {
        "id": I, "tag_name": S, "target_commitish": S, "name": S, "body": S, "url": S,
        "html_url": S, "tarball_url": S, "zipball_url": S, "hide_archive_links": B,
        "upload_url": S, "draft": B, "prerelease": B, "created_at": T, "published_at": T,
        "author": ref("User"), "assets": {"type": "array", "items": ref("Attachment")},
        "archive_download_count": ref("TagArchiveDownloadCount"),
    },
})
LISTS += ("Release", "Attachment")

# Webhook deliveries (issue 13; appended): GitHub's delivery records, which Forgejo
# lacks, so they are declared apart from RECORDS (every one of those is Forgejo's).
_OBJECT = {"type": "object"}
_NUMBER = {"type": "number"}
_DELIVERY = {
    "id": I, "guid": S, "delivered_at": nullable(T), "redelivery": B, "duration": _NUMBER,
    "status": S, "status_code": I, "event": S, "action": nullable(S),
    "installation_id": nullable(I), "repository_id": nullable(I), "throttled_at": nullable(T),
    "hook_id": I, "event_type": S, "state": S, "attempts": I, "next_attempt_at": nullable(T),
}
EXTENSION_RECORDS: dict[str, dict[str, dict]] = {
    "HookDelivery": _DELIVERY,
    "HookDeliveryDetail": {
        **_DELIVERY, "url": S,
        "request": {"type": "object", "properties": {"headers": _OBJECT,
                                                     "payload": nullable(_OBJECT)}},
        "response": {"type": "object", "properties": {"headers": _OBJECT,
                                                      "payload": nullable(S)}},
        "attempt_history": {"type": "array", "items": _OBJECT},
    },
}
EXTENSION_LISTS = ("HookDelivery",)

# Quota (quota/routes.py, quota/admin_routes.py; appended).  Nested records keep Forgejo's
# definition names; ``groups`` is Forgejo's QuotaGroupList, written out as an array.
RECORDS.update({
    "QuotaRuleInfo": {"name": S, "limit": I, "subjects": STRINGS},
    "QuotaGroup": {"name": S, "rules": {"type": "array", "items": ref("QuotaRuleInfo")}},
    "QuotaUsedSizeRepos": {"public": I, "private": I},
    "QuotaUsedSizeGit": {"LFS": I},
    "QuotaUsedSizeAssetsAttachments": {"issues": I, "releases": I},
    "QuotaUsedSizeAssetsPackages": {"all": I},
    "QuotaUsedSizeAssets": {"attachments": ref("QuotaUsedSizeAssetsAttachments"),
                            "artifacts": I, "packages": ref("QuotaUsedSizeAssetsPackages")},
    "QuotaUsedSize": {"repos": ref("QuotaUsedSizeRepos"), "git": ref("QuotaUsedSizeGit"),
                      "assets": ref("QuotaUsedSizeAssets")},
    "QuotaUsed": {"size": ref("QuotaUsedSize")},
    "QuotaInfo": {"used": ref("QuotaUsed"),
                  "groups": {"type": "array", "items": ref("QuotaGroup")}},
    "QuotaUsedAttachment": {"name": S, "size": I, "api_url": S,
                            "contained_in": {"type": "object",
                                             "properties": {"api_url": S, "html_url": S}}},
    "QuotaUsedPackage": {"name": S, "type": S, "version": S, "size": I, "html_url": S},
    "QuotaUsedArtifact": {"name": S, "size": I, "html_url": S},
})
LISTS += ("QuotaGroup", "QuotaRuleInfo", "QuotaUsedAttachment", "QuotaUsedPackage",
          "QuotaUsedArtifact")

# Branch and tag protection (protection/routes.py; appended).
RECORDS.update({
    "BranchProtection": {
        "branch_name": S, "rule_name": S, "enable_push": B, "enable_push_whitelist": B,
        "push_whitelist_usernames": STRINGS, "push_whitelist_teams": STRINGS,
        "push_whitelist_deploy_keys": B, "enable_merge_whitelist": B,
        "merge_whitelist_usernames": STRINGS, "merge_whitelist_teams": STRINGS,
        "enable_status_check": B, "status_check_contexts": STRINGS, "required_approvals": I,
        "enable_approvals_whitelist": B, "approvals_whitelist_username": STRINGS,
        "approvals_whitelist_teams": STRINGS, "block_on_rejected_reviews": B,
        "block_on_official_review_requests": B, "block_on_outdated_branch": B,
        "dismiss_stale_approvals": B, "ignore_stale_approvals": B, "require_signed_commits": B,
        "protected_file_patterns": S, "unprotected_file_patterns": S, "apply_to_admins": B,
        "created_at": T, "updated_at": T,
    },
    "TagProtection": {"id": I, "name_pattern": S, "whitelist_usernames": STRINGS,
                      "whitelist_teams": STRINGS, "created_at": T, "updated_at": T},
})
LISTS += ("BranchProtection", "TagProtection")

# Repository content records (contents, commits, branches, tags, git data).
from chalicelib.http import schemas_git  # noqa: E402 - merged after the base records

RECORDS.update(schemas_git.RECORDS)
LISTS += schemas_git.LISTS

# Code review (reviews/routes.py; appended).  Forgejo's state is a ReviewStateType string.
RECORDS.update({
    "PullReview": {"id": I, "user": nullable(ref("User")), "team": nullable(ref("Team")),
                   "state": S, "body": S, "commit_id": S, "stale": B, "official": B,
                   "dismissed": B, "comments_count": I, "submitted_at": T, "updated_at": T,
                   "html_url": S, "pull_request_url": S},
    "PullReviewComment": {"id": I, "body": S, "user": ref("User"),
                          "resolver": nullable(ref("User")), "pull_request_review_id": I,
                          "created_at": T, "updated_at": T, "path": S, "commit_id": S,
                          "original_commit_id": S, "diff_hunk": S, "position": I,
                          "original_position": I, "extra_lines_count": I, "html_url": S,
                          "pull_request_url": S},
})
LISTS += ("PullReview", "PullReviewComment")

# An issue's timeline (reviews/routes.py; Forgejo's response is "TimelineList", see
# swagger.py).  Every field is sent; the nested records are null when unset.
RECORDS["TimelineComment"] = {
    "id": I, "type": S, "html_url": S, "pull_request_url": S, "issue_url": S,
    "user": nullable(ref("User")), "body": S, "created_at": T, "updated_at": T,
    "old_project_id": I, "project_id": I, "old_milestone": nullable(ref("Milestone")),
    "milestone": nullable(ref("Milestone")), "tracked_time": nullable(ref("TrackedTime")),
    "old_title": S, "new_title": S, "old_ref": S, "new_ref": S,
    "ref_issue": nullable(ref("Issue")), "ref_comment": nullable(ref("Comment")),
    "ref_action": S, "ref_commit_sha": S, "review_id": I, "label": nullable(ref("Label")),
    "assignee": nullable(ref("User")), "assignee_team": nullable(ref("Team")),
    "resolve_doer": nullable(ref("User")), "dependent_issue": nullable(ref("Issue")),
    "removed_assignee": B,
}
