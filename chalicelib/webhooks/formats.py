"""What a hook is sent for a payload: the text that is signed and how it travels.

``forgejo``, ``gitea`` and ``gogs`` hooks get the payload itself (Forgejo's default
handler, ``services/webhook/default.go``): JSON as Go's ``MarshalIndent`` writes it
(two-space indent, one for repository events, ``<``, ``>``, ``&``, U+2028 and U+2029
escaped, no trailing newline), as the body (``json``) or as ``payload=`` (``form``); a
``gitea`` hook's create and delete payloads carry the short ref name, re-encoded compact
with sorted keys (Forgejo's Woodpecker fix-up).  Chat hooks get their own message
(``webhooks/chat.py``); a type without a converter here gets nothing.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from chalicelib.http import input_rules
from chalicelib.webhooks import chat as webhook_chat
from chalicelib.webhooks.payloads import Payload

DEFAULT_TYPES = ("forgejo", "gitea", "gogs")


@dataclass(frozen=True)
class Request:
    text: str              # the signed text: the body, or what form/GET wrap
    content_kind: str      # json | form | matrix
    http_method: str
    default_headers: bool  # X-Forgejo-*, X-Gitea-*, X-Gogs-*, X-GitHub-*, X-Hub-*


def go_json(data, indent: str | None = "  ", *, sort_keys: bool = False) -> str:
    """Go's encoding/json output (MarshalIndent with ``indent``, or Marshal)."""
    text = json.dumps(data, ensure_ascii=False, indent=indent, sort_keys=sort_keys,
                      separators=(",", ": ") if indent else (",", ":"))
    text = input_rules.scrub(text)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                          ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text


def short_ref(ref: str) -> str:
    """git.RefName.ShortName: the name without refs/heads/, refs/tags/ or refs/."""
    for prefix in ("refs/heads/", "refs/tags/", "refs/remotes/", "refs/for/", "refs/"):
        if ref.startswith(prefix):
            return ref[len(prefix):]
    return ref


def request_for(hook, payload: Payload) -> Request | None:
    """The request ``hook`` gets for ``payload``; None when it gets none."""
    kind = hook.hook_type
    if kind in DEFAULT_TYPES:
        text = go_json(payload.data, payload.indent)
        if kind == "gitea" and payload.event_type in ("create", "delete"):
            data = json.loads(text)
            data["ref"] = short_ref(data.get("ref", ""))
            text = go_json(data, None, sort_keys=True)
        return Request(text, "form" if hook.content_type == "form" else "json",
                       hook.http_method or "POST", True)
    if payload.event_type == "push" and not payload.commits:
        return None    # chat hooks hear of no push without commits
    body = webhook_chat.message(hook, payload)
    if body is None:
        return None
    text = go_json(body, "  ")
    if kind == "matrix":
        return Request(text, "matrix", "PUT", False)
    return Request(text, "json", "POST", True)
