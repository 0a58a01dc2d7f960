"""Typed API errors, rendered once (in gateway.py) in Forgejo's shapes.

Services raise the domain errors from ``chalicelib.errors``; the gateway maps
them to these.  Handlers may raise these directly for HTTP-only concerns.
"""
from __future__ import annotations

from chalicelib import errors as service_errors


class ApiError(Exception):
    status = 500
    default_message = ""

    def __init__(self, message: str | None = None, *, headers: dict | None = None,
                 plain: bool = False):
        super().__init__(message or self.default_message)
        self.message = message if message is not None else self.default_message
        self.headers = headers or {}
        # Forgejo's auth/sudo 403s are plain maps: {"message"} without "url".
        self.plain = plain

    def body(self, swagger_url: str) -> dict:
        if self.plain:
            return {"message": self.message}
        return {"message": self.message, "url": swagger_url}


class BadRequest(ApiError):
    status = 400


class Unauthorized(ApiError):
    status = 401
    default_message = "token is required"


class Forbidden(ApiError):
    status = 403
    default_message = "forbidden"


class NotFound(ApiError):
    status = 404
    default_message = "The target couldn't be found."

    def __init__(self, message: str | None = None, *, errors: list[str] | None = None, **kw):
        super().__init__(message, **kw)
        self.errors = errors or []

    def body(self, swagger_url: str) -> dict:
        return {"message": self.message, "url": swagger_url, "errors": self.errors}


class MethodNotAllowed(ApiError):
    status = 405
    default_message = "method not allowed"


class Conflict(ApiError):
    status = 409
    default_message = "conflict"


class PreconditionFailed(ApiError):
    status = 412


class PayloadTooLarge(ApiError):
    status = 413
    default_message = "request body too large"


class QuotaExceeded(ApiError):
    """413 in Forgejo's quota shape: ``{"message", "user_id", "username"}``, the
    username left out when unknown."""
    status = 413
    default_message = "quota exceeded"

    def __init__(self, user_id: int, username: str = ""):
        super().__init__()
        self.user_id, self.username = user_id, username

    def body(self, swagger_url: str) -> dict:
        found = {"message": self.message, "user_id": self.user_id}
        if self.username:
            found["username"] = self.username
        return found


class UnsupportedMediaType(ApiError):
    status = 415
    default_message = "unsupported content type"


class ValidationFailed(ApiError):
    """422: Forgejo phrases binding failures as ``[FieldName]: Rule``."""
    status = 422

    @classmethod
    def field(cls, field: str, rule: str) -> "ValidationFailed":
        return cls(f"[{field}]: {rule}")


class Locked(ApiError):
    status = 423


class InternalError(ApiError):
    status = 500


class PlainTextError(ApiError):
    """An error whose body is plain text (git prints it to the user verbatim)."""

    def __init__(self, status: int, message: str, headers: dict | None = None):
        super().__init__(message, headers=headers)
        self.status = status


# Domain errors (chalicelib/errors.py) as the API answers them.
SERVICE_ERRORS = (
    (service_errors.NotFoundError, lambda e: NotFound(errors=[e.message])),
    (service_errors.PermissionDenied, lambda e: Forbidden(e.message)),
    (service_errors.InvalidInput, lambda e: ValidationFailed(e.message)),
    (service_errors.AlreadyExists, lambda e: ValidationFailed(e.message)),
    (service_errors.BadInput, lambda e: BadRequest(e.message)),
    (service_errors.ConflictError, lambda e: Conflict(e.message)),
    (service_errors.DependenciesLeft, lambda e: PreconditionFailed(e.message)),
    (service_errors.NotAllowed, lambda e: MethodNotAllowed(e.message)),
    (service_errors.ArchivedRepository, lambda e: Locked(e.message)),
    (service_errors.QuotaExceeded, lambda e: QuotaExceeded(e.user_id, e.username)),
    (service_errors.TooLarge, lambda e: PayloadTooLarge(e.message)),
)


def api_error_of(err: service_errors.ServiceError) -> ApiError:
    """The API's answer to a domain error (its status and Forgejo's shape)."""
    for kind, make in SERVICE_ERRORS:
        if isinstance(err, kind):
            return make(err)
    raise err  # pragma: no cover - every ServiceError subclass is mapped above
