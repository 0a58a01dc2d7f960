"""Domain errors raised by services; the API layer maps each kind to a status code.

Keeping them HTTP-free lets services be used by the CLI and scheduled jobs too.
"""
from __future__ import annotations


class ServiceError(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NotFoundError(ServiceError):
    """The thing does not exist, or the caller may not know that it does."""


class PermissionDenied(ServiceError):
    """The caller can see the thing but may not do this."""


class InvalidInput(ServiceError):
    """Input breaks a rule (422 in Forgejo's terms)."""


class BadInput(ServiceError):
    """Input is malformed in a way Forgejo answers 400 to."""


class AlreadyExists(ServiceError):
    """A unique name or key is taken (422 or 409 depending on the operation)."""


class ConflictError(ServiceError):
    """State changed under the caller (a lost compare-and-swap)."""
