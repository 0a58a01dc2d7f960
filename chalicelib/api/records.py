"""Domain objects -> Forgejo JSON records, field for field.

Each builder's fields are declared in ``schemas.RECORDS``; a test holds the two to
each other and to Forgejo's own API description.
"""
from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING
from urllib.parse import quote

from chalicelib.services import merge_settings
from chalicelib.settings import get_settings

if TYPE_CHECKING:
    from chalicelib.store.accounts import Account
    from chalicelib.store.public_keys import PublicKey
    from chalicelib.store.tokens import TokenRef

GO_ZERO_TIME = "0001-01-01T00:00:00Z"


def rfc3339(unix: int | float | None) -> str:
    """Second precision, UTC; a stored 0 prints as the epoch, as Forgejo's does."""
    moment = datetime.fromtimestamp(int(unix or 0), tz=timezone.utc)
    # strftime's %Y does not pad years before 1000 (glibc): RFC 3339 wants four digits.
    return f"{moment.year:04d}-" + moment.strftime("%m-%dT%H:%M:%SZ")


def _app_url() -> str:
    return get_settings().app_url


def avatar_url(account: Account) -> str:
    digest = hashlib.md5(account.email.strip().lower().encode(), usedforsecurity=False).hexdigest()
    return f"https://secure.gravatar.com/avatar/{digest}?d=identicon"


def visible_email(account: Account, viewer: Account | None) -> str:
    """Anonymous callers, and others when the user hides it, see the no-reply address."""
    settings = get_settings()
    placeholder = f"{account.lower_name}@{settings.no_reply_address}"
    if viewer is None:
        return placeholder
    if account.keep_email_private and viewer.id != account.id and not viewer.is_admin:
        return placeholder
    return account.email


def user(account: Account, viewer: Account | None) -> dict:
    """A User record as ``viewer`` may see it: private fields only for self and admins."""
    privileged = viewer is not None and (viewer.id == account.id or viewer.is_admin)
    return {
        "id": int(account.id),
        "login": account.login,
        "login_name": account.login_name if privileged else "",
        "source_id": int(account.source_id) if privileged else 0,
        "full_name": account.full_name,
        "email": visible_email(account, viewer),
        "avatar_url": avatar_url(account),
        "html_url": _app_url() + quote(account.login),
        "language": account.language if privileged else "",
        "is_admin": bool(account.is_admin) if privileged else False,
        "last_login": rfc3339(account.last_login) if privileged else GO_ZERO_TIME,
        "created": rfc3339(account.created),
        "restricted": bool(account.restricted),
        "active": bool(account.active) if privileged else False,
        "prohibit_login": bool(account.prohibit_login) if privileged else False,
        "location": account.location,
        "pronouns": account.pronouns,
        "website": account.website,
        "description": account.description,
        "visibility": account.visibility,
        "followers_count": 0,
        "following_count": 0,
        "starred_repos_count": 0,
        "username": account.login,
    }


def public_key(key: PublicKey, owner: Account, viewer: Account | None) -> dict:
    return {
        "id": int(key.id),
        "key": key.content,
        "url": f"{_app_url()}api/v1/user/keys/{int(key.id)}",
        "title": key.title,
        "fingerprint": key.fingerprint,
        "created_at": rfc3339(key.created),
        "updated_at": rfc3339(key.updated),
        "user": user(owner, viewer),
        "read_only": bool(key.read_only),
        "key_type": key.key_type,
        "verified": False,
    }


def access_token(token: TokenRef, secret: str = "") -> dict:
    """``sha1`` holds the secret only in the creation response."""
    return {
        "id": int(token.id),
        "name": token.name,
        "sha1": secret,
        "token_last_eight": token.last_eight,
        "scopes": list(token.scopes),
        "created_at": rfc3339(token.created),
        "repositories": None,
    }


def rfc3339_offset(unix: int, offset_seconds: int) -> str:
    """A git time in its own zone, as Forgejo prints commit times."""
    tz = timezone(timedelta(seconds=offset_seconds))
    return datetime.fromtimestamp(int(unix), tz=tz).isoformat().replace("+00:00", "Z")


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


