"""Users: creation, editing, deletion and visibility rules.

Every function takes the acting user (``actor``, ``None`` for anonymous) and enforces
the rules itself, so the CLI and the API share them.
"""
from __future__ import annotations

import re

from chalicelib import clock, events
from chalicelib.accounts import email_store, store
from chalicelib.accounts.options import CreateUserOption, EditUserOption
from chalicelib.accounts.passwords import hash_password, verify_password
from chalicelib.accounts.store import Account
from chalicelib.errors import (ConditionFailed, ConflictError, InvalidInput, NotFoundError,
                               PermissionDenied)
from chalicelib.http import input_rules
from chalicelib.http.options import given_fields
from chalicelib.settings import get_settings
from chalicelib.store import ids, unit_of_work

VISIBILITIES = ("public", "limited", "private")
MAX_NAME_LENGTH = 40
# Names that collide with top-level paths (Forgejo reserves these too).  "admin" is
# allowed: we serve no web admin pages, and it is the name operators reach for first.
RESERVED_NAMES = frozenset({
    ".", "..", ".well-known", "api", "assets", "attachments", "avatar", "avatars",
    "captcha", "commits", "debug", "devtest", "error", "explore", "favicon.ico", "ghost",
    "issues", "login", "manifest.json", "metrics", "milestones", "new", "notifications",
    "org", "pulls", "raw", "repo", "repo-avatars", "robots.txt", "search", "serviceworker.js",
    "ssh_info", "swagger.v1.json", "user", "v2", "gitea-actions", "forgejo-actions",
})
_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9]|[-_.](?=[A-Za-z0-9]))*$")
_EMAIL = re.compile(r"^[^@\s<>\"]+@[^@\s<>\"]+\.[^@\s<>\"]+$")



def validate_name(name: str, field: str = "Username") -> str:
    if not name:
        raise InvalidInput(f"[{field}]: Required")
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidInput(f"[{field}]: MaxSize")
    if not _NAME.match(name):
        raise InvalidInput(f"[{field}]: invalid name: only letters, digits, '-', '_' and '.' "
                           "are allowed, not at the start or end and not twice in a row")
    if name.lower() in RESERVED_NAMES:
        raise InvalidInput(f"name is reserved [name: {name}]")
    return name


def validate_email(email: str) -> str:
    email = (email or "").strip()
    if not email:
        raise InvalidInput("[Email]: Required")
    if len(email) > 254 or not _EMAIL.match(email):
        raise InvalidInput(f"[Email]: Email: e-mail invalid [email: {email}]")
    return email


def validate_visibility(value: str) -> str:
    if value not in VISIBILITIES:
        raise InvalidInput(f"[Visibility]: must be one of {', '.join(VISIBILITIES)}")
    return value


def _check_password(password: str) -> str:
    minimum = get_settings().security.MIN_PASSWORD_LENGTH
    if len(password) < minimum:
        raise InvalidInput(f"[Password]: password is too short: at least {minimum} characters")
    return password


def _require_site_admin(actor: Account | None) -> None:
    if actor is None or not actor.is_admin:
        raise PermissionDenied("user should be the site admin")


def actor_of_event(actor: Account | None) -> dict:
    """The ``actor_id``/``actor`` fields of an event raised by ``actor`` (None: the
    operator, through the CLI or a bootstrap)."""
    return {"actor_id": int(actor.id) if actor is not None else None,
            "actor": events.snapshot(store.stored_values(actor))}


def create_user(actor: Account | None, option: CreateUserOption, *,
                is_admin: bool = False) -> Account:
    """adminCreateUser."""
    _require_site_admin(actor)
    return create_account(option, is_admin=is_admin, actor=actor)


