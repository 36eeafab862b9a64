"""The errors a request can end in, as plain values: a status, a message, the fields at fault.

Services raise them; `http/errors.py` is the only place they become responses. Two shapes:

- a request whose content is wrong (`InvalidRequest`): every problem at once, each naming
  its field when it has one;
- anything else (`ApiError`): one message.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

Problem = tuple[str | None, str]
"""A field (None: the request as a whole) and the full human-readable message about it."""

UNAUTHORIZED_MESSAGE = (
    "Invalid Team API token. Send a valid token as 'Authorization: Bearer <token>'."
)


class ApiError(Exception):
    """An error with a plain message body: 401, 403, 404, 405, 409, 413, 429."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers

    @property
    def body(self) -> dict[str, Any]:
        return {"errors": self.message}


class Unauthorized(ApiError):
    def __init__(self) -> None:
        super().__init__(401, UNAUTHORIZED_MESSAGE, {"WWW-Authenticate": "Bearer"})


class NotFound(ApiError):
    def __init__(self, resource_type: str, object_id: object) -> None:
        super().__init__(404, f"Resource type {resource_type} with id = {object_id} was not found")


class Conflict(ApiError):
    def __init__(self, message: str) -> None:
        super().__init__(409, message)


class TooManyRequests(ApiError):
    """A rate limit is used up: wait (seconds) is rounded up to the Retry-After header."""

    def __init__(self, wait: float, message: str) -> None:
        seconds = max(1, math.ceil(wait))
        super().__init__(429, f"{message}; retry in {seconds} s", {"Retry-After": str(seconds)})


class InvalidRequest(Exception):
    """A request whose content is wrong: 422 (or 400/415) naming the offending fields."""

    def __init__(self, problems: Sequence[Problem], *, status: int = 422) -> None:
        super().__init__("; ".join(message for _, message in problems))
        self.status = status
        self.problems = list(problems)

    @classmethod
    def field(cls, field: str, message: str) -> InvalidRequest:
        return cls([(field, f"{field} {message}")])

    @property
    def body(self) -> dict[str, Any]:
        fields = list(dict.fromkeys(field for field, _ in self.problems if field))
        return {"errors": [message for _, message in self.problems], "invalid_attributes": fields}
