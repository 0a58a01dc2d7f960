"""The Content-Security-Policy every page carries (the gateway adds it to each HTML
answer that has none of its own).

Pages load script from /assets/ only, so markup that slipped into a page runs nothing.
Inline style attributes stay (templates use them); markdown may show images from
anywhere.  Forms post to this site only — except the OAuth2 consent form, whose answer
is a redirect to the client's registered URI: browsers hold a form's redirects to
``form-action`` too, so that page names the one extra target (``form_targets``).
"""
from __future__ import annotations


def content_security_policy(settings, form_targets: tuple[str, ...] = ()) -> str:
    deny = settings.cors.X_FRAME_OPTIONS.upper() == "DENY"
    ancestors = "'none'" if deny else "'self'"
    forms = " ".join(("'self'", *form_targets))
    return ("default-src 'self'; script-src 'self'; object-src 'none'; "
            "style-src 'self' 'unsafe-inline'; img-src 'self' https: http: data:; "
            f"base-uri 'self'; form-action {forms}; frame-ancestors {ancestors}")
