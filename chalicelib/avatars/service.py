"""Avatars of users, organizations and repositories: upload, delete, and what a URL serves.

Who may change which (Forgejo's routes): a signed-in user their own
(``userUpdateAvatar``); an organization's owners its (``reqOrgOwnership``: other members
403, callers who cannot see it 404); a repository's admins its (``reqRepoAdmin``).

An upload (``{"image": base64}``) is refused before anything is stored when it is not
base64 (400), decodes to more than ``[picture] AVATAR_MAX_FILE_SIZE`` bytes (413), or
is not a picture within ``AVATAR_MAX_WIDTH`` x ``AVATAR_MAX_HEIGHT`` (422; Forgejo
answers 500 to the last two).  What is stored is the PNG ``images.normalized`` makes of
it: the object first, then the content hash on the account or repository item; the
object the item named before is removed after.  Deleting puts the identicon back.
"""
from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING

from chalicelib import accounts, repos
from chalicelib.avatars import images, links, object_store
from chalicelib.errors import (BadInput, ConditionFailed, ConflictError, NotFoundError,
                               PermissionDenied, TooLarge)
from chalicelib.settings import get_settings
from chalicelib.store import unit_of_work

if TYPE_CHECKING:
    from chalicelib.accounts import Account
    from chalicelib.avatars.options import UpdateRepoAvatarOption, UpdateUserAvatarOption
    from chalicelib.repos import RepoView

CHANGED = "avatar"          # ConditionFailed label: the account changed since it was read
NOT_ORG_OWNER = "Must be an organization owner"
NOT_REPO_ADMIN = "user should be an owner or a collaborator with admin write of a repository"


# An upload ------------------------------------------------------------------------------

def decoded(text: str) -> bytes:
    """The bytes of a base64 ``image`` (line breaks ignored, as Go's decoder does),
    held to the size limit before and after decoding."""
    limit = get_settings().picture.AVATAR_MAX_FILE_SIZE
    compact = text.replace("\r", "").replace("\n", "")
    if limit > 0 and len(compact) // 4 * 3 > limit + 2:
        raise TooLarge(f"avatar of about {len(compact) // 4 * 3} bytes is larger than the "
                       f"maximum of {limit} bytes")
    try:
        data = base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        raise BadInput("image is not valid base64") from None
    if limit > 0 and len(data) > limit:
        raise TooLarge(f"avatar of {len(data)} bytes is larger than the maximum of "
                       f"{limit} bytes")
    return data


def prepared(option: UpdateUserAvatarOption | UpdateRepoAvatarOption) -> images.Picture:
    """The PNG to store for an upload (``BadInput``, ``TooLarge``, ``InvalidInput``)."""
    settings = get_settings().picture
    return images.normalized(decoded(option.image), max_width=settings.AVATAR_MAX_WIDTH,
                             max_height=settings.AVATAR_MAX_HEIGHT)


def _stored(kind: str, subject_id: int, current: str, picture: images.Picture) -> bool:
    """Put the picture's object unless the item names it already (False: nothing to do)."""
    if picture.digest == (current or ""):
        return False
    object_store.put(links.avatar_key(kind, subject_id, picture.digest).object_key,
                     picture.png)
    return True


def _forget(kind: str, subject_id: int, digest: str) -> None:
    if digest:
        object_store.remove(links.avatar_key(kind, subject_id, digest).object_key)


# Accounts: users and organizations ------------------------------------------------------

def _set_account(account: Account, digest: str) -> None:
    before = account.avatar or ""
    account.avatar = digest
    try:
        with unit_of_work.writing():
            accounts.stage_save_account(account, label=CHANGED)
    except ConditionFailed as failed:
        if failed.label == CHANGED:
            raise ConflictError("the account changed while its avatar was being set") from None
        raise
    if before != digest:
        _forget(links.ACCOUNT, int(account.id), before)


def update_account_avatar(account: Account, option: UpdateUserAvatarOption) -> str:
    """The upload as the account's avatar; its content hash."""
    picture = prepared(option)
    if _stored(links.ACCOUNT, int(account.id), account.avatar, picture):
        _set_account(account, picture.digest)
    return picture.digest


def delete_account_avatar(account: Account) -> None:
    """Back to the identicon (nothing to do when no upload was kept)."""
    if account.avatar:
        _set_account(account, "")


def require_org_owner(actor: Account | None, org: Account) -> None:
    if actor is None or not repos.is_org_owner(org, actor):
        raise PermissionDenied(NOT_ORG_OWNER)


def update_org_avatar(actor: Account | None, org: Account,
                      option: UpdateUserAvatarOption) -> str:
    require_org_owner(actor, org)
    return update_account_avatar(org, option)


def delete_org_avatar(actor: Account | None, org: Account) -> None:
    require_org_owner(actor, org)
    delete_account_avatar(org)


# Repositories ---------------------------------------------------------------------------

def require_repo_admin(view: RepoView) -> None:
    if not view.is_admin:
        raise PermissionDenied(NOT_REPO_ADMIN)


def _set_repo(view: RepoView, digest: str) -> None:
    repo = view.repo
    before = repo.avatar or ""
    try:
        with unit_of_work.writing():
            repos.stage_repo_fields(repo, {"avatar": digest})
    except ConditionFailed as failed:
        if failed.label == repos.REPO_CHANGED:
            raise NotFoundError("the repository was deleted meanwhile") from None
        raise
    repo.avatar = digest
    if before != digest:
        _forget(links.REPOSITORY, int(repo.id), before)


def update_repo_avatar(view: RepoView, option: UpdateRepoAvatarOption) -> str:
    require_repo_admin(view)
    picture = prepared(option)
    if _stored(links.REPOSITORY, int(view.repo.id), view.repo.avatar, picture):
        _set_repo(view, picture.digest)
    return picture.digest


def delete_repo_avatar(view: RepoView) -> None:
    require_repo_admin(view)
    if view.repo.avatar:
        _set_repo(view, "")


def copy_repo_avatar(source_id: int, digest: str, target_id: int) -> None:
    """Repository ``source_id``'s upload ``digest`` stored for repository ``target_id``
    too (``generateRepo``'s ``avatar``; Forgejo copies the file).  The same bytes keep the
    same digest; the caller then stages it on the target's item
    (``repos.stage_repo_fields``), after this, so the item never names a missing object."""
    object_store.copy(links.avatar_key(links.REPOSITORY, source_id, digest).object_key,
                      links.avatar_key(links.REPOSITORY, target_id, digest).object_key)


def discard_repo_avatar(target_id: int, digest: str) -> None:
    """Undo ``copy_repo_avatar`` when the item never came to name the copy (best effort)."""
    _forget(links.REPOSITORY, int(target_id), digest)


# Serving --------------------------------------------------------------------------------

def served(text: str) -> bytes:
    """The PNG a URL's key names: an identicon drawn from it, or the stored upload
    (one GetObject).  A key of no form, or an upload not stored, is a 404.  An
    identicon is drawn for any well-formed id without reading whether it exists: it
    tells nothing about the subject, and a read would cost every picture a call."""
    key = links.parse(text)
    if key is None:
        raise NotFoundError("no such avatar")
    if not key.digest:
        return images.identicon(key.seed)
    data = object_store.read(key.object_key)
    if data is None:
        raise NotFoundError("no such avatar")
    return data
