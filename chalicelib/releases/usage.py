"""Release attachments as quota sees them: the owner's list (``/user/quota/attachments``,
``/orgs/{org}/quota/attachments``) and every owner's total for the recount.  Attachments
count for the owner of the repository they belong to (Forgejo's rule); only ready ones
(a presigned upload counts once confirmed) and only stored bytes (an external link is 0).
Registered with ``services.quota`` by ``register()``, which quota calls on first use."""
from __future__ import annotations

from urllib.parse import quote

from chalicelib import issues, repos
from chalicelib.releases import store
from chalicelib.settings import get_settings


def _stored(asset) -> bool:
    return asset.state == store.READY and not asset.external_url


def owner_attachments(owner_id: int) -> list[dict]:
    """The fields of a QuotaUsedAttachment for each stored attachment of the owner's
    repositories."""
    app = get_settings().app_url
    found = []
    for repo in repos.repos_owned_by(int(owner_id)):
        api = f"{app}api/v1/repos/{quote(repo.owner_login)}/{quote(repo.name)}"
        html = f"{app}{quote(repo.owner_login)}/{quote(repo.name)}"
        for release in store.all_of(int(repo.id)):
            container = f"{api}/releases/{release.id}"
            for asset in release.assets:
                if _stored(asset):
                    found.append(dict(
                        name=asset.name, size=int(asset.size),
                        api_url=f"{container}/assets/{asset.id}",
                        contained_in_api_url=container,
                        contained_in_html_url=f"{html}/releases/tag/{quote(release.tag_name)}"))
    return found


def totals() -> dict[int, tuple[int, int]]:
    """{owner id: (issue attachment bytes, release attachment bytes)} over every
    repository (the issues and comments' counted by the issues domain)."""
    found: dict[int, tuple[int, int]] = {}
    for repo in repos.every_repo():
        size = sum(int(a.size) for a in store.assets_of_repo(int(repo.id)) if _stored(a))
        of_issues = issues.issue_attachment_bytes(int(repo.id))
        before_issues, before_releases = found.get(int(repo.owner_id), (0, 0))
        found[int(repo.owner_id)] = (before_issues + of_issues, before_releases + size)
    return found
