"""Scenarios for users, tokens, SSH and GPG keys, the admin routes on users, and the
instance-wide routes (version, settings, swagger, markdown, signing keys)."""
from __future__ import annotations

from pathlib import Path

from scene import USER, Req, Scene, after, gpg_public_key, ssh_key

ME = USER[0]
SSH_SIGNING = {"NIMBUS__REPOSITORY_0X2E_SIGNING__FORMAT": "ssh"}   # + the key's path
MARKDOWN = {"Text": "# Title\n\nSee #1 and @alice, `code`.", "Mode": "gfm"}
MARKUP = {"Text": "# Title\n\n*text*", "Mode": "file", "FilePath": "docs/README.md"}
RAW_MARKDOWN = b"# Title\n\n- item\n"


def new_gpg_key(s: Scene) -> int:
    return s.must("POST", "/user/gpg_keys", "token",
                  {"armored_public_key": gpg_public_key()})["id"]


def any_gpg_key(s: Scene) -> int:
    return s.once("gpg_key", lambda: new_gpg_key(s))


def ssh_signing_settings(s: Scene) -> dict[str, str]:
    """Settings that make the instance sign with an SSH key (a public key file suffices
    to serve it)."""
    def write() -> str:
        path = Path(s.workdir) / "signing_ed25519.pub"
        path.write_text(ssh_key() + " nimbus@bench\n")
        return str(path)

    return {**SSH_SIGNING, "NIMBUS__REPOSITORY_0X2E_SIGNING__SIGNING_KEY":
            s.once("ssh_signing_key", write)}


def markdown(path: str) -> list[Req]:
    return [Req("POST", path, "token", MARKDOWN)]


def scenarios() -> dict:
    """operationId -> scenario (a function of the scene returning its requests)."""
    return {
        # Instance-wide --------------------------------------------------------------
        "getVersion": lambda s: [Req("GET", "/version")],
        "getGeneralAPISettings": lambda s: [Req("GET", "/settings/api")],
        "getSwaggerDocument": lambda s: [Req("GET", "/swagger.v1.json")],
        "redirectToSwaggerPage": lambda s: [Req("GET", "/swagger", expect=301)],
        "getSwaggerPage": lambda s: [Req("GET", "/api/swagger")],
        "renderMarkdown": lambda s: markdown("/markdown"),
        "renderMarkdownRaw": lambda s: [Req("POST", "/markdown/raw", "token", data=RAW_MARKDOWN,
                                            content_type="text/plain")],
        "renderMarkup": lambda s: [Req("POST", "/markup", "token", MARKUP)],
        "repoRenderMarkdown": lambda s: markdown("/repos/alice/demo/markdown"),
        "repoRenderMarkdownRaw": lambda s: [Req("POST", "/repos/alice/demo/markdown/raw",
                                                "token", data=RAW_MARKDOWN,
                                                content_type="text/plain")],
        "repoRenderMarkup": lambda s: [Req("POST", "/repos/alice/demo/markup", "token",
                                           MARKUP)],
        # The instance key exists: the scene's auto-initialized repository was signed.
        "getSigningKey": lambda s: [Req("GET", "/signing-key.gpg")],
        "repoSigningKey": lambda s: [Req("GET", "/repos/alice/demo/signing-key.gpg")],
        # Served only when the instance signs with SSH: this one request runs so.
        "getSSHSigningKey": lambda s: [Req("GET", "/signing-key.ssh",
                                           settings=ssh_signing_settings(s))],
        # Users and tokens -----------------------------------------------------------
        "userGetCurrent": lambda s: [Req("GET", "/user", "token"), Req("GET", "/user", "basic")],
        "userGet": lambda s: [Req("GET", f"/users/{ME}"), Req("GET", f"/users/{ME}", "token")],
        "userGetTokens": lambda s: [Req("GET", f"/users/{ME}/tokens", "token")],
        "userCreateToken": lambda s: [Req("POST", f"/users/{ME}/tokens", "basic",
                                          {"name": s.unique("tok"), "scopes": ["all"]}, 201)],
        "userDeleteAccessToken": lambda s: [Req("DELETE", f"/users/{ME}/tokens/{s.spare_token()}",
                                                "basic", expect=204)],
        # SSH keys -------------------------------------------------------------------
        "userCurrentListKeys": lambda s: [Req("GET", "/user/keys", "token")],
        "userListKeys": lambda s: [Req("GET", f"/users/{ME}/keys")],
        "userCurrentPostKey": lambda s: [Req("POST", "/user/keys", "token",
                                             {"title": s.unique("key"), "key": ssh_key()}, 201)],
        "userCurrentGetKey": lambda s: [Req("GET", f"/user/keys/{s.key_id}", "token")],
        "userCurrentDeleteKey": lambda s: [Req("DELETE", f"/user/keys/{s.new_key()}", "token",
                                               expect=204)],
        # GPG keys -------------------------------------------------------------------
        "userCurrentListGPGKeys": lambda s: after(any_gpg_key(s), [
            Req("GET", "/user/gpg_keys", "token")]),
        "userCurrentPostGPGKey": lambda s: [Req("POST", "/user/gpg_keys", "token",
                                                {"armored_public_key": gpg_public_key()}, 201)],
        "userCurrentGetGPGKey": lambda s: [Req("GET", f"/user/gpg_keys/{any_gpg_key(s)}",
                                               "token")],
        "userCurrentDeleteGPGKey": lambda s: [Req("DELETE", f"/user/gpg_keys/{new_gpg_key(s)}",
                                                  "token", expect=204)],
        "userListGPGKeys": lambda s: after(any_gpg_key(s), [Req("GET", f"/users/{ME}/gpg_keys")]),
        # User lists: a page of the user index (gsi2 USERS) --------------------------
        "userSearch": lambda s: [Req("GET", "/users/search"),
                                 Req("GET", "/users/search", "token")],
        "adminSearchUsers": lambda s: [Req("GET", "/admin/users", "admin")],
        # Admin on users -------------------------------------------------------------
        "adminCreateUser": lambda s: [Req("POST", "/admin/users", "admin", s.user_option(), 201)],
        "adminEditUser": lambda s: [Req("PATCH", f"/admin/users/{ME}", "admin",
                                        {"full_name": s.unique("Alice ")})],
        "adminDeleteUser": lambda s: [Req("DELETE", f"/admin/users/{s.new_user()}", "admin",
                                          expect=204)],
        "adminCreatePublicKey": lambda s: [Req("POST", f"/admin/users/{ME}/keys", "admin",
                                               {"title": s.unique("key"), "key": ssh_key()}, 201)],
        "adminDeleteUserPublicKey": lambda s: [
            Req("DELETE", f"/admin/users/{ME}/keys/{s.new_key()}", "admin", expect=204)],
        # An admin token suffices here: no password login, unlike userCreateToken.
        "adminListUserAccessTokens": lambda s: [Req("GET", f"/admin/users/{ME}/tokens", "admin")],
        "adminCreateUserAccessToken": lambda s: [
            Req("POST", f"/admin/users/{ME}/tokens", "admin",
                {"name": s.unique("tok"), "scopes": ["all"]}, 201)],
        "adminDeleteUserAccessToken": lambda s: [
            Req("DELETE", f"/admin/users/{ME}/tokens/{s.spare_token()}", "admin", expect=204)],
    }
