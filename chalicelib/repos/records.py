"""Repository, Permission, WatchInfo and DeployKey records, field for field.

Each builder's fields are declared in ``schemas.RECORDS``; a test holds the two to
each other and to Forgejo's own API description.
"""
from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from chalicelib import avatars
from chalicelib.accounts import user_record
from chalicelib.http import schemas
from chalicelib.http.formats import GO_ZERO_TIME, app_url, go_duration, rfc3339
from chalicelib.http.schema_types import STRINGS, B, I, S, T, nullable, ref
from chalicelib.repos import merge_settings
from chalicelib.settings import get_settings

if TYPE_CHECKING:
    from chalicelib.accounts import Account

# The records' Swagger definitions: Forgejo's names, fields and types, published by
# /swagger.v1.json (``http.schemas``) and checked against what this module builds.
SCHEMAS = schemas.declare({
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
    "RepoCollaboratorPermission": {"permission": S, "role_name": S, "user": ref("User")},
    "WatchInfo": {"subscribed": B, "ignored": B, "reason": {}, "created_at": T, "url": S,
                  "repository_url": S},
    "DeployKey": {"id": I, "key_id": I, "key": S, "url": S, "title": S, "fingerprint": S,
                  "created_at": T, "read_only": B, "repository": ref("Repository")},
}, lists=("Repository", "DeployKey"))


def _ssh_url(owner: str, name: str) -> str:
    server = get_settings().server
    if server.DISABLE_SSH:
        return ""
    host = server.SSH_DOMAIN or get_settings().domain
    if ":" in host:
        host = f"[{host}]"
    if server.SSH_PORT == 22:
        return f"{server.SSH_USER}@{host}:{owner}/{name}.git"
    return f"ssh://{server.SSH_USER}@{host}:{server.SSH_PORT}/{owner}/{name}.git"


# The pull request settings a Repository record shows (allow_manual_merge and
# autodetect_manual_merge are settable but not shown, as in Forgejo).
_REPO_MERGE_FIELDS = frozenset(merge_settings.DEFAULTS) - {"allow_manual_merge",
                                                           "autodetect_manual_merge"}


def repository(view, viewer: Account | None, parent: dict | None = None) -> dict:
    """A Repository record; ``view`` is a repos.views.RepoView."""
    from chalicelib.repos.permissions import Access

    repo, owner = view.repo, view.owner
    owner_path, name_path = quote(owner.login), quote(repo.name)
    html_url = f"{app_url()}{owner_path}/{name_path}"
    api_url = f"{app_url()}api/v1/repos/{owner_path}/{name_path}"
    record = {
        "id": int(repo.id),
        "owner": user_record(owner, viewer),
        "name": repo.name,
        "full_name": f"{owner.login}/{repo.name}",
        "description": repo.description,
        "empty": bool(repo.empty),
        "private": bool(repo.private),
        "fork": bool(repo.fork),
        "template": bool(repo.template),
        "parent": parent,
        "mirror": bool(repo.mirror),
        # KiB, as Forgejo's (git and Git LFS objects together: repo_model.Size).
        "size": (int(repo.size) + int(repo.lfs_size or 0)) // 1024,
        "language": "",
        "languages_url": f"{api_url}/languages",
        "html_url": html_url,
        "url": api_url,
        "link": "",
        "ssh_url": _ssh_url(owner_path, name_path),
        "clone_url": f"{html_url}.git",
        "original_url": repo.original_url,
        "website": repo.website,
        "stars_count": int(repo.num_stars),
        "forks_count": int(repo.num_forks),
        "watchers_count": int(repo.num_watches),
        "open_issues_count": int(repo.num_open_issues),
        "open_pr_counter": int(repo.num_open_pulls),
        "release_counter": int(repo.num_releases),
        "default_branch": repo.default_branch,
        "archived": bool(repo.archived),
        "created_at": rfc3339(repo.created),
        "updated_at": rfc3339(repo.updated),
        "archived_at": rfc3339(repo.archived_at),
        "permissions": {"admin": view.access >= Access.ADMIN, "push": view.access >= Access.WRITE,
                        "pull": view.access >= Access.READ},
        "has_issues": True,
        # Issue dependencies are on in every repository (issues/dependencies.py);
        # repoEdit's internal_tracker is not stored, as before.
        "internal_tracker": {"enable_time_tracker": True,
                             "allow_only_contributors_to_track_time": True,
                             "enable_issue_dependencies": True},
        "has_wiki": bool(getattr(repo, "has_wiki", True)),
        # The wiki's branch: Forgejo's GetWikiBranchName (chalicelib/wiki/gitrepo.py).
        "wiki_branch": getattr(repo, "wiki_branch", "") or get_settings().repository.DEFAULT_BRANCH,
        "globally_editable_wiki": False,
        "has_pull_requests": True,
        "has_projects": True,
        "has_releases": True,
        "has_packages": True,
        "has_actions": True,
        **{name: value for name, value in merge_settings.settings_of(repo).items()
           if name in _REPO_MERGE_FIELDS},
        "avatar_url": avatars.avatar_link(avatars.REPOSITORY_AVATAR, repo.id, repo.avatar),
        "internal": not repo.private and owner.visibility == "private",
        "mirror_interval": go_duration(repo.mirror_interval) if repo.mirror else "",
        "object_format_name": repo.object_format,
        "mirror_updated": rfc3339(repo.mirror_updated) if repo.mirror else GO_ZERO_TIME,
        "repo_transfer": pending_transfer(repo, viewer),
        "topics": sorted(repo.topics or ()),     # by name, as Forgejo keeps them
        "wiki_clone_url": f"{html_url}.wiki.git",
        "wiki_ssh_url": _ssh_url(owner_path, name_path + ".wiki"),
        # Kept on the item with the wiki branch's moves (chalicelib/wiki/store.py).
        "has_wiki_contents": bool(getattr(repo, "has_wiki_contents", False)),
    }
    return record