def go_duration(seconds: int) -> str:
    """Go's time.Duration text: 8h0m0s, 10m0s, 0s."""
    hours, rest = divmod(int(seconds), 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{minutes}m{secs}s"
    return f"{secs}s"


# The pull request settings a Repository record shows (allow_manual_merge and
# autodetect_manual_merge are settable but not shown, as in Forgejo).
_REPO_MERGE_FIELDS = frozenset(merge_settings.DEFAULTS) - {"allow_manual_merge",
                                                           "autodetect_manual_merge"}


def repository(view, viewer: Account | None, parent: dict | None = None) -> dict:
    """A Repository record; ``view`` is a services.repo_views.RepoView."""
    from chalicelib.services.permissions import Access

    repo, owner = view.repo, view.owner
    owner_path, name_path = quote(owner.login), quote(repo.name)
    html_url = f"{_app_url()}{owner_path}/{name_path}"
    api_url = f"{_app_url()}api/v1/repos/{owner_path}/{name_path}"
    record = {
        "id": int(repo.id),
        "owner": user(owner, viewer),
        "name": repo.name,
        "full_name": f"{owner.login}/{repo.name}",
        "description": repo.description,
        "empty": bool(repo.empty),
        "private": bool(repo.private),
        "fork": bool(repo.fork),
        "template": bool(repo.template),
        "parent": parent,
        "mirror": bool(repo.mirror),
        "size": int(repo.size) // 1024,
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
        # Dependencies are not served: off, as a Forgejo repository whose dependency
        # routes answer 404 (docs/compatibility.md).
        "internal_tracker": {"enable_time_tracker": True,
                             "allow_only_contributors_to_track_time": True,
                             "enable_issue_dependencies": False},
        "has_wiki": True,
        "wiki_branch": repo.default_branch,
        "globally_editable_wiki": False,
        "has_pull_requests": True,
        "has_projects": True,
        "has_releases": True,
        "has_packages": True,
        "has_actions": True,
        **{name: value for name, value in merge_settings.settings_of(repo).items()
           if name in _REPO_MERGE_FIELDS},
        "avatar_url": "",
        "internal": not repo.private and owner.visibility == "private",
        "mirror_interval": go_duration(repo.mirror_interval) if repo.mirror else "",
        "object_format_name": repo.object_format,
        "mirror_updated": rfc3339(repo.mirror_updated) if repo.mirror else GO_ZERO_TIME,
        "repo_transfer": None,
        "topics": [],
        "wiki_clone_url": f"{html_url}.wiki.git",
        "wiki_ssh_url": _ssh_url(owner_path, name_path + ".wiki"),
        "has_wiki_contents": False,
    }
    return record


def payload_user(name: str, email: str, username: str = "") -> dict:
    return {"name": name, "email": email, "username": username}


def _verification(info) -> dict:
    """PayloadCommitVerification of the head commit (no I/O when it is unsigned)."""
    if not info.signature:
        return {"verified": False, "reason": "gpg.error.not_signed_commit",
                "signature": "", "signer": None, "payload": ""}
    from chalicelib.signing import verify as signing_verify

    return signing_verify.for_branch(info)


def branch(info, view, *, usernames: dict[str, str] | None = None) -> dict:
    """A Branch record from a stored BranchInfo; ``usernames`` maps e-mails to logins."""
    usernames = usernames or {}
    html_url = f"{_app_url()}{quote(view.owner.login)}/{quote(view.repo.name)}"
    can_write = view.can_write
    return {
        "name": info.name,
        "commit": {
            "id": info.commit_id,
            "message": info.message,
            "url": f"{html_url}/commit/{info.commit_id}",
            "author": payload_user(info.author_name, info.author_email,
                                   usernames.get(info.author_email.lower(), "")),
            "committer": payload_user(info.committer_name, info.committer_email,
                                      usernames.get(info.committer_email.lower(), "")),
            "verification": _verification(info),
            "timestamp": rfc3339_offset(info.author_time, info.author_tz),
            "added": None,
            "removed": None,
            "modified": None,
        },
        "protected": False,
        "required_approvals": 0,
        "enable_status_check": False,
        "status_check_contexts": [],
        "user_can_push": can_write,
        "user_can_merge": can_write,
        "effective_branch_protection_name": "",
    }


def organization(org: Account) -> dict:
    return {
        "id": int(org.id),
        "name": org.login,
        "username": org.login,
        "full_name": org.full_name,
        "email": org.email,
        "avatar_url": avatar_url(org),
        "description": org.description,
        "website": org.website,
        "location": org.location,
        "visibility": org.visibility,
        "repo_admin_change_team_access": bool(org.repo_admin_change_team_access),
        "created": rfc3339(org.created),
    }


def team(item, org: Account) -> dict:
    import json

    units_map = json.loads(item.units_map or "{}")
    if item.permission == "owner" and not units_map:
        from chalicelib.services.permissions import UNITS
        units_map = {unit: "owner" for unit in UNITS}
    return {
        "id": int(item.id),
        "name": item.name,
        "description": item.description,
        "organization": organization(org),
        "includes_all_repositories": bool(item.includes_all_repositories),
        "permission": item.permission,
        "units": list(item.units),
        "units_map": units_map,
        "can_create_org_repo": bool(item.can_create_org_repo),
    }


def repo_api_url(owner_login: str, repo_name: str) -> str:
    return f"{_app_url()}api/v1/repos/{quote(owner_login)}/{quote(repo_name)}"


def collaborator_permission(account: Account, mode_label: str, viewer: Account | None) -> dict:
    """RepoCollaboratorPermission: Forgejo repeats the mode as the role name."""
    return {"permission": mode_label, "role_name": mode_label, "user": user(account, viewer)}


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


def hook(item) -> dict:
    """A Hook record from a stored ``Hook``: never the secret; the deprecated ``config``
    holds url and content_type (and slack's settings), as Forgejo's ToHook."""
    from chalicelib.webhooks import service as hooks

    meta = hooks.metadata(item)
    config = {"url": item.url, "content_type": item.content_type}
    if item.hook_type == "slack":
        config.update(meta)
    return {
        "id": int(item.id),
        "type": item.hook_type,
        "branch_filter": item.branch_filter,
        "url": item.url,
        "config": config,
        "events": hooks.events_array(item),
        "authorization_header": item.authorization_header,
        "content_type": item.content_type,
        "metadata": meta,
        "active": bool(item.active),
        "updated_at": rfc3339(item.updated),
        "created_at": rfc3339(item.created),
    }


def repo_html_url(view) -> str:
    return f"{_app_url()}{quote(view.owner.login)}/{quote(view.repo.name)}"
