"""Custom webhook templates: header values and bodies rendered with Jinja2, sandboxed.

A template sees the event as receivers are told it:

| variable | value |
|---|---|
| `event` | what happened: started, acknowledged, resolved (incidents); created, updated, paused, unpaused, deleted (monitors) |
| `trigger_type` | incident_change, monitor_change or on_call_change |
| `data` | the object as the API shows it (`data.id`, `data.attributes.name`, ...) |
| `payload` | the whole default body, `{"event": ..., "data": ...}` |
| `webhook_id` | the message id (also sent as the `webhook-id` header) |
| `timestamp` | Unix seconds of this attempt |

`{{ data | tojson }}` writes a value as JSON. The sandbox refuses attribute tricks (no access
to Python internals); a template that fails to render fails the attempt with the reason.
Jinja2 loads at the first template checked or rendered, not with the module.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from jinja2 import Template
    from jinja2.sandbox import ImmutableSandboxedEnvironment


def _tojson(value: Any) -> str:
    """Jinja's own tojson escapes <, >, & and ' for HTML; a webhook body is not HTML."""
    return orjson.dumps(value).decode()


@functools.cache
def _environment() -> ImmutableSandboxedEnvironment:
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    environment = ImmutableSandboxedEnvironment(autoescape=False, keep_trailing_newline=True)
    environment.filters["tojson"] = _tojson
    return environment


class TemplateFailed(ValueError):
    """A template that does not compile or render; the message says why."""


@functools.lru_cache(maxsize=512)
def _compiled(source: str) -> Template:
    return _environment().from_string(source)


def check(source: str) -> str | None:
    """Why source is not a valid template (None when it is)."""
    from jinja2 import TemplateError

    try:
        _compiled(source)
    except TemplateError as exc:
        return f"is not a valid template: {exc.message or exc}"
    return None


def render(source: str, variables: dict[str, Any]) -> str:
    from jinja2 import TemplateError

    try:
        return _compiled(source).render(variables)
    except TemplateError as exc:
        raise TemplateFailed(f"template failed: {exc.message or exc}") from exc
    except (TypeError, ValueError, ArithmeticError, LookupError, orjson.JSONEncodeError) as exc:
        raise TemplateFailed(f"template failed: {exc}") from exc
