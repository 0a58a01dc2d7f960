"""The building blocks of the Swagger definitions (``schemas``, ``schemas_git``)."""
from __future__ import annotations

S = {"type": "string"}
T = {"type": "string", "format": "date-time"}
I = {"type": "integer", "format": "int64"}  # noqa: E741
B = {"type": "boolean"}
EMAIL = {"type": "string", "format": "email"}
STRINGS = {"type": "array", "items": {"type": "string"}}


def ref(name: str) -> dict:
    return {"$ref": f"#/definitions/{name}"}


def nullable(schema: dict) -> dict:
    """``schema`` or null: what Forgejo sends for a nil pointer or slice.  Forgejo's own
    description leaves these unmarked; clients validating responses (and our schema fuzz
    test) need the Swagger 2.0 ``x-nullable`` extension to accept them."""
    return {**schema, "x-nullable": True}
