"""The small server-rendered pages of sign-ups and mail links (no script, no external
requests; Jinja2 autoescaping)."""

from __future__ import annotations

from typing import Final

from fastapi.responses import HTMLResponse
from markupsafe import Markup

from watchpost.http.security import html_policy, source_hash
from watchpost.inline_templates import InlineTemplate

_CSS: Final = Markup(
    "body{font-family:system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em}"
    "label{display:block;margin:.8em 0 .2em}input{width:100%;padding:.4em;box-sizing:border-box}"
    "button{margin-top:1em;padding:.5em 1.2em}code{word-break:break-all}"
    "@media (prefers-color-scheme:dark){body{background:#111;color:#eee}}"
)
_HEADERS: Final = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": html_policy(style_src=[source_hash(_CSS)]),
}
_PAGE: Final = InlineTemplate(
    """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}{% if company %} · {{ company }}{% endif %}</title>
<style>{{ css }}</style></head>
<body><main>
<h1>{{ title }}</h1>
{% if company %}<p>{{ company }}</p>{% endif %}
{% if message %}<p>{{ message }}</p>{% endif %}
{% if secret %}<p><code>{{ secret }}</code></p>{% endif %}
{% if form_action == "subscribe" %}<form method="post" action="subscribe">
<label for="email">E-mail address</label><input id="email" name="email" type="email">
<label for="webhook_url">or a webhook URL</label>
<input id="webhook_url" name="webhook_url" type="url">
<button type="submit">Subscribe</button></form>
{% elif button %}<form method="post"><button type="submit">{{ button }}</button></form>{% endif %}
</main></body></html>
"""
)


def page(
    title: str,
    *,
    status: int = 200,
    company: str | None = None,
    message: str | None = None,
    secret: str | None = None,
    form_action: str | None = None,
    button: str | None = None,
) -> HTMLResponse:
    html = _PAGE.render(
        title=title,
        company=company,
        message=message,
        secret=secret,
        form_action=form_action,
        button=button,
        css=_CSS,
    )
    return HTMLResponse(html, status_code=status, headers=_HEADERS)
