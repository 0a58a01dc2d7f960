"""The accounts domain's items in the table: its models (and key layouts).

Only this domain's modules import this module; other domains reach these items
through the domain's face (``chalicelib/accounts/__init__.py``).
"""
from __future__ import annotations

import hashlib

from pynamodb.attributes import BooleanAttribute, ListAttribute, NumberAttribute, UnicodeAttribute

from chalicelib.store.keys import keys as shared_keys
from chalicelib.store.table import Claim, Item


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
    # Moved with ADD in the transaction of each follow (accounts.follow_store).
    num_followers = NumberAttribute(default=0)
    num_following = NumberAttribute(default=0)
    # SHA-256 of the uploaded avatar's PNG, "" for the identicon: a record's avatar_url
    # is built from it with no read (chalicelib/avatars/links.py).
    avatar = UnicodeAttribute(default="")
    # Organizations only.
    repo_admin_change_team_access = BooleanAttribute(default=False)
    # The user's own settings (getUserSettings / updateUserSettings), Forgejo's defaults;
    # an empty theme reads as the default theme.
    theme = UnicodeAttribute(default="")
    diff_view_style = UnicodeAttribute(default="")
    keep_activity_private = BooleanAttribute(default=False)
    keep_pronouns_private = BooleanAttribute(default=False)
    enable_repo_unit_hints = BooleanAttribute(default=True)
    # Bumped on every edit: writes are conditional on the version they read.
    version = NumberAttribute(default=1)
    # Part of what a web session cookie is signed over: bumping it ends every session.
    session_generation = NumberAttribute(default=0)
    # Two-factor sign-in is on (its secret and recovery codes: ``TwoFactor``,
    # ``RecoveryCode``): a password sign-in knows it from the account it read anyway.
    two_factor = BooleanAttribute(default=False)
    # How many security keys (``SecurityKey``) the user signs in with: moved with ADD in
    # the transaction that adds or removes one, so a sign-in knows it with no read.
    security_keys = NumberAttribute(default=0)


class Token(Item, discriminator="token"):
    """Looked up by the SHA-256 of the secret (pk), so authentication is one GetItem.

    An OAuth2 access token is the same item with ``grant`` set (the oauth2 domain's
    grant it was issued under) and ``expires`` (also the table's TTL attribute): it has
    no ``TokenRef``, so it is not among the user's listed tokens, and it is deleted with
    its grant."""
    id = NumberAttribute()
    user_id = NumberAttribute()
    name = UnicodeAttribute()
    scopes = ListAttribute(of=UnicodeAttribute, default=list)
    last_eight = UnicodeAttribute()
    created = NumberAttribute()
    grant = UnicodeAttribute(default="")
    expires = NumberAttribute(null=True)


class TokenRef(Item, discriminator="tokenref"):
    """The user's copy of a token (pk = the user): lists tokens, keeps names unique."""
    id = NumberAttribute()
    name = UnicodeAttribute()
    token_hash = UnicodeAttribute()
    scopes = ListAttribute(of=UnicodeAttribute, default=list)
    last_eight = UnicodeAttribute()
    created = NumberAttribute()

    def owned_elsewhere(self) -> list[Item]:
        return [Token(*keys.token(self.token_hash))]


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

    def owned_elsewhere(self) -> list[Item]:
        return [Claim(*keys.key_fingerprint(self.fingerprint))]


class Follow(Item, discriminator="follow"):
    """One side of a follow: ``FOLLOWING#<followed>`` in the follower's partition and
    ``FOLLOWER#<follower>`` in the followed user's; ``user_id`` is the other side.  Each
    side owns its mirror, so deleting either account removes both."""
    user_id = NumberAttribute()
    created = NumberAttribute()

    def owned_elsewhere(self) -> list[Item]:
        me = int(self.pk.split("#", 1)[1])
        if self.sk.startswith(keys.FOLLOWING_PREFIX):
            return [Follow(*keys.follower(int(self.user_id), me))]
        return [Follow(*keys.following(int(self.user_id), me))]


