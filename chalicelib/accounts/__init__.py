"""Accounts: users as they see themselves and as the site admin sees them, access tokens,
SSH keys, user search; and the credentials the gateway asks for (``credentials``).

Operations (``admin_routes.py``): adminSearchUsers, adminCreateUser, adminEditUser,
adminDeleteUser, adminCreatePublicKey, adminDeleteUserPublicKey,
adminListUserAccessTokens, adminCreateUserAccessToken, adminDeleteUserAccessToken.
Operations (``block_routes.py``): userListBlockedUsers, userBlockUser, userUnblockUser.
Operations (``email_routes.py``): userListEmails, userAddEmail, userDeleteEmail,
adminGetAllEmails, adminSearchEmails, adminListUserEmails, adminDeleteUserEmails.
Operations (``follow_routes.py``): userListFollowers, userListFollowing,
userCheckFollowing, userCurrentListFollowers, userCurrentListFollowing,
userCurrentCheckFollowing, userCurrentPutFollow, userCurrentDeleteFollow.
Operations (``routes.py``): userGetCurrent, userSearch, userGet, userGetTokens,
userCreateToken, userDeleteAccessToken, userCurrentListKeys, userListKeys,
userCurrentPostKey, userCurrentGetKey, userCurrentDeleteKey.
Operations (``settings_routes.py``): getUserSettings, updateUserSettings.

| module | what it holds |
|---|---|
| ``admin_routes`` | Site administration: users, their keys and their access tokens (organizations and repositories land with … |
| ``block_routes`` | The signed-in user's blocks: block, unblock, list (Forgejo's ``user`` tag, the user scope, a token … |
| ``block_store`` | Blocks in the table: who blocked whom. |
| ``blocks`` | Blocking users (Forgejo's "Blocking a user"): block, unblock, list, and the check other domains make … |
| ``claim_store`` | Who holds a unique login name, e-mail address or key fingerprint: batched lookups through the claim items … |
| ``credentials`` | What the gateway asks of the accounts domain to know who is calling (``chalicelib.http.auth`` reads this … |
| ``email_routes`` | E-mail addresses (Forgejo's ``user`` and ``admin`` tags): the signed-in user's list, add and delete, and … |
| ``email_store`` | Users' e-mail addresses in the table. |
| ``emails`` | Users' e-mail addresses (Forgejo's ``services/user/email.go`` and the API's ``user/email.go``, … |
| ``follow_routes`` | Followers and following (Forgejo's ``user`` tag): the lists, the checks, follow and unfollow. |
| ``follow_store`` | Users following users, in the table. |
| ``follows`` | Users following users (Forgejo's ``models/user/follow.go`` and the API's ``user/follower.go``): follow, … |
| ``key_store`` | SSH public keys of users. |
| ``login_throttle`` | Sign-in throttling: failed password (and second factor) attempts counted per client address and per … |
| ``models`` | The accounts domain's items in the table: its models (and key layouts). |
| ``options`` | The request bodies of the accounts domain, declared once: the edge checks them (``ApiRequest.option``) … |
| ``passwords`` | Password hashing with scrypt (a memory-hard KDF from OpenSSL via hashlib). |
| ``public_keys`` | Users' SSH public keys: parsing with ``cryptography``, fingerprints, ownership. |
| ``records`` | User, PublicKey and AccessToken records (fj:services/convert/user.go), field for field. |
| ``renames`` | Renaming a user or an organization, and the old names that lead to the new ones. |
| ``routes`` | Users as seen by users: the current user, profiles, tokens and public keys. |
| ``search`` | Lists of users: the site admin's (``adminSearchUsers``) and everyone's search (``userSearch``), read from … |
| ``security_key_store`` | Users' security keys (WebAuthn credentials) and the challenges of their ceremonies, in the table. |
| ``security_keys`` | Security keys as a second factor (WebAuthn, Forgejo's "Security keys" on ``/user/settings/security`` and … |
| ``service`` | Users: creation, editing, deletion and visibility rules. |
| ``settings`` | A user's own settings (getUserSettings, updateUserSettings): profile texts, language, theme, diff view … |
| ``settings_routes`` | The signed-in user's own settings (Forgejo's ``user`` tag): read and change them. |
| ``sign_in`` | Signing in with a password when the account may have a second factor: Basic on the API and git (Forgejo's … |
| ``sign_in_store`` | Failed sign-ins in the table, counted per client address and per account name from that address, one item … |
| ``signup`` | Sign-up: the account a visitor makes for themselves (Forgejo's ``SignUpPost``), for the form at … |
| ``snapshots`` | Accounts as other records keep them: a snapshot taken when an issue, comment, review or event was … |
| ``store`` | Users and organizations (accounts) in the table. |
| ``token_store`` | Access tokens. |
| ``tokens`` | Personal access tokens: creation (secret shown once), listing, deletion, lookup. |
| ``two_factor`` | Two-factor sign-in with TOTP (RFC 6238 through ``pyotp``) and recovery codes (Forgejo's … |
| ``two_factor_store`` | Users' second factors in the table: the TOTP item and the recovery codes. |

Registered by ``chalicelib/areas.py``.  The gateway reads ``credentials`` by name
(``http.auth.CREDENTIALS_MODULE``).  The bottom domain: it uses no other.  Whether a user's
profile shows is its own rule (``can_see``); an organization's members see it too, which
``repos.can_see_account`` adds.
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "block_key":                   "block_store",
    "stage_not_blocked":           "block_store",
    "BLOCKED":                     "blocks",
    "block_refusal":               "blocks.refusal",
    "block_user":                  "blocks",
    "blocked_user_record":         "blocks",
    "blocked_users":               "blocks",
    "check_not_blocked":           "blocks",
    "is_blocked":                  "blocks",
    "unblock_user":                "blocks",
    "rename_account":              "renames.rename",
    "renamed_account":             "renames.renamed_to",
    "accounts_by_email":           "claim_store",
    "accounts_by_email_or_login":  "claim_store",
    "accounts_by_login":           "claim_store",
    "key_holder":                  "claim_store",
    "login_holder":                "claim_store",
    "prefetch_emails":             "claim_store",
    "Account":                     "models",
    "ACCOUNT_MAXIMA":              "options",
    "ACCOUNT_ONE_LINE":            "options",
    "CreateAccessTokenOption":     "options",
    "CreateKeyOption":             "options",
    "CreateUserOption":            "options",
    "EditUserOption":              "options",
    "RenameUserOption":            "options",
    "parse_ssh_key":               "public_keys",
    "ssh_keys_of":                 "public_keys.list_keys",
    "access_token_record":         "records.access_token",
    "avatar_url":                  "records",
    "payload_user":                "records",
    "user_record":                 "records.user",
    "site_admin_exists":           "search",
    "actor_of_event":              "service",
    "can_see":                     "service",
    "check_password_login":        "service",
    "create_account":              "service",
    "end_sessions":                "service",
    "ensure_admin":                "service",
    "get_user":                    "service",
    "get_visible_user":            "service",
    "validate_email":              "service",
    "validate_name":               "service",
    "validate_visibility":         "service",
    "account_from":                "snapshots",
    "account_snapshot":            "snapshots.snapshot",
    "account_by_id":               "store.get_by_id",
    "account_by_name":             "store.get_by_name",
    "account_from_snapshot":       "store.from_snapshot",
    "account_key":                 "store",
    "account_values":              "store.stored_values",
    "accounts_by_ids":             "store.get_many",
    "fingerprint_claim_key":       "store",
    "login_claim_key":             "store",
    "new_account":                 "store",
    "stage_create_account":        "store.stage_create",
    "stage_delete_account":        "store.stage_delete",
    "stage_repo_count":            "store",
    "stage_save_account":          "store.stage_save",
    "user_index_key":              "store",
    "account_index_key":           "store",
    "all_organizations":           "store.organizations",
    "create_token":                "tokens",
    # OAuth2 access tokens (chalicelib/oauth2): token items tied to a grant.
    "hash_token":                  "tokens",
    "find_token":                  "tokens.lookup",
    "stage_grant_token":           "tokens",
    "stage_drop_token":            "tokens",
    "token_item":                  "tokens",
    "token_expired":               "tokens",
    "delete_token":                "tokens",
    "list_tokens":                 "tokens",
    # The user settings pages (chalicelib/web/settings_*): the services the API's
    # /user/settings, /user/emails and /user/keys routes call, and the password change.
    "UserSettingsOptions":         "options",
    "update_settings":             "settings",
    "user_settings_record":        "records.user_settings",
    "own_addresses":               "emails",
    "add_addresses":               "emails",
    "delete_own_addresses":        "emails",
    "add_ssh_key":                 "public_keys.add_key",
    "delete_ssh_key":              "public_keys.delete_key",
    "public_key_record":           "records.public_key",
    "change_own_password":         "service",
    # Signing in (the web's form and second step) and two-factor sign-in: its settings
    # pages, the admin's reset, the CLI's, and the signing rule "twofa".
    "SignIn":                      "login_throttle",
    "password_sign_in":            "login_throttle",
    "second_factor_sign_in":       "sign_in",
    "recovery_sign_in":            "sign_in",
    "Enrolment":                   "two_factor",
    "TwoFactorState":              "two_factor",
    "TwoFactorHeldBack":           "two_factor.HeldBack",
    "has_two_factor":              "two_factor",
    "two_factor_state":            "two_factor.state",
    "start_two_factor":            "two_factor.start_enrolment",
    "resume_two_factor":           "two_factor.resume_enrolment",
    "enable_two_factor":           "two_factor.enable",
    "regenerate_recovery_codes":   "two_factor.regenerate_codes",
    "disable_two_factor":          "two_factor.disable",
    "reset_two_factor":            "two_factor.reset",
    "has_totp":                    "two_factor",
    # Security keys (WebAuthn): the security page's registration and deletion, and the
    # sign-in's second step with a key.
    "SecurityKeyCeremony":         "security_keys.Ceremony",
    "has_security_keys":           "security_keys",
    "start_key_registration":      "security_keys.start_registration",
    "finish_key_registration":     "security_keys.finish_registration",
    "delete_security_key":         "security_keys.delete_key",
    "start_key_sign_in":           "security_keys.start_sign_in",
    "security_key_sign_in":        "sign_in",
    # The sign-up page (chalicelib/web/signup_pages.py).
    "registration_open":           "signup",
    "sign_up":                     "signup",
    "TooManySignUps":              "signup",
})
