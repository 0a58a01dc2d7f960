"""The OAuth2Application record (fj:services/convert/convert.go ToOAuth2Application),
field for field; ``client_secret`` is filled only on the answers that made it."""
from __future__ import annotations

from chalicelib.http import formats, schemas
from chalicelib.http.schema_types import B, I, S

SCHEMAS = schemas.declare({
    "OAuth2Application": {"id": I, "name": S, "client_id": S, "client_secret": S,
                          "confidential_client": B,
                          "redirect_uris": {"type": "array", "items": S},
                          "created": {"type": "string", "format": "date-time"}},
}, lists=("OAuth2Application",))


def oauth2_application(app, secret: str = "") -> dict:
    return {"id": int(app.id), "name": app.name, "client_id": app.client_id,
            "client_secret": secret, "confidential_client": bool(app.confidential),
            "redirect_uris": list(app.redirect_uris or []),
            "created": formats.rfc3339(app.created)}


def grant_view(grant) -> dict:
    """A user's grant as the settings page shows it."""
    return {"app_id": int(grant.app_id), "name": grant.app_name, "scope": grant.scope,
            "created": formats.rfc3339(grant.created), "updated": formats.rfc3339(grant.updated)}