class EmailAddress(Item, discriminator="emailaddress"):
    """One of a user's e-mail addresses, in the user's partition (``EMAIL#<lower>``),
    listed instance-wide in gsi2 ``EMAILS`` by lower-case address.  The primary one is
    the account's ``email`` and its claim is the account's (``store``); any other owns
    its claim, which goes with it."""
    email = UnicodeAttribute()
    user_id = NumberAttribute()
    primary = BooleanAttribute(default=False)
    verified = BooleanAttribute(default=True)
    seq = NumberAttribute(default=0)      # the order addresses were added (Forgejo's id)

    def owned_elsewhere(self) -> list[Item]:
        return [] if self.primary else [Claim(*keys.email(self.email.lower()))]


class Block(Item, discriminator="block"):
    """``blocker_id`` (pk's account: a user or an organization) blocks ``blocked_id``:
    one item per pair, so "is X blocked by Y" is one GetItem (``accounts.block_store``)."""
    blocked_id = NumberAttribute()
    created = NumberAttribute()


class LoginRedirect(Item, discriminator="loginredirect"):
    """A name an account was renamed from, beside that name's claim (``LOGIN#<old
    lower>``/``REDIRECT``): addresses naming it lead to the account's current name.  The
    name is free again; once another account claims it, the claim wins."""
    account_id = NumberAttribute()
    created = NumberAttribute(default=0)


class TwoFactor(Item, discriminator="twofactor"):
    """A user's TOTP second factor (``A#<user>/TWOFA``): the secret, sealed with the
    instance secret (``http.sealing``), and the last time step a code was accepted for,
    moved forward by a conditional write so no code signs in twice."""
    secret = UnicodeAttribute()
    last_step = NumberAttribute(default=0)
    created = NumberAttribute()


class RecoveryCode(Item, discriminator="recoverycode"):
    """One unused recovery code (``A#<user>/TWOFA#CODE#<hmac>``): only an HMAC of the
    code is kept; using it is a delete on condition that it still exists, so a code
    signs in once however many requests race with it."""
    created = NumberAttribute()


class SecurityKey(Item, discriminator="securitykey"):
    """A WebAuthn credential a user signs in with (``A#<user>/TWOFA#KEY#<name digest>``,
    one per lower-case name, beside the TOTP item: the settings page's one Query reads
    both).  ``public_key`` is the COSE key and ``credential_id`` the authenticator's id,
    both base64url; ``sign_count`` moves forward by a conditional write on each
    sign-in.  The credential id's claim (``WEBAUTHN#<digest>``) keeps one authenticator
    credential on one account of the instance; it goes with the key."""
    name = UnicodeAttribute()
    credential_id = UnicodeAttribute()
    public_key = UnicodeAttribute()
    sign_count = NumberAttribute(default=0)
    aaguid = UnicodeAttribute(default="")
    created = NumberAttribute()
    last_used = NumberAttribute(default=0)

    def owned_elsewhere(self) -> list[Item]:
        return [Claim(*keys.security_key_claim(self.credential_id))]


class SecurityKeyChallenge(Item, discriminator="securitykeychallenge"):
    """A challenge handed to the browser for one ceremony of one user
    (``A#<user>/WEBAUTHN#<challenge>``): ``purpose`` "register" (with the ``name`` the
    key will take) or "sign-in".  Answering it deletes it on condition that it exists,
    is for that purpose and has not expired: a challenge serves once; the table's TTL
    removes those never answered."""
    purpose = UnicodeAttribute()
    name = UnicodeAttribute(default="")
    expires = NumberAttribute()             # TTL


class SignInFailures(Item, discriminator="signinfailures"):
    """Failed sign-ins from one client address in one time window
    (``SIGNIN#<address>/W#<window>``), and of one account name from that address
    (``…/W#<window>#<name>``): counted with ADD, gone through the table's TTL."""
    failures = NumberAttribute(default=0)
    expires = NumberAttribute(null=True)    # TTL


