"""Field types of a monitor's request body: bounds, ports, request headers, status codes."""

from __future__ import annotations

import re
from typing import Annotated, Any, Final

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from watchpost.monitors.types import port_numbers
from watchpost.validation import Id, Int32, Port, check_header_value, parse_id

DEFAULT_CHECK_FREQUENCY: Final = 180
MIN_CHECK_FREQUENCY: Final = 30
MAX_CHECK_FREQUENCY: Final = 86_400
DEFAULT_CONFIRMATION_PERIOD: Final = 0
DEFAULT_RECOVERY_PERIOD: Final = 180
MAX_PERIOD: Final = 86_400
MAX_HEADERS: Final = 50
MAX_STATUS_CODES: Final = 100

_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


def check_port(value: str | int) -> str:
    """A port (1 to 65535) as a string; several separated by commas ("25,465,587") are kept
    as sent."""
    numbers = port_numbers(value)
    if numbers is None:
        raise ValueError(
            "must be a port number between 1 and 65535, written as a string (mail monitors "
            'also take several separated by commas, "25,465,587")'
        )
    return str(numbers[0]) if len(numbers) == 1 else str(value).strip()


def check_header_name(value: str) -> str:
    name = value.strip()
    if not _HEADER_NAME.match(name):
        raise ValueError("must be an HTTP header name (letters, digits and - _ . etc.)")
    return name


def check_header_id(value: str | int) -> int:
    number = value if type(value) is int else parse_id(value) if isinstance(value, str) else None
    if number is None:
        raise ValueError("must be the id of one of the monitor's request headers")
    return number


def check_unique(values: list[Any]) -> list[Any]:
    if len(set(values)) != len(values):
        raise ValueError("must not repeat a value")
    return values


PortText = Annotated[Annotated[str, Field(max_length=64)] | Port, AfterValidator(check_port)]
HeaderName = Annotated[str, Field(min_length=1, max_length=255), AfterValidator(check_header_name)]


def _empty_id(value: Any) -> Any:
    return None if value == "" else value


HeaderId = Annotated[str | Id, AfterValidator(check_header_id)]
StatusCode = Annotated[int, Field(ge=100, le=599)]
Seconds = Annotated[int, Field(ge=0, le=MAX_PERIOD)]
CheckFrequency = Annotated[int, Field(ge=MIN_CHECK_FREQUENCY, le=MAX_CHECK_FREQUENCY)]
# Bounded by its INTEGER column; each type's rule (types.py) narrows it, naming the unit.
RequestTimeout = Int32


def check_flag(value: bool | str) -> bool:
    """A Rails-style flag: true/false, or "true", "false", "1", "0" as the Terraform provider
    sends `_destroy`."""
    if isinstance(value, bool):
        return value
    text = value.strip().lower()
    if text in ("true", "1"):
        return True
    if text in ("false", "0", ""):
        return False
    raise ValueError('must be true or false ("true", "false", "1", "0")')


Flag = Annotated[bool | Annotated[str, Field(max_length=8)], AfterValidator(check_flag)]


class RequestHeaderIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: Annotated[HeaderId | None, BeforeValidator(_empty_id)] = Field(
        default=None, description="An existing header's id keeps it; omit for a new header."
    )
    name: HeaderName | None = Field(default=None, description="Required unless `_destroy`.")
    value: Annotated[str, AfterValidator(check_header_value)] | None = Field(
        default=None, max_length=8192, description="Required unless `_destroy`."
    )
    destroy: Flag | None = Field(
        default=None,
        alias="_destroy",
        description='true (or "true") with an `id` removes that header (Rails style).',
    )


class RequestHeader(BaseModel):
    id: str
    name: str
    value: str


def assign_header_ids(
    headers: list[RequestHeaderIn], existing: list[dict[str, Any]], last_id: int
) -> tuple[list[dict[str, Any]], int, list[tuple[str | None, str]]]:
    """The new header list: entries with an existing id keep it, new ones get fresh ids, and
    entries marked `_destroy` (Rails style, as the Terraform provider removes a header) are
    left out, as are existing headers the list does not name."""
    known = {int(header["id"]) for header in existing}
    problems: list[tuple[str | None, str]] = []
    seen: set[int] = set()
    result: list[dict[str, Any]] = []
    for index, header in enumerate(headers):
        where = f"request_headers.{index}"
        header_id = int(header.id) if header.id is not None else None
        if header_id is not None and (header_id not in known or header_id in seen):
            problems.append(
                (
                    "request_headers",
                    f"{where}.id {header_id} is not a header of this monitor "
                    "(omit id for a new header)"
                    if header_id not in known
                    else f"{where}.id {header_id} is given twice",
                )
            )
            continue
        if header.destroy is True:
            if header_id is None:
                problems.append(("request_headers", f"{where}._destroy needs the header's id"))
            else:
                seen.add(header_id)
            continue
        if header.name is None or header.value is None:
            missing = "name" if header.name is None else "value"
            problems.append(("request_headers", f"{where}.{missing} is required"))
            continue
        if header_id is None:
            last_id += 1
            header_id = last_id
        seen.add(header_id)
        result.append({"id": header_id, "name": header.name, "value": header.value})
    return result, last_id, problems


def scenario_problems(data: dict[str, Any], monitor_type: Any) -> list[tuple[str | None, str]]:
    """A playwright monitor's `scenario_name` is its url (as in the hosted API): sent alone
    it becomes the url (data changes in place); sent with a url the two must be equal."""
    scenario = data.pop("scenario_name", None)
    if scenario is None or (isinstance(scenario, str) and not scenario.strip()):
        return []
    if not isinstance(scenario, str):
        return [("scenario_name", "scenario_name must be a string")]
    if monitor_type != "playwright":
        return [("scenario_name", "scenario_name applies to playwright monitors only")]
    url = data.get("url")
    if url is None or (isinstance(url, str) and not url.strip()):
        data["url"] = scenario
    elif url != scenario:
        return [("scenario_name", "scenario_name and url must be equal when both are sent")]
    return []
