"""The OAuth2 domain's items in the table: its models (and key layouts).

- ``OAuthApp`` in the owner's partition lists a user's applications; ``OAuthClient``,
  found by client id, is the copy the protocol reads (one GetItem per token request).
  Both are written together, conditional on the application's version.
- ``OAuthGrant`` in the user's partition is the user's consent to one application;
  ``OAuthGrantLink`` in the application's partition lets deleting the application find
  every grant to revoke.  Each code exchange starts a refresh-token *family*
  (``OAuthFamily``, beside its grant): the generation it is at, and the live access
  token and refresh token it holds.  Revoking a grant is one query of the user's
  partition (the grant and its families) and deletes of what they own.
- ``OAuthCode`` and ``OAuthRefresh`` are found by the SHA-256 of their secret; both
  expire through the table's TTL attribute ``expires`` and are checked against it too.

Only this domain's modules import this module.
"""
from __future__ import annotations

from pynamodb.attributes import (
    BooleanAttribute,
    ListAttribute,
    NumberAttribute,
    UnicodeAttribute,
)

from chalicelib import accounts
from chalicelib.store.keys import keys as shared_keys
from chalicelib.store.table import Item


class OAuthApp(Item, discriminator="oauthapp"):
    """A user's OAuth2 application (Forgejo's OAuth2Application)."""
    id = NumberAttribute()
    owner_id = NumberAttribute()
    name = UnicodeAttribute()
    client_id = UnicodeAttribute()
    secret_hash = UnicodeAttribute(default="")
    redirect_uris = ListAttribute(of=UnicodeAttribute, default=list)
    confidential = BooleanAttribute(default=True)
    created = NumberAttribute()
    updated = NumberAttribute()
    version = NumberAttribute(default=1)

    def owned_elsewhere(self) -> list[Item]:
        return [OAuthClient(*keys.client_item(self.client_id))]


class OAuthClient(OAuthApp, discriminator="oauthclient"):
    """The application as the protocol finds it: by client id."""


class OAuthGrant(Item, discriminator="oauthgrant"):
    """A user's consent to an application: the scopes granted, the last OpenID nonce."""
    id = NumberAttribute()
    user_id = NumberAttribute()
    app_id = NumberAttribute()
    client_id = UnicodeAttribute()
    app_name = UnicodeAttribute(default="")
    scope = UnicodeAttribute(default="")
    nonce = UnicodeAttribute(default="")
    created = NumberAttribute()
    updated = NumberAttribute()

    def owned_elsewhere(self) -> list[Item]:
        return [OAuthGrantLink(*keys.grant_link(int(self.app_id), int(self.user_id)))]


class OAuthGrantLink(Item, discriminator="oauthgrantlink"):
    """In the application's partition: a user who granted it access."""
    user_id = NumberAttribute()


class OAuthFamily(Item, discriminator="oauthfamily"):
    """The tokens of one code exchange, rotated together.  A refresh token is good only
    at the generation it was issued for; an older one presented again revokes the grant."""
    app_id = NumberAttribute()
    generation = NumberAttribute(default=1)
    access_hash = UnicodeAttribute(default="")
    refresh_hash = UnicodeAttribute(default="")
    created = NumberAttribute()
    updated = NumberAttribute()
    expires = NumberAttribute(null=True)     # TTL: the refresh token's end

    def owned_elsewhere(self) -> list[Item]:
        owned: list[Item] = []
        if self.access_hash:
            owned.append(accounts.token_item(self.access_hash))
        if self.refresh_hash:
            owned.append(OAuthRefresh(*keys.refresh(self.refresh_hash)))
        return owned


class OAuthCode(Item, discriminator="oauthcode"):
    """An authorization code: used once (``used`` flips by a conditional update)."""
    user_id = NumberAttribute()
    app_id = NumberAttribute()
    client_id = UnicodeAttribute()
    redirect_uri = UnicodeAttribute()
    scope = UnicodeAttribute(default="")
    nonce = UnicodeAttribute(default="")
    challenge = UnicodeAttribute(default="")
    challenge_method = UnicodeAttribute(default="")
    used = BooleanAttribute(default=False)
    family = UnicodeAttribute(default="")    # the family its exchange started
    created = NumberAttribute()
    expires = NumberAttribute(null=True)     # TTL


class OAuthRefresh(Item, discriminator="oauthrefresh"):
    """A refresh token, kept after rotation until it expires so that its reuse is seen."""
    user_id = NumberAttribute()
    app_id = NumberAttribute()
    client_id = UnicodeAttribute()
    family = UnicodeAttribute()
    generation = NumberAttribute()
    scope = UnicodeAttribute(default="")
    created = NumberAttribute()
    expires = NumberAttribute(null=True)     # TTL


class keys(shared_keys):
    """Key layouts of the OAuth2 domain's items (docs/data-model.md)."""

    APP_PREFIX = "OAUTHAPP#"
    GRANT_PREFIX = "OAUTHGRANT#"

    @staticmethod
    def app(owner_id: int, app_id: int) -> tuple[str, str]:
        return shared_keys.account_partition(owner_id), f"OAUTHAPP#{app_id:015d}"

    @staticmethod
    def client_item(client_id: str) -> tuple[str, str]:
        return f"OAUTHCLIENT#{client_id}", "CLIENT"

    @staticmethod
    def grant(user_id: int, app_id: int) -> tuple[str, str]:
        return shared_keys.account_partition(user_id), f"OAUTHGRANT#{app_id:015d}"

    @staticmethod
    def family(user_id: int, app_id: int, family: str) -> tuple[str, str]:
        """Beside its grant: the grant's prefix query finds its families too."""
        return shared_keys.account_partition(user_id), f"OAUTHGRANT#{app_id:015d}#F#{family}"

    @staticmethod
    def grant_partition(user_id: int, app_id: int) -> tuple[str, str]:
        """The key prefix of a grant and its families."""
        return shared_keys.account_partition(user_id), f"OAUTHGRANT#{app_id:015d}"

    @staticmethod
    def grant_link(app_id: int, user_id: int) -> tuple[str, str]:
        return f"OAUTHAPP#{app_id}", f"GRANT#{user_id:015d}"

    @staticmethod
    def app_links(app_id: int) -> str:
        return f"OAUTHAPP#{app_id}"

    @staticmethod
    def code(code_hash: str) -> tuple[str, str]:
        return f"OAUTHCODE#{code_hash}", "CODE"

    @staticmethod
    def refresh(refresh_hash: str) -> tuple[str, str]:
        return f"OAUTHREFRESH#{refresh_hash}", "REFRESH"

