"""Signing: the instance's key that signs the commits Nimbus makes, users' GPG keys, and
the verification of commits' signatures.

Operations (``routes.py``): getSigningKey (``/signing-key.gpg``), getSSHSigningKey,
repoSigningKey (``/repos/{owner}/{repo}/signing-key.gpg``); (``key_routes.py``)
userCurrentListGPGKeys, userCurrentPostGPGKey, userCurrentGetGPGKey,
userCurrentDeleteGPGKey, userListGPGKeys.

| layer | modules |
|---|---|
| routes (thin handlers) | ``routes``, ``key_routes`` |
| request bodies | ``options`` (CreateGPGKeyOption, checked at the edge) |
| verification | ``verify`` (a commit's signature against the instance key, users' GPG and SSH keys) |
| the instance key | ``service`` (OpenPGP key made on first use and kept in SSM, or the configured SSH key; signs payloads) |
| keys | ``gpg_keys`` (users' GPG keys: parsing, e-mails, rules), ``ssh`` (SSH signatures) |
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
})
