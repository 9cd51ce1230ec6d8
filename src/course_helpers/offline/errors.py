"""Course machinery (offline course model): errors the course model answers with, in the Messages
API's own envelope."""

from __future__ import annotations

# The API's error type for each HTTP status it uses.
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "api_error",
    529: "overloaded_error",
}


class ApiError(Exception):
    """An error response: HTTP status, error type and the message text the real API uses."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        error_type: str | None = None,
        headers: dict[str, str] | None = None,
        details: dict | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.error_type = error_type or ERROR_TYPES.get(status, "api_error")
        self.headers = dict(headers or {})
        self.details = details

    def envelope(self, request_id: str) -> dict:
        error: dict = {"type": self.error_type, "message": self.message}
        if self.details is not None:
            error["details"] = self.details
        return {"type": "error", "error": error, "request_id": request_id}


def invalid_request(message: str) -> ApiError:
    """The 400 that every broken conversation rule produces."""
    return ApiError(400, message)
