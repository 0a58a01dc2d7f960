"""Accounts: users as they see themselves and as the site admin sees them, access tokens,
SSH keys, user search; and the credentials the gateway asks for (``credentials``).

Operations (``admin_routes.py``): adminSearchUsers, adminCreateUser, adminEditUser,
adminDeleteUser, adminCreatePublicKey, adminDeleteUserPublicKey.
Operations (``routes.py``): userGetCurrent, userSearch, userGet, userGetTokens,
userCreateToken, userDeleteAccessToken, userCurrentListKeys, userListKeys,
userCurrentPostKey, userCurrentGetKey, userCurrentDeleteKey.

| module | what it holds |
|---|---|
| ``admin_routes`` | Site administration: users and their keys (organizations and repositories land with their own areas). |
| ``claims`` | Who holds a unique login name, e-mail address or key fingerprint: batched lookups through the claim items … |
| ``credentials`` | What the gateway asks of the accounts domain to know who is calling (``chalicelib.http.auth`` reads this … |
| ``key_store`` | SSH public keys of users. |
| ``options`` | The request bodies of the accounts domain, declared once: the edge checks them … |
| ``passwords`` | Password hashing with scrypt (a memory-hard KDF from OpenSSL via hashlib). |
| ``public_keys`` | Users' SSH public keys: parsing with ``cryptography``, fingerprints, ownership. |
| ``records`` | User, PublicKey and AccessToken records (fj:services/convert/user.go), field for field. |
| ``routes`` | Users as seen by users: the current user, profiles, tokens and public keys. |
| ``search`` | Lists of users: the site admin's (``adminSearchUsers``) and everyone's search (``userSearch``), read from … |
| ``service`` | Users: creation, editing, deletion and visibility rules. |
| ``store`` | Users and organizations (accounts) in the table. |
| ``token_store`` | Access tokens. |
| ``tokens`` | Personal access tokens: creation (secret shown once), listing, deletion, lookup. |

Registered by ``chalicelib/areas.py``.  The gateway reads ``credentials`` by name
(``http.auth.CREDENTIALS_MODULE``). Crossing: profile visibility reads organization
membership through ``repos.permissions``.
"""
