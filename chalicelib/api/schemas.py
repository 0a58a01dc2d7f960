"""Swagger definitions of the records we send and the options we accept.

Field names and types follow Forgejo's API description.  ``records.py`` builds the
records; ``swagger.py`` publishes these; tests check all three agree.
"""
from __future__ import annotations

S = {"type": "string"}
T = {"type": "string", "format": "date-time"}
I = {"type": "integer", "format": "int64"}  # noqa: E741
B = {"type": "boolean"}
EMAIL = {"type": "string", "format": "email"}
STRINGS = {"type": "array", "items": {"type": "string"}}


def ref(name: str) -> dict:
    return {"$ref": f"#/definitions/{name}"}


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
        "created_at": T, "repositories": {"type": "array", "items": {"type": "object"}},
    },
    "ServerVersion": {"version": S},
    "GeneralAPISettings": {
        "max_response_items": I, "default_paging_num": I, "default_git_trees_per_page": I,
        "default_max_blob_size": I,
    },
    "APIError": {"message": S, "url": S},
}

# Request bodies: (required fields, properties).
OPTIONS: dict[str, tuple[list[str], dict[str, dict]]] = {
    "CreateUserOption": (["username", "email"], {
        "username": S, "email": EMAIL, "password": S, "full_name": S, "login_name": S,
        "source_id": I, "must_change_password": B, "restricted": B, "send_notify": B,
        "visibility": S, "created_at": T,
    }),
    "EditUserOption": ([], {
        "active": B, "admin": B, "allow_create_organization": B, "allow_git_hook": B,
        "allow_import_local": B, "description": S, "email": EMAIL, "full_name": S,
        "hide_email": B, "location": S, "login_name": S, "max_repo_creation": I,
        "must_change_password": B, "password": S, "prohibit_login": B, "pronouns": S,
        "restricted": B, "source_id": I, "visibility": S, "website": S,
    }),
    "CreateKeyOption": (["title", "key"], {"title": S, "key": S, "read_only": B}),
    "CreateAccessTokenOption": (["name"], {"name": S, "scopes": STRINGS}),
}

# Lists are arrays of a record: responses named <Record>List.
LISTS = ("User", "PublicKey", "AccessToken")
