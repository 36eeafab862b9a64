"""The hosted API's source attributes that Watchpost stores and returns without acting on them.

Watchpost does not ingest, scrape, transform or archive telemetry itself, so these settings
have no effect here; they are kept (in the source's `settings` column, secrets encrypted) so
that clients written for the hosted API read back what they sent. docs/api.md lists them.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Annotated, Any, Final
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.crypto import SecretBox
from watchpost.errors import Problem
from watchpost.validation import ShortText

MAX_LIST: Final = 1000
MAX_PROGRAM: Final = 65_536

UrlText = Annotated[str, Field(min_length=1, max_length=2048)]


class ScrapeHeader(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, Field(min_length=1, max_length=255)]
    value: Annotated[str, Field(max_length=8192)]


class CustomBucket(BaseModel):
    """An S3-compatible bucket for the source's data: set on create only."""

    model_config = ConfigDict(extra="forbid")

    name: ShortText | None = Field(
        default=None, description="Ignored: the name is read from `endpoint`."
    )
    endpoint: UrlText
    access_key_id: Annotated[str, Field(min_length=1, max_length=255)]
    secret_access_key: Annotated[str, Field(min_length=1, max_length=1024)] = Field(
        description="Write-only."
    )
    keep_data_after_retention: bool = False


class HostedSettings(BaseModel):
    """Fields a request may send; every one is optional (None: not sent or cleared)."""

    model_config = ConfigDict(extra="forbid")

    data_region: Annotated[str, Field(min_length=1, max_length=64)] | None = Field(
        default=None, description="Fixed after creation; stored as sent."
    )
    vrl_transformation_logs: Annotated[str, Field(max_length=MAX_PROGRAM)] | None = None
    vrl_transformation_spans: Annotated[str, Field(max_length=MAX_PROGRAM)] | None = None
    blocked_metrics: Annotated[list[ShortText], Field(max_length=MAX_LIST)] | None = None
    scrape_urls: Annotated[list[UrlText], Field(max_length=100)] | None = None
    scrape_frequency_secs: Annotated[int, Field(ge=1, le=86_400)] | None = None
    scrape_request_headers: Annotated[list[ScrapeHeader], Field(max_length=50)] | None = None
    scrape_request_basic_auth_user: ShortText | None = None
    scrape_request_basic_auth_password: Annotated[str, Field(max_length=1024)] | None = Field(
        default=None, description="Write-only."
    )
    skip_ssl_verify: bool | None = None
    aws_auto_sub_log_groups: bool | None = None
    code_mapping_stack_root: Annotated[str, Field(max_length=1024)] | None = None
    code_mapping_source_root: Annotated[str, Field(max_length=1024)] | None = None
    custom_bucket: CustomBucket | None = Field(default=None, description="Create only.")


HOSTED_FIELDS: Final[tuple[str, ...]] = tuple(HostedSettings.model_fields)
# Shown as sent (null until sent); the booleans read false until sent.
PLAIN_FIELDS: Final[tuple[str, ...]] = (
    "data_region",
    "vrl_transformation_logs",
    "vrl_transformation_spans",
    "blocked_metrics",
    "scrape_urls",
    "scrape_frequency_secs",
    "scrape_request_headers",
    "scrape_request_basic_auth_user",
    "code_mapping_stack_root",
    "code_mapping_source_root",
)
FLAG_FIELDS: Final[tuple[str, ...]] = ("skip_ssl_verify", "aws_auto_sub_log_groups")
_PASSWORD = "scrape_request_basic_auth_password"  # noqa: S105  (a field name)
_CREATE_ONLY = "custom_bucket"


def bucket_name(endpoint: str) -> str:
    """The bucket an endpoint names: its first path segment, else its host's first label."""
    parts = urlsplit(endpoint)
    segment = parts.path.strip("/").split("/", 1)[0]
    return segment or (parts.hostname or "").split(".", 1)[0]