def create_account(option: CreateUserOption, *, is_admin: bool,
                   actor: Account | None = None) -> Account:
    """Create a user without a permission check (operator use).

    One transaction: the account, its name and e-mail claims and the event; a taken
    name or e-mail fails the claim (no read beforehand)."""
    username = validate_name(option.username or "")
    email = validate_email(option.email or "")
    source_id = option.source_id or 0
    password = option.password or ""
    if source_id == 0:
        _check_password(password)
    visibility = validate_visibility(option.visibility or "public")
    created_at = option.created_at
    settings = get_settings()
    fields = dict(
        email=email, created=_parse_time(created_at) if created_at else clock.seconds(),
        full_name=option.full_name or "",
        login_name=option.login_name or username,
        source_id=source_id,
        password_hash=hash_password(password, settings.security.PASSWORD_HASH_COST)
        if password else "",
        is_admin=is_admin, restricted=bool(option.restricted),
        must_change_password=bool(option.must_change_password),
        keep_email_private=settings.service.DEFAULT_KEEP_EMAIL_PRIVATE,
        visibility=visibility,
    )
    account = store.new_account(ids.next_id("account"), username, account_type="user",
                                **fields)
    try:
        with unit_of_work.writing() as uow:
            store.stage_create(account)
            # The primary address's item: the user's (and the admin's) e-mail lists.
            email_store.stage_primary(int(account.id), account.email,
                                      int(account.created) * 1000)
            uow.raise_event(events.UserCreated(**actor_of_event(actor), user_id=int(account.id),
                                               login=username))
    except ConditionFailed as exc:
        if exc.label == store.EMAIL_TAKEN:
            raise InvalidInput(f"e-mail already in use [email: {email}]") from None
        raise InvalidInput(f"user already exists [name: {username}]") from None
    return account


def _parse_time(value: str) -> int:
    from datetime import datetime

    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp())
    except ValueError:
        raise InvalidInput("[CreatedAt]: invalid RFC 3339 time") from None


def ensure_admin(username: str, password: str, email: str) -> bool:
    """Create a site admin unless the name exists (operator bootstrap). True if created."""
    if store.name_taken(username):
        return False
    create_account(CreateUserOption(username=username, password=password, email=email),
                   is_admin=True)
    return True


def account_key(account_id: int) -> tuple[str, str]:
    """The table key of an account (for a request's batched preload)."""
    return store.account_key(account_id)


def account_by_id(account_id: int) -> Account | None:
    return store.get_by_id(account_id)


def end_sessions(account: Account) -> None:
    """Sign the user out everywhere: every web session cookie issued so far stops
    verifying (see ``chalicelib.http.sessions``).  An account deleted meanwhile has no
    sessions left to end."""
    try:
        with unit_of_work.writing():
            store.stage_end_sessions(int(account.id))
    except ConditionFailed:
        return


def get_user(name: str, actor: Account | None = None) -> Account:
    """The user called ``name``; the caller's own account needs no read."""
    if actor is not None and actor.lower_name == name.lower():
        return actor
    account = store.get_by_name(name)
    if account is None or account.account_type != "user":
        raise NotFoundError(f"user redirect does not exist [name: {name}]")
    return account


def can_see(viewer: Account | None, account: Account) -> bool:
    """Whether ``viewer`` may see the profile, as far as the account alone decides
    (public, limited, private): exact for a user.  An organization's members also see
    it; that rule reads the membership (``repos.can_see_account``, which asks this
    first)."""
    if account.visibility == "public":
        return True
    if viewer is None:
        return False
    if viewer.is_admin or viewer.id == account.id:
        return True
    return account.visibility == "limited" and not viewer.restricted


def get_visible_user(viewer: Account | None, name: str) -> Account:
    account = get_user(name, viewer)
    if not can_see(viewer, account):
        raise NotFoundError(f"user redirect does not exist [name: {name}]")
    return account


_BOOL_FIELDS = {
    "active": "active", "admin": "is_admin", "allow_create_organization": "allow_create_organization",
    "allow_git_hook": "allow_git_hook", "allow_import_local": "allow_import_local",
    "hide_email": "keep_email_private", "must_change_password": "must_change_password",
    "prohibit_login": "prohibit_login", "restricted": "restricted",
}
_TEXT_FIELDS = ("full_name", "location", "website", "description", "pronouns", "login_name")


def apply_fields(account: Account, sent: dict, fields: dict[str, str]) -> list[str]:
    """Set each sent option field (name -> the account attribute it sets) that differs;
    the names of those that changed."""
    changed = []
    for field, attr in fields.items():
        if field in sent and getattr(account, attr) != sent[field]:
            setattr(account, attr, sent[field])
            changed.append(field)
    return changed


