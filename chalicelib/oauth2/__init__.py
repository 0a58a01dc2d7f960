"""OAuth2 and OpenID Connect: Nimbus as the sign-in provider of other tools.

Registered by ``chalicelib/areas.py``.  Uses the accounts domain (access tokens are its
token items, tied to a grant) and the organizations domain (the ``groups`` claim).

Operations (``protocol_routes.py``): oauthAccessToken, oauthUserInfo, oauthUserInfoPost,
oauthIntrospect, oauthKeys, oauthDiscovery.
Operations (``routes.py``): userGetOAuth2Applications, userCreateOAuth2Application,
userGetOAuth2Application, userUpdateOAuth2Application, userDeleteOAuth2Application.

| module | what it holds |
|---|---|
| ``app_store`` | OAuth2 applications in the table: the owner's item and the client-id copy the protocol reads, always … |
| ``applications`` | A user's OAuth2 applications (Forgejo's ``models/auth/oauth2.go`` and the API's ``user/app.go``): create … |
| ``claims`` | What an ID token and ``/login/oauth/userinfo`` say about the user (Forgejo's claims): ``profile`` gives … |
| ``grant_store`` | Grants, refresh-token families, authorization codes and refresh tokens in the table (the layouts: … |
| ``grants`` | A user's grants: the applications the user let in, and taking that back (the settings page's "Authorized … |
| ``issuing`` | Issuing and taking back OAuth2 tokens: what the provider's validator stores, in one transaction each … |
| ``jwt_keys`` | The key OpenID Connect ID tokens are signed with, and the key set clients check them against … |
| ``models`` | The OAuth2 domain's items in the table: its models (and key layouts). |
| ``options`` | The request body of the OAuth2 applications API, declared once: the edge checks it … |
| ``protocol_routes`` | The provider at Forgejo's paths (routers/web/auth/oauth.go), outside /api/v1: |
| ``provider`` | The provider's endpoints, as oauthlib applies the protocol: an authorization request checked and turned … |
| ``records`` | The OAuth2Application record (fj:services/convert/convert.go ToOAuth2Application), field for field; … |
| ``routes`` | A user's OAuth2 applications (Forgejo's ``user`` tag, routers/api/v1/user/app.go): list, create, read, … |
| ``scopes`` | The scopes of an OAuth2 grant: OpenID Connect's words and Forgejo's token scopes. |
| ``validator`` | What oauthlib asks of Nimbus while it applies RFC 6749, RFC 7636 and OpenID Connect Core: who the client … |
"""

from chalicelib.faces import face

# The face: what the pages (the consent page, the settings pages), the jobs and the CLI
# may use (chalicelib/faces.py).
__all__, __getattr__, __dir__ = face(__name__, {
    "CreateOAuth2ApplicationOptions": "options",
    "create_app":                    "applications",
    "list_apps":                     "applications",
    "get_app":                       "applications",
    "edit_app":                      "applications",
    "regenerate_secret":             "applications",
    "delete_app":                    "applications",
    "grants_of":                     "grants",
    "current_grant":                 "grants",
    "revoke_grant":                  "grants.revoke",
    "oauth2_application_record":     "records.oauth2_application",
    "grant_view":                    "records",
    "AuthorizationError":            "provider",
    "Consent":                       "provider",
    "check_authorization":           "provider.check_request",
    "approve_authorization":         "provider.approve",
    "deny_authorization":            "provider.deny",
    "jwt_key_parameter":             "jwt_keys.key_parameter",
    "reset_jwt_key_cache":           "jwt_keys.reset_key_cache",
    "describe_scopes":               "scopes.describe",
})