def pending_transfer(repo, viewer: Account | None) -> dict | None:
    """RepoTransfer of a repository waiting for its recipient (repo_admin/transfers.py),
    else None; read only then (the doer, the recipient, the teams it would give)."""
    recipient_id = int(repo.transfer_recipient_id or 0)
    if not recipient_id:
        return None
    from chalicelib import accounts, orgs

    found = {int(a.id): a for a in accounts.accounts_by_ids(
        [recipient_id, int(repo.transfer_doer_id or 0)])}
    recipient, doer = found.get(recipient_id), found.get(int(repo.transfer_doer_id or 0))
    if recipient is None:
        return None
    teams = orgs.teams_in_org(recipient_id, sorted(repo.transfer_team_ids or ()))
    return {"doer": user_record(doer, viewer) if doer is not None else None,
            "recipient": user_record(recipient, viewer),
            "teams": [orgs.team_record(team, recipient) for team in teams]}


def repo_api_url(owner_login: str, repo_name: str) -> str:
    return f"{app_url()}api/v1/repos/{quote(owner_login)}/{quote(repo_name)}"


def collaborator_permission(account: Account, mode_label: str, viewer: Account | None) -> dict:
    """RepoCollaboratorPermission: Forgejo repeats the mode as the role name."""
    return {"permission": mode_label, "role_name": mode_label, "user": user_record(account, viewer)}


def watch_info(view) -> dict:
    """WatchInfo for a watched repository; ``created_at`` is the repository's creation
    time, as Forgejo sends it (it does not keep when the watch began)."""
    api_url = repo_api_url(view.owner.login, view.repo.name)
    return {"subscribed": True, "ignored": False, "reason": None,
            "created_at": rfc3339(view.repo.created), "url": f"{api_url}/subscription",
            "repository_url": api_url}


def deploy_key(key, view, repository: dict | None = None) -> dict:
    """A DeployKey; Forgejo adds ``repository`` only for site admins and the owner."""
    record = {
        "id": int(key.id),
        "key_id": int(key.id),  # one id: there is no separate public-key row
        "key": key.content,
        "url": f"{repo_api_url(view.owner.login, view.repo.name)}/keys/{int(key.id)}",
        "title": key.title,
        "fingerprint": key.fingerprint,
        "created_at": rfc3339(key.created),
        "read_only": bool(key.read_only),
    }
    if repository is not None:
        record["repository"] = repository
    return record


def repo_html_url(view) -> str:
    return f"{app_url()}{quote(view.owner.login)}/{quote(view.repo.name)}"


# Topics (repos/topics.py): a repository's names, a search's records, and the 422 that
# lists invalid names.
TOPIC_SCHEMAS = schemas.declare({
    "TopicName": {"topics": STRINGS},
    "TopicResponse": {"id": I, "topic_name": S, "repo_count": I, "created": T, "updated": T},
    # Forgejo's declared type is an array of names, but it answers a name (adding or
    # removing one) or null (too many) too: published as what it sends.
    "APIInvalidTopicsError": {"invalidTopics": {"items": {"type": "string"}, "x-nullable": True},
                              "message": S},
})
# topicSearch's answer, which Forgejo describes inline (``TopicSearchResults``).
TOPIC_SEARCH_SCHEMAS = schemas.declare_extension({"TopicSearchResults": {
    "topics": {"type": "array", "items": ref("TopicResponse")}}})


def topic_response(topic) -> dict:
    """TopicResponse for a ``repos.models.Topic``."""
    return {"id": int(topic.id), "topic_name": topic.name, "repo_count": int(topic.repo_count),
            "created": rfc3339(topic.created), "updated": rfc3339(topic.updated)}