def edit_user(actor: Account | None, name: str, option: EditUserOption) -> Account:
    """adminEditUser: absent (or null) fields stay as they are."""
    _require_site_admin(actor)
    # Forgejo's binding rule answers before the handler looks the user up.
    input_rules.check_url(option.website or "", "website")
    account = get_user(name)
    old_email = account.email
    sent = {field: value for field, value in given_fields(option).items() if value is not None}
    changed = apply_fields(account, sent, _BOOL_FIELDS)
    for field in (*_TEXT_FIELDS, "source_id", "max_repo_creation"):
        if field in sent and getattr(account, field) != sent[field]:
            setattr(account, field, sent[field])
            changed.append(field)
    visibility = sent.get("visibility")
    if visibility is not None and visibility != account.visibility:
        account.visibility = validate_visibility(visibility)
        changed.append("visibility")
    email = sent.get("email")
    if email is not None and email.lower() != account.email.lower():
        account.email = validate_email(email)
        changed.append("email")
    password = sent.get("password")
    if password:
        account.password_hash = hash_password(_check_password(password),
                                              get_settings().security.PASSWORD_HASH_COST)
        changed.append("password")
    if not changed:
        return account
    account.updated = clock.seconds()
    try:
        with unit_of_work.writing() as uow:
            store.stage_save(account)
            if "email" in changed:
                # The old address is let go; the new one may be the user's own address.
                email_store.stage_primary_change(
                    int(account.id), old_email, account.email,
                    email_store.addresses_of(int(account.id)), taken_label=store.EMAIL_TAKEN,
                    seq=clock.seconds() * 1000)
            uow.raise_event(events.UserEdited(**actor_of_event(actor), user_id=int(account.id),
                                              changed=tuple(changed)))
    except ConditionFailed as exc:
        if exc.label == store.EMAIL_TAKEN:
            raise InvalidInput(f"e-mail already in use [email: {account.email}]") from None
        raise ConflictError("the account changed while it was being edited") from None
    return account


def delete_user(actor: Account | None, name: str) -> None:
    """adminDeleteUser: refused (422) while the user still owns repositories.  One
    commit removes the account, its claims, tokens and keys (see
    ``accounts.store.stage_delete`` for a partition past the transaction limit)."""
    _require_site_admin(actor)
    account = get_user(name)
    if account.num_repos:
        raise InvalidInput(f"user still has ownership of repositories [uid: {account.id}]")
    try:
        with unit_of_work.writing() as uow:
            store.stage_delete(account)
            uow.raise_event(events.UserDeleted(**actor_of_event(actor), user_id=int(account.id),
                                               login=account.login))
    except ConditionFailed:
        raise ConflictError("the account changed while it was being deleted") from None


def check_password_login(name: str, password: str) -> Account | None:
    """The account if ``password`` is right and password logins are allowed for it."""
    account = store.get_by_name(name)
    if account is None or account.account_type != "user" or not account.password_hash:
        # Spend the same time as a real check, so timing does not reveal user names.
        verify_password(password, _DUMMY_HASH)
        return None
    return account if verify_password(password, account.password_hash) else None


def change_own_password(actor: Account | None, old_password: str,
                        new_password: str) -> Account:
    """The signed-in user's own password (Forgejo's account settings form; the API has
    no such route): the old password checked as a password sign-in checks it, the new
    one held to ``[security] MIN_PASSWORD_LENGTH``.  One conditional write on the
    account read by that check, with its ``UserEdited`` event; the new hash makes every
    web session issued before stop verifying (``http.sessions``' fingerprint)."""
    if actor is None or actor.account_type != "user":
        raise PermissionDenied("only signed in user is allowed")
    if not new_password:
        raise InvalidInput("[Password]: Required")
    _check_password(new_password)
    account = check_password_login(actor.login, old_password or "")
    if account is None or account.id != actor.id:
        raise InvalidInput("[OldPassword]: the current password is not correct")
    account.password_hash = hash_password(new_password,
                                          get_settings().security.PASSWORD_HASH_COST)
    account.must_change_password = False
    account.updated = clock.seconds()
    try:
        with unit_of_work.writing() as uow:
            store.stage_save(account)
            uow.raise_event(events.UserEdited(**actor_of_event(actor), user_id=int(account.id),
                                              changed=("password",)))
    except ConditionFailed:
        raise ConflictError("the account changed while it was being edited") from None
    return account


_DUMMY_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
