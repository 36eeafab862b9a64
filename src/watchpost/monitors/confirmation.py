"""A monitor checked from several locations: is it down? Pure: no I/O.

Every location keeps its latest result; a result counts while it is recent (within the
window). The locations weighed are those online: an offline location (its agents silent past
its `offline_after`, or never heard from) is left out, and an online one that has not
answered lately counts as not failing. So a silent location never counts as failing, and one
location answering first (agents starting, a new monitor) cannot decide alone:

- `any`: one failing location is enough;
- `majority` (the default): more than half of the online locations;
- `all`: every online location (at least one);
- `at_least` N: N failing locations or more.

When the rule holds, the verdict is a failure whose error names where it failed and where it
did not ("Down from eu-west (timeout) and us-east (…); up from local"); it goes to the
status machine like a single check's failure, so `confirmation_period` and
`recovery_period` apply as they always do. When some locations fail but the rule does not
hold, the verdict is a success and the monitor is `degraded`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Final, Literal, get_args

from pydantic import Field

ConfirmationRule = Literal["any", "majority", "all", "at_least"]
RULES: Final[tuple[str, ...]] = get_args(ConfirmationRule)
DEFAULT_RULE: Final = "majority"
MAX_LOCATIONS: Final = 50
LocationName = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")]


def rule_problems(values: dict[str, Any]) -> list[tuple[str | None, str]]:
    """`confirmation_locations` is given exactly when the rule is `at_least`."""
    rule, count = values.get("confirmation_rule"), values.get("confirmation_locations")
    if rule == "at_least" and count is None:
        return [("confirmation_locations", "is required when confirmation_rule is at_least")]
    if rule in RULES and rule != "at_least" and count is not None:
        return [("confirmation_locations", "applies only when confirmation_rule is at_least")]
    return []


def degraded_now(monitor: Any, now: datetime) -> str | None:
    """`degraded` while some of an up monitor's locations fail, too few to call it down."""
    return "degraded" if monitor.degraded_since is not None and monitor.status == "up" else None


@dataclass(frozen=True)
class LocationResult:
    """A location's latest result for the monitor."""

    name: str
    checked_at: datetime | None
    ok: bool | None
    error: str | None = None
    latency_ms: float | None = None
    offline: bool = False


@dataclass(frozen=True)
class Verdict:
    down: bool
    degraded: bool
    failed: tuple[LocationResult, ...]
    passed: tuple[LocationResult, ...]
    silent: tuple[str, ...]
    """Locations left out: offline, or no answer within the window."""

    @property
    def error(self) -> str | None:
        """What people read: where it failed (and why), where it did not."""
        if not self.failed:
            return None
        down = _and([f"{r.name} ({r.error or 'failed'})" for r in self.failed])
        text = f"Down from {down}"
        if self.passed:
            text += f"; up from {_and([r.name for r in self.passed])}"
        return text

    def regions(self) -> list[dict[str, Any]]:
        """Per location, for an incident's `check_details.regions`."""
        return [
            {"location": r.name, "status": "down" if r in self.failed else "up", "error": r.error}
            for r in (*self.failed, *self.passed)
        ] + [{"location": name, "status": "unknown", "error": None} for name in self.silent]


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def holds(rule: str, *, failed: int, answered: int, at_least: int | None) -> bool:
    """Whether `failed` of `answered` (online) locations make the monitor down."""
    if failed == 0:
        return False
    if rule == "any":
        return True
    if rule == "all":
        return failed == answered
    if rule == "at_least":
        return failed >= (at_least or 1)
    return 2 * failed > answered


def verdict(
    results: Sequence[LocationResult],
    *,
    rule: str,
    at_least: int | None,
    since: datetime,
) -> Verdict:
    """The rule applied to the online locations' results from `since` on."""
    online = [r for r in results if not r.offline]
    answered = [
        r for r in online if r.ok is not None and r.checked_at is not None and r.checked_at >= since
    ]
    failed = tuple(r for r in answered if not r.ok)
    passed = tuple(r for r in answered if r.ok)
    silent = tuple(r.name for r in results if r not in answered)
    down = holds(rule, failed=len(failed), answered=len(online), at_least=at_least)
    return Verdict(
        down=down, degraded=bool(failed) and not down, failed=failed, passed=passed, silent=silent
    )
