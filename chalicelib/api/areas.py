"""The API areas; importing one registers its routes in the route table."""
from chalicelib.api import admin, misc, swagger, users  # noqa: F401
