"""The request bodies of the accounts domain, declared once: the edge checks them
(``ApiRequest.option``) and ``/swagger.v1.json`` publishes them (``http.options``)."""
from __future__ import annotations

from typing import Annotated, Any, ClassVar, Mapping

from chalicelib.http import input_rules
from chalicelib.http.options import UNSET, DateTime, Email, Int64, Meta, Option, UnsetType

# Text limits, checked on the raw body before it is decoded (``http.input_rules``):
# Forgejo's binding MaxSize where it has one.  Organizations share the account's.
ACCOUNT_MAXIMA = {"username": input_rules.NAME_MAX, "login_name": 255,
                  "full_name": input_rules.FULL_NAME_MAX, "email": input_rules.EMAIL_MAX,
                  "password": 255, "website": 255, "location": 50,
                  "description": input_rules.DESCRIPTION_MAX, "pronouns": 50, "visibility": 32}
ACCOUNT_ONE_LINE = frozenset({"username", "login_name", "full_name", "email", "website",
                              "location", "pronouns", "visibility"})


# Published as a boolean; no rule reads it, so any value is ignored (as it was before
# the edge checked bodies).
IgnoredFlag = Annotated[Any, Meta(extra={"type": "boolean"})]
# Published as a list of strings; each item is read as text by the scope rule
# (``scopes.normalize``), so a non-text scope is its 400 "invalid access token scope".
ScopeList = Annotated[list[Any], Meta(extra={"items": {"type": "string"}})]


class CreateKeyOption(Option):
    """userCurrentPostKey, adminCreatePublicKey, and a repository's deploy keys
    (repoCreateKey, in ``repos``).  Null reaches the rule, which answers "Required"."""
    max_lengths: ClassVar[Mapping[str, int]] = {"title": 50, "key": 16_384}
    single_line: ClassVar[frozenset[str]] = frozenset({"title"})

    title: str | None
    key: str | None
    read_only: bool | None | UnsetType = UNSET


class CreateUserOption(Option):
    """adminCreateUser (and the operator's ``admin user create``).  Null reaches the
    rules, which answer "Required"; visibility stays a text so an empty one still means
    public and an unknown one gets the rule's own message."""
    max_lengths: ClassVar[Mapping[str, int]] = ACCOUNT_MAXIMA
    single_line: ClassVar[frozenset[str]] = ACCOUNT_ONE_LINE

    username: str | None
    email: Email | None
    password: str | None | UnsetType = UNSET
    full_name: str | None | UnsetType = UNSET
    login_name: str | None | UnsetType = UNSET
    source_id: Int64 | None | UnsetType = UNSET
    must_change_password: bool | None | UnsetType = UNSET
    restricted: bool | None | UnsetType = UNSET
    send_notify: IgnoredFlag | UnsetType = UNSET
    visibility: str | None | UnsetType = UNSET
    created_at: DateTime | None | UnsetType = UNSET


class EditUserOption(Option):
    """adminEditUser: what is left out or null stays as it is."""
    max_lengths: ClassVar[Mapping[str, int]] = ACCOUNT_MAXIMA
    single_line: ClassVar[frozenset[str]] = ACCOUNT_ONE_LINE

    active: bool | None | UnsetType = UNSET
    admin: bool | None | UnsetType = UNSET
    allow_create_organization: bool | None | UnsetType = UNSET
    allow_git_hook: bool | None | UnsetType = UNSET
    allow_import_local: bool | None | UnsetType = UNSET
    description: str | None | UnsetType = UNSET
    email: Email | None | UnsetType = UNSET
    full_name: str | None | UnsetType = UNSET
    hide_email: bool | None | UnsetType = UNSET
    location: str | None | UnsetType = UNSET
    login_name: str | None | UnsetType = UNSET
    max_repo_creation: Int64 | None | UnsetType = UNSET
    must_change_password: bool | None | UnsetType = UNSET
    password: str | None | UnsetType = UNSET
    prohibit_login: bool | None | UnsetType = UNSET
    pronouns: str | None | UnsetType = UNSET
    restricted: bool | None | UnsetType = UNSET
    source_id: Int64 | None | UnsetType = UNSET
    visibility: str | None | UnsetType = UNSET
    website: str | None | UnsetType = UNSET


class RenameUserOption(Option):
    """adminRenameUser.  Null reaches the rule, which answers "Required"."""
    max_lengths: ClassVar[Mapping[str, int]] = {"new_username": 255}
    single_line: ClassVar[frozenset[str]] = frozenset({"new_username"})

    new_username: str | None


class CreateAccessTokenOption(Option):
    """userCreateToken (and the token form of the web settings, and the operator's
    ``generate-access-token``).  Null reaches the rule, which answers "Required"."""
    max_lengths: ClassVar[Mapping[str, int]] = {"name": 255, "scopes": 64}
    single_line: ClassVar[frozenset[str]] = frozenset({"name", "scopes"})

    name: str | None
    scopes: ScopeList | None | UnsetType = UNSET


class UserSettingsOptions(Option):
    """updateUserSettings: what is left out or null stays as it is.  Forgejo's binding
    limits (its ``language`` column holds five characters)."""
    max_lengths: ClassVar[Mapping[str, int]] = {
        "full_name": input_rules.FULL_NAME_MAX, "website": 255,
        "description": input_rules.DESCRIPTION_MAX, "location": 50, "pronouns": 50,
        "language": 5, "theme": 255, "diff_view_style": 255}
    single_line: ClassVar[frozenset[str]] = frozenset({
        "full_name", "website", "location", "pronouns", "language", "theme",
        "diff_view_style"})

    description: str | None | UnsetType = UNSET
    diff_view_style: str | None | UnsetType = UNSET
    enable_repo_unit_hints: bool | None | UnsetType = UNSET
    full_name: str | None | UnsetType = UNSET
    hide_activity: bool | None | UnsetType = UNSET
    hide_email: bool | None | UnsetType = UNSET
    hide_pronouns: bool | None | UnsetType = UNSET
    language: str | None | UnsetType = UNSET
    location: str | None | UnsetType = UNSET
    pronouns: str | None | UnsetType = UNSET
    theme: str | None | UnsetType = UNSET
    website: str | None | UnsetType = UNSET


class CreateEmailOption(Option):
    """userAddEmail: the addresses to add (each checked by the rule)."""
    max_lengths: ClassVar[Mapping[str, int]] = {"emails": input_rules.EMAIL_MAX}
    single_line: ClassVar[frozenset[str]] = frozenset({"emails"})

    emails: list[str] | None | UnsetType = UNSET


class DeleteEmailOption(Option):
    """userDeleteEmail, adminDeleteUserEmails: the addresses to delete."""
    max_lengths: ClassVar[Mapping[str, int]] = {"emails": input_rules.EMAIL_MAX}
    single_line: ClassVar[frozenset[str]] = frozenset({"emails"})

    emails: list[str] | None | UnsetType = UNSET
