"""Short HTML templates written in the code (alert and subscription e-mails, the acknowledge
and subscription pages): Jinja2 with autoescaping, compiled at their first rendering, so
Jinja2 (≈ 2.4 MB) loads when a server first needs one, not at its start."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jinja2 import Template


class InlineTemplate:
    """An autoescaped template of `source`, compiled when first rendered."""

    def __init__(self, source: str) -> None:
        self.source = source
        self._compiled: Template | None = None

    def render(self, **context: Any) -> str:
        if self._compiled is None:
            from jinja2 import Environment

            self._compiled = Environment(autoescape=True).from_string(self.source)
        return self._compiled.render(**context)
