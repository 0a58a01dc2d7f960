"""The webhooks domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/webhooks/__init__.py``).
"""
from __future__ import annotations

import zlib

from pynamodb.attributes import (BinaryAttribute, BooleanAttribute, ListAttribute, NumberAttribute,
                                 UnicodeAttribute)

from chalicelib.store.keys import keys as shared_keys
from chalicelib.store.table import Item


class Hook(Item, discriminator="hook"):
    """A webhook of a repository (pk ``R#<id>``) or an organization (pk ``A#<id>``)."""
    id = NumberAttribute()
    owner_kind = UnicodeAttribute()                  # repo | org
    owner_id = NumberAttribute()
    hook_type = UnicodeAttribute(default="gitea")
    url = UnicodeAttribute()
    content_type = UnicodeAttribute(default="json")
    secret = UnicodeAttribute(default="")
    http_method = UnicodeAttribute(default="post")
    events = ListAttribute(of=UnicodeAttribute, default=list)
    push_only = BooleanAttribute(default=False)
    choose_events = BooleanAttribute(default=False)
    branch_filter = UnicodeAttribute(default="")
    authorization_header = UnicodeAttribute(default="")
    config = UnicodeAttribute(default="{}")          # JSON of the remaining config keys
    active = BooleanAttribute(default=False)
    # Admin hooks (owner_kind "system"): a system hook fires for every repository; the
    # others are Forgejo's default hooks (kept, listed by id, never fired).
    is_system = BooleanAttribute(default=False)
    created = NumberAttribute()
    updated = NumberAttribute()


class HookDelivery(Item, discriminator="hookdelivery"):
    id = NumberAttribute()
    guid = UnicodeAttribute()
    owner_kind = UnicodeAttribute()
    owner_id = NumberAttribute()
    hook_id = NumberAttribute()
    hook_type = UnicodeAttribute(default="")
    repo_id = NumberAttribute(default=0)
    event_id = UnicodeAttribute(default="")        # the domain event (idempotent enqueue)
    event = UnicodeAttribute()                     # X-Forgejo-Event
    event_type = UnicodeAttribute()                # X-Forgejo-Event-Type
    action = UnicodeAttribute(default="")
    redelivery = BooleanAttribute(default=False)
    created = NumberAttribute()                    # unix seconds (float)
    # pending | delivered | failed (not retried) | dead (out of attempts or age) | dropped
    state = UnicodeAttribute(default="pending")
    next_attempt_at = NumberAttribute(default=0)
    attempt_count = NumberAttribute(default=0)
    attempts = UnicodeAttribute(default="[]")      # JSON: the latest attempts, oldest first
    # What the request is made of at send time (the hook's URL, secret and
    # authorization are read then): the signed text, how it travels.
    payload = BinaryAttribute(legacy_encoding=False)   # zlib of the UTF-8 text
    http_method = UnicodeAttribute(default="POST")
    content_kind = UnicodeAttribute(default="json")    # json | form | matrix
    default_headers = BooleanAttribute(default=True)   # X-Forgejo-* and signatures
    status = UnicodeAttribute(default="")
    status_code = NumberAttribute(default=0)
    delivered_at = NumberAttribute(default=0)
    duration = NumberAttribute(default=0)
    expires = NumberAttribute(null=True)

    @property
    def payload_text(self) -> str:
        return zlib.decompress(self.payload).decode("utf-8")


class QueuedDelivery(Item, discriminator="hookqueued"):
    delivery_id = NumberAttribute()


class DeliveryLane(Item, discriminator="hooklane"):
    owner_kind = UnicodeAttribute()
    owner_id = NumberAttribute()
    hook_id = NumberAttribute()
    next_at = NumberAttribute(default=0)           # when a worker should look again
    lease_until = NumberAttribute(default=0)
    lease_owner = UnicodeAttribute(default="")
    generation = NumberAttribute(default=0)        # bumped by every enqueue


class keys(shared_keys):  # noqa: N801 - a namespace of key builders
    """Key layouts of the webhooks domain's items (docs/data-model.md)."""

    @staticmethod
    def repo_hook(repo_id: int, hook_id: int) -> tuple[str, str]:
        return shared_keys.repo_partition(repo_id), f"HOOK#{hook_id:015d}"

    @staticmethod
    def org_hook(org_id: int, hook_id: int) -> tuple[str, str]:
        return shared_keys.account_partition(org_id), f"HOOK#{hook_id:015d}"

    @staticmethod
    def system_hook(hook_id: int) -> tuple[str, str]:
        return "SYSHOOKS", f"HOOK#{hook_id:015d}"

    HOOK_PREFIX = "HOOK#"
