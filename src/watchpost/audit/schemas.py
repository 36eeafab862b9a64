"""The audit log's entries as the API documents them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from watchpost.validation import ClosedModel


class AuditEventAttributes(ClosedModel):
    at: str = Field(description="When it was done (UTC, ISO 8601).")
    actor_type: Literal["person", "token", "cli", "system"] = Field(
        description="Who did it: a signed-in person (console), an API token, the command "
        "line, or Watchpost itself."
    )
    actor_id: int | None = Field(description="The person's or the token's id.")
    actor: str = Field(description="The person's e-mail, or the token's shown prefix.")
    action: str = Field(
        description="What was done, `<type>.<verb>`: `monitor.created`, `token.revoked`, "
        "`member.role_changed`, `session.created` …"
    )
    subject_type: str | None
    subject_id: int | None
    subject: str | None = Field(description="The subject's name when it was done.")
    details: dict[str, Any]
    ip_address: str | None