class keys(shared_keys):  # noqa: N801 - a namespace of key builders
    """Key layouts of the accounts domain's items (docs/data-model.md)."""

    @staticmethod
    def account(account_id: int) -> tuple[str, str]:
        return shared_keys.account_partition(account_id), "A"

    @staticmethod
    def login(lower_name: str) -> tuple[str, str]:
        return shared_keys.claim("LOGIN", lower_name)

    @staticmethod
    def login_redirect(lower_name: str) -> tuple[str, str]:
        return f"LOGIN#{lower_name}", "REDIRECT"

    @staticmethod
    def login_gsi(lower_name: str) -> tuple[str, str]:
        return f"LOGIN#{lower_name}", "A"

    @staticmethod
    def email(lower_email: str) -> tuple[str, str]:
        return shared_keys.claim("EMAIL", lower_email)

    @staticmethod
    def token(token_hash: str) -> tuple[str, str]:
        return f"TOKEN#{token_hash}", "TOKEN"

    @staticmethod
    def token_ref(user_id: int, name: str) -> tuple[str, str]:
        return shared_keys.account_partition(user_id), f"TOKEN#{name}"

    @staticmethod
    def public_key(user_id: int, key_id: int) -> tuple[str, str]:
        return shared_keys.account_partition(user_id), f"KEY#{key_id:015d}"

    @staticmethod
    def key_fingerprint(fingerprint: str) -> tuple[str, str]:
        """One namespace for users' SSH keys and repositories' deploy keys: a key is
        added once on the whole instance (repos' deploy keys claim it here too)."""
        return shared_keys.claim("KEYFP", fingerprint)

    ALL_USERS_GSI = "USERS"      # users (not organizations) by lower-case name
    ALL_ORGS_GSI = "ORGS"        # organizations by lower-case name

    @staticmethod
    def following(user_id: int, followed_id: int) -> tuple[str, str]:
        return shared_keys.account_partition(user_id), f"FOLLOWING#{followed_id:015d}"

    @staticmethod
    def follower(user_id: int, follower_id: int) -> tuple[str, str]:
        return shared_keys.account_partition(user_id), f"FOLLOWER#{follower_id:015d}"

    FOLLOWING_PREFIX = "FOLLOWING#"
    FOLLOWER_PREFIX = "FOLLOWER#"

    @staticmethod
    def email_address(user_id: int, lower_email: str) -> tuple[str, str]:
        return shared_keys.account_partition(user_id), f"EMAIL#{lower_email}"

    EMAIL_PREFIX = "EMAIL#"
    ALL_EMAILS_GSI = "EMAILS"    # every user's addresses by lower-case address

    @staticmethod
    def block(blocker_id: int, blocked_id: int) -> tuple[str, str]:
        return shared_keys.account_partition(blocker_id), f"BLOCK#{blocked_id:015d}"

    @staticmethod
    def two_factor(user_id: int) -> tuple[str, str]:
        return shared_keys.account_partition(user_id), "TWOFA"

    @staticmethod
    def recovery_code(user_id: int, digest: str) -> tuple[str, str]:
        return shared_keys.account_partition(user_id), f"TWOFA#CODE#{digest}"

    # The second factor and its recovery codes: one Query of the account's partition.
    TWO_FACTOR_PREFIX = "TWOFA"
    RECOVERY_CODE_PREFIX = "TWOFA#CODE#"

    @staticmethod
    def security_key(user_id: int, name_digest: str) -> tuple[str, str]:
        """A security key by the digest of its lower-case name (names are unique per
        user, whatever their length)."""
        return shared_keys.account_partition(user_id), f"TWOFA#KEY#{name_digest}"

    SECURITY_KEY_PREFIX = "TWOFA#KEY#"

    @staticmethod
    def security_key_claim(credential_id: str) -> tuple[str, str]:
        """The claim of an authenticator's credential id (base64url), by its digest."""
        return shared_keys.claim("WEBAUTHN", hashlib.sha256(credential_id.encode()).hexdigest())

    @staticmethod
    def security_key_challenge(user_id: int, challenge: str) -> tuple[str, str]:
        return shared_keys.account_partition(user_id), f"WEBAUTHN#{challenge}"

    @staticmethod
    def sign_in_failures(address: str, window: int, lower_name: str = "") -> tuple[str, str]:
        """The address's count in ``window``; with ``lower_name``, that name's from it."""
        sk = f"W#{window:012d}" + (f"#{lower_name}" if lower_name else "")
        return f"SIGNIN#{address}", sk

    # Prefixes of items that live in an account's partition.
    TOKEN_PREFIX = "TOKEN#"
    BLOCK_PREFIX = "BLOCK#"

    KEY_PREFIX = "KEY#"
