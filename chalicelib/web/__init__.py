"""The web interface: server-rendered pages at Forgejo's URLs, beside the API.

Pages are routes in the API's route table (raw, outside /api/v1), registered by the
modules ``chalicelib/areas.py`` imports; they call the same services as the API.
See docs/web.md.
"""
