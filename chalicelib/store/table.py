"""The single DynamoDB table, as PynamoDB models.

Every item has ``pk``/``sk`` and, where it must be found by a second key, ``gsi1pk``/
``gsi1sk``.  ``kind`` is the PynamoDB discriminator, so a read of the wrong kind of
item fails loudly.  Key layouts are listed in ``docs/data-model.md``; the helpers in
``keys`` below are the only place that spells them.
"""
from __future__ import annotations

from pynamodb.attributes import (BooleanAttribute, DiscriminatorAttribute, ListAttribute,
                                 NumberAttribute, UnicodeAttribute)
from pynamodb.connection import Connection
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from chalicelib.settings import Settings, get_settings


class GSI1(GlobalSecondaryIndex):
    class Meta:
        index_name = "gsi1"
        projection = AllProjection()
        billing_mode = "PAY_PER_REQUEST"

    gsi1pk = UnicodeAttribute(hash_key=True)
    gsi1sk = UnicodeAttribute(range_key=True)


class Item(Model):
    class Meta:
        table_name = "nimbus"
        region = "us-east-1"
        billing_mode = "PAY_PER_REQUEST"
        max_retry_attempts = 3

    pk = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True)
    kind = DiscriminatorAttribute()
    gsi1pk = UnicodeAttribute(null=True)
    gsi1sk = UnicodeAttribute(null=True)
    gsi1 = GSI1()

    @classmethod
    def _get_connection(cls):
        # One connection (one botocore client) for every kind of item: creating a
        # client per model class would cost each cold start several clients.
        return Model._get_connection.__func__(Item)


class Counter(Item, discriminator="counter"):
    value = NumberAttribute(default=0)


class Claim(Item, discriminator="claim"):
    """Reserves a unique value (login name, e-mail, key fingerprint) for ``owner_id``."""
    owner_id = NumberAttribute()


class Account(Item, discriminator="account"):
    """A user or an organization: they share one id space and one name space."""
    id = NumberAttribute()
    account_type = UnicodeAttribute(default="user")  # user | org
    login = UnicodeAttribute()
    lower_name = UnicodeAttribute()
    email = UnicodeAttribute(default="")
    full_name = UnicodeAttribute(default="")
    password_hash = UnicodeAttribute(default="")
    login_name = UnicodeAttribute(default="")
    source_id = NumberAttribute(default=0)
    is_admin = BooleanAttribute(default=False)
    active = BooleanAttribute(default=True)
    prohibit_login = BooleanAttribute(default=False)
    restricted = BooleanAttribute(default=False)
    must_change_password = BooleanAttribute(default=False)
    keep_email_private = BooleanAttribute(default=False)
    visibility = UnicodeAttribute(default="public")
    location = UnicodeAttribute(default="")
    website = UnicodeAttribute(default="")
    description = UnicodeAttribute(default="")
    pronouns = UnicodeAttribute(default="")
    language = UnicodeAttribute(default="")
    allow_git_hook = BooleanAttribute(default=False)
    allow_import_local = BooleanAttribute(default=False)
    allow_create_organization = BooleanAttribute(default=True)
    max_repo_creation = NumberAttribute(default=-1)
    created = NumberAttribute()          # unix seconds
    updated = NumberAttribute()
    last_login = NumberAttribute(default=0)
    # Kept by repository creation/deletion in the same transaction as the repository.
    num_repos = NumberAttribute(default=0)
    # Bumped on every edit: writes are conditional on the version they read.
    version = NumberAttribute(default=1)


class Token(Item, discriminator="token"):
    """Looked up by the SHA-256 of the secret (pk), so authentication is one GetItem."""
    id = NumberAttribute()
    user_id = NumberAttribute()
    name = UnicodeAttribute()
    scopes = ListAttribute(of=UnicodeAttribute, default=list)
    last_eight = UnicodeAttribute()
    created = NumberAttribute()


class TokenRef(Item, discriminator="tokenref"):
    """The user's copy of a token (pk = the user): lists tokens, keeps names unique."""
    id = NumberAttribute()
    name = UnicodeAttribute()
    token_hash = UnicodeAttribute()
    scopes = ListAttribute(of=UnicodeAttribute, default=list)
    last_eight = UnicodeAttribute()
    created = NumberAttribute()


class PublicKey(Item, discriminator="publickey"):
    id = NumberAttribute()
    user_id = NumberAttribute()
    title = UnicodeAttribute()
    content = UnicodeAttribute()
    fingerprint = UnicodeAttribute()
    key_type = UnicodeAttribute()
    read_only = BooleanAttribute(default=False)
    created = NumberAttribute()
    updated = NumberAttribute()


class keys:  # noqa: N801 - a namespace of key builders
    """Key layouts of the table (see docs/data-model.md)."""

    @staticmethod
    def account(account_id: int) -> tuple[str, str]:
        return f"A#{account_id}", "A"

    @staticmethod
    def login(lower_name: str) -> tuple[str, str]:
        return f"LOGIN#{lower_name}", "CLAIM"

    @staticmethod
    def login_gsi(lower_name: str) -> tuple[str, str]:
        return f"LOGIN#{lower_name}", "A"

    @staticmethod
    def email(lower_email: str) -> tuple[str, str]:
        return f"EMAIL#{lower_email}", "CLAIM"

    @staticmethod
    def counter(name: str) -> tuple[str, str]:
        return f"SEQ#{name}", "SEQ"

    @staticmethod
    def token(token_hash: str) -> tuple[str, str]:
        return f"TOKEN#{token_hash}", "TOKEN"

    @staticmethod
    def token_ref(user_id: int, name: str) -> tuple[str, str]:
        return f"A#{user_id}", f"TOKEN#{name}"

    @staticmethod
    def public_key(user_id: int, key_id: int) -> tuple[str, str]:
        return f"A#{user_id}", f"KEY#{key_id:015d}"

    @staticmethod
    def key_fingerprint(fingerprint: str) -> tuple[str, str]:
        return f"KEYFP#{fingerprint}", "CLAIM"

    # Prefixes of items that live in an account's partition.
    TOKEN_PREFIX = "TOKEN#"
    KEY_PREFIX = "KEY#"
    REPO_PREFIX = "REPO#"


def configure(settings: Settings | None = None) -> None:
    """Point every model at the configured table and endpoint (moto locally)."""
    settings = settings or get_settings()
    host = settings.aws.ENDPOINT_URL or None
    for model in (Item, GSI1):
        model.Meta.table_name = settings.aws.TABLE
        model.Meta.region = settings.aws.REGION
        model.Meta.host = host
    Item._connection = None


def connection() -> Connection:
    """The low-level connection, shared with the models (transactions need it)."""
    return Item._get_connection().connection


configure()
