"""Signing: the instance's key that signs the commits Nimbus makes, users' GPG keys, and
the verification of commits' signatures.

Operations (``gpg_verify_routes.py``): getVerificationToken, userVerifyGPGKey.
Operations (``key_routes.py``): userCurrentListGPGKeys, userCurrentPostGPGKey,
userCurrentGetGPGKey, userCurrentDeleteGPGKey, userListGPGKeys.
Operations (``routes.py``): getSigningKey, getSSHSigningKey, repoSigningKey.

| module | what it holds |
|---|---|
| ``gpg_key_store`` | Users' GPG public keys. |
| ``gpg_keys`` | Users' GPG public keys: ``GET/POST /user/gpg_keys``, ``GET/DELETE /user/gpg_keys/{id}``, ``GET … |
| ``gpg_verification`` | Verifying a GPG key by a signed token: ``GET /user/gpg_key_token`` and ``POST /user/gpg_key_verify`` … |
| ``gpg_verify_routes`` | Verifying a GPG key by a signed token (``/user/gpg_key_token``, ``/user/gpg_key_verify``): the rules are … |
| ``key_routes`` | Users' GPG keys (``/user/gpg_keys``, ``/users/{username}/gpg_keys``). |
| ``models`` | The signing domain's items in the table: its models (and key layouts). |
| ``options`` | The request bodies of the signing domain, declared once: the edge checks them (``ApiRequest.option``) and … |
| ``records`` | GPGKey records (fj:services/convert/convert.go ToGPGKey), field for field. |
| ``routes`` | The instance's signing keys: ``/signing-key.gpg``, ``/signing-key.ssh`` and the repository's … |
| ``service`` | The instance's signing key and the commits it signs (``[repository.signing]``). |
| ``ssh`` | SSH signatures (the ``SSHSIG`` format of OpenSSH's PROTOCOL.sshsig), made and checked in-process with … |
| ``verify`` | The ``verification`` object of commit records (PayloadCommitVerification), computed the way Forgejo does … |

| layer | modules |
|---|---|
| routes (thin handlers) | ``routes``, ``key_routes``, ``gpg_verify_routes`` |
| request bodies | ``options`` (CreateGPGKeyOption, VerifyGPGKeyOption, checked at the edge) |
| verification | ``verify`` (a commit's signature against the instance key, users' GPG and SSH keys) |
| the instance key | ``service`` (OpenPGP key made on first use and kept in SSM, or the configured SSH key; signs payloads) |
| keys | ``gpg_keys`` (users' GPG keys: parsing, e-mails, rules), ``gpg_verification`` (a key verified by a signed token), ``ssh`` (SSH signatures) |
| storage | ``gpg_key_store`` |

Registered by ``chalicelib/areas.py``.  Services that make commits (contents, merges,
initial commits) take a signer from ``service``; branch and commit records call
``verify``.  SSH public keys themselves belong to accounts (``accounts.public_keys``).
"""

from chalicelib.faces import face

# The face: what other domains, the pages, the jobs and the CLI may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "commit_signer":            "service",
    "prefetch_signers":         "verify.prefetch",
    "verification_for_branch":  "verify.for_branch",
    "verify_commit":            "verify.verify",
    # The keys settings page (chalicelib/web/settings_user_keys): the services of
    # /user/gpg_keys.
    "CreateGPGKeyOption":       "options",
    "add_gpg_key":              "gpg_keys.add_key",
    "delete_gpg_key":           "gpg_keys.delete_key",
    "gpg_keys_of":              "gpg_keys.list_keys",
    "gpg_key_record":           "records",
    # Its "Verify" form: the token to sign, and the rule of /user/gpg_key_verify.
    "VerifyGPGKeyOption":       "options",
    "gpg_verification_token":   "gpg_verification.verification_token",
    "verify_gpg_key":           "gpg_verification.verify_key",
})
