"""The audit log's scrubbing and change rules, without storage: what of a snapshot an
entry may show, and a change as {field: {"before", "after"}}.

A field whose name says secret (passwords, tokens, hashes, key material, authorization,
mirror credentials, one-time and recovery codes, sessions) is left out at any depth; an
address loses its ``user:password@`` part and the values of secret-named query
parameters; texts are cut to ``MAX_TEXT`` characters, lists to ``MAX_ITEMS``, nesting
to ``MAX_DEPTH``, and changes that still pass ``MAX_CHANGES_BYTES`` keep their names only.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MAX_TEXT = 256            # characters of a text value kept
MAX_ITEMS = 20            # elements of a list value kept
MAX_DEPTH = 4             # nesting kept below a field
MAX_CHANGES_BYTES = 8192  # changes and details beyond this keep only the field names

# A field is left out when its name holds one of these (lower case)...
_SECRET_PARTS = ("password", "passwd", "secret", "token", "authorization", "auth_header",
                 "mirror_auth", "credential", "cookie", "recovery", "private_key",
                 "hash", "salt", "otp", "rands", "session", "signature", "nonce")
# ... or is key material: ``key``, ``*_key``, a key's ``content``.
_KEY_MATERIAL = re.compile(r"(^|_)key$|^content$")
# Never worth a change line: bookkeeping every write moves.
_NOISE = frozenset({"version", "updated", "updated_unix", "created", "created_unix"})

# The snapshot fields shown for something created or deleted, by the target's kind.
SNAPSHOT_FIELDS = {
    "repository": ("name", "owner_login", "description", "website", "private", "template",
                   "archived", "default_branch", "fork", "mirror", "original_url"),
    "organization": ("login", "full_name", "description", "website", "location",
                     "visibility"),
    "team": ("name", "description", "permission", "includes_all_repositories",
             "can_create_org_repo"),
    "issue": ("title", "body", "state", "closed"),
    "pull_request": ("title", "body", "state", "closed"),
    "comment": ("body",),
    "hook": ("hook_type", "url", "content_type", "events", "active", "branch_filter",
             "push_only", "choose_events"),
    "label": ("name", "color", "description", "exclusive"),
    "milestone": ("title", "name", "description", "state", "deadline"),
    "release": ("tag_name", "name", "target", "draft", "prerelease"),
    "deploy_key": ("title", "name", "fingerprint", "read_only", "mode"),
    "review": ("type", "state", "body", "commit_id"),
}


# Scrubbing -------------------------------------------------------------------------------

def secret_name(name: str) -> bool:
    lowered = str(name).lower()
    return any(part in lowered for part in _SECRET_PARTS) or bool(_KEY_MATERIAL.search(lowered))


def without_credentials(text: str) -> str:
    """An address without its user:password part nor secret query values; any other
    text as it is."""
    if "://" not in text or len(text) > 4 * MAX_TEXT:
        return text
    try:
        parts = urlsplit(text)
    except ValueError:
        return text
    if not parts.scheme or not parts.netloc:
        return text
    netloc = parts.netloc.rsplit("@", 1)[-1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, "" if secret_name(k) else v) for k, v in pairs])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def scrubbed(value: Any, depth: int = 0) -> Any:
    """``value`` with secret-named fields left out at every depth, addresses without
    credentials, texts cut to MAX_TEXT, lists to MAX_ITEMS and nesting to MAX_DEPTH."""
    if isinstance(value, str):
        text = without_credentials(value)
        return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if depth >= MAX_DEPTH:
        return None
    if isinstance(value, Mapping):
        return {str(k): scrubbed(v, depth + 1) for k, v in value.items()
                if not secret_name(str(k))}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=str) if isinstance(value, (set, frozenset)) else list(value)
        return [scrubbed(v, depth + 1) for v in items[:MAX_ITEMS]]
    return scrubbed(str(value), depth)


def bounded(changes: dict) -> dict:
    """The changes, or only their names once they pass MAX_CHANGES_BYTES."""
    if len(json.dumps(changes, default=str)) <= MAX_CHANGES_BYTES:
        return changes
    return {name: {"omitted": True} for name in list(changes)[:MAX_ITEMS * 5]}


# Changes -----------------------------------------------------------------------------------

def edited(pairs, after: Mapping) -> dict:
    """{field: {before, after}} from (field, previous value) pairs and the snapshot after."""
    return {str(name): {"before": previous, "after": (after or {}).get(name)}
            for name, previous in pairs or () if str(name) not in _NOISE}


def made(snapshot: Mapping, kind: str) -> dict:
    """A created thing's fields (its kind's few), as changes from nothing."""
    return {name: {"before": None, "after": snapshot[name]}
            for name in SNAPSHOT_FIELDS.get(kind, ()) if name in (snapshot or {})}


def gone(snapshot: Mapping, kind: str) -> dict:
    """A deleted thing's fields, as changes to nothing."""
    return {name: {"before": snapshot[name], "after": None}
            for name in SNAPSHOT_FIELDS.get(kind, ()) if name in (snapshot or {})}


def lifecycle(verb: str, snapshot: Mapping, kind: str) -> dict:
    """The changes a created/added or deleted/removed thing shows; none for other verbs."""
    if verb in ("created", "added", "opened", "published", "forked", "migrated", "restored"):
        return made(snapshot, kind)
    if verb in ("deleted", "removed", "purged"):
        return gone(snapshot, kind)
    return {}