def update_problems(
    sent: dict[str, Any], stored: dict[str, Any], kind: str = "source"
) -> list[Problem]:
    """What a PATCH of a source (or another kind: a collector) may not change: the data
    region and the custom bucket."""
    problems: list[Problem] = []
    region = sent.get("data_region")
    if "data_region" in sent and region != stored.get("data_region"):
        problems.append(("data_region", "data_region cannot be changed after creation"))
    if sent.get(_CREATE_ONLY) is not None:
        problems.append((_CREATE_ONLY, f"custom_bucket can only be set when creating a {kind}"))
    return problems


def stored_bucket(bucket: CustomBucket, box: SecretBox) -> dict[str, Any]:
    """A custom bucket as the settings column keeps it (its secret key encrypted)."""
    return {
        "endpoint": bucket.endpoint,
        "access_key_id": bucket.access_key_id,
        "secret_access_key_encrypted": box.encrypt(bucket.secret_access_key),
        "keep_data_after_retention": bucket.keep_data_after_retention,
    }


def shown_bucket(stored: dict[str, Any] | None) -> dict[str, Any] | None:
    """A stored custom bucket as a response shows it (never its secret key)."""
    if stored is None:
        return None
    return {
        "name": bucket_name(stored["endpoint"]),
        "endpoint": stored["endpoint"],
        "access_key_id": stored["access_key_id"],
        "keep_data_after_retention": stored["keep_data_after_retention"],
    }


def _stored(value: Any) -> Any:
    """A sent value as the settings column keeps it (models as the objects they were sent as)."""
    if isinstance(value, BaseModel):
        return value.model_dump(exclude_unset=True)
    if isinstance(value, list):
        return [_stored(item) for item in value]
    return value


def merged(
    stored: dict[str, Any] | None,
    data: BaseModel,
    sent: set[str],
    box: SecretBox,
    fields: tuple[str, ...] = HOSTED_FIELDS,
) -> dict[str, Any]:
    """The settings to store: the sent fields (of `fields`: a source's, or a collector's)
    over the stored ones (null clears one)."""
    result = dict(stored or {})
    for name in sent & set(fields):
        value = getattr(data, name)
        if name == _PASSWORD:  # "" (the Terraform provider's unset) is no password
            result.pop(f"{_PASSWORD}_encrypted", None)
            if value:
                result[f"{_PASSWORD}_encrypted"] = box.encrypt(value)
        elif name == _CREATE_ONLY:
            if value is not None:
                result[name] = stored_bucket(value, box)
        elif value is None:
            result.pop(name, None)
        else:
            result[name] = _stored(value)
    return result


async def store_changes(
    session: AsyncSession,
    row: Any,
    data: BaseModel,
    sent: set[str],
    *,
    columns: Iterable[str],
    box: SecretBox,
    now: datetime,
    fields: tuple[str, ...] = HOSTED_FIELDS,
) -> None:
    """Store a checked PATCH of a source or a collector (`row`): its sent `columns` as sent,
    its sent hosted `fields` merged into its settings; then stamped and flushed."""
    for name in columns:
        if name in sent:
            setattr(row, name, getattr(data, name))
    if sent & set(fields):
        row.settings = merged(row.settings, data, sent, box, fields) or None
    row.updated_at = now
    await session.flush()


def attributes(
    stored: dict[str, Any] | None,
    plain: tuple[str, ...] = PLAIN_FIELDS,
    flags: tuple[str, ...] = FLAG_FIELDS,
    defaults: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The hosted attributes (of a source, or with the names given of a collector) as a
    response shows them: the plain ones as stored (else null, or their default), the flags
    as booleans, the custom bucket never with its secret key (nor a password)."""
    values, defaults = stored or {}, defaults or {}
    shown = {name: values.get(name, defaults.get(name)) for name in plain}
    shown |= {name: bool(values.get(name, False)) for name in flags}
    shown[_CREATE_ONLY] = shown_bucket(values.get(_CREATE_ONLY))
    return shown
