"""The kinds of notification channel the console offers a form for: each one's labelled
fields, and the functions (in console/channels_urls.py) that turn them into the Apprise URL
the API stores and read them back from it.

Apprise does the parsing: a pasted webhook URL (Slack's, Discord's, Teams' Workflows one) is
read by Apprise's own native-URL support, and every URL built is instantiated by Apprise
before it is stored; what is stored is the URL Apprise itself writes for the plugin
(`url(privacy=False)`). The console only checks what Apprise would silently accept but
cannot deliver to (no topic, no chat, no recipient). Messages never repeat a secret.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from watchpost.console.channels_urls import (
    EMAIL_SECURITY,
    NTFY_PRIORITIES,
    PUSHOVER_PRIORITIES,
    Values,
    _any,
    _discord,
    _email,
    _ntfy,
    _pushover,
    _read_discord,
    _read_email,
    _read_ntfy,
    _read_pushover,
    _read_slack,
    _read_telegram,
    _read_whole,
    _slack,
    _teams,
    _telegram,
)
from watchpost.console.forms import Field


@dataclass(frozen=True)
class Kind:
    key: str
    label: str
    schemes: tuple[str, ...]
    """Apprise schemes whose stored URLs this kind reads back."""
    fields: tuple[Field, ...]
    build: Callable[[Values], str]
    read: Callable[[Any], dict[str, str]]
    """The fields' values (secrets too) of an Apprise plugin made from a stored URL."""
    host_field: str
    """Where a problem of the URL as a whole (a denied host) is shown."""
    defaults: tuple[tuple[str, str], ...] = ()

    @property
    def secrets(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if f.input == "secret")

    @property
    def required(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields if f.required)


def _secret(name: str, label: str, hint: str, *, required: bool = True) -> Field:
    return Field(name=name, label=label, input="secret", hint=hint, required=required)


def _text_field(name: str, label: str, hint: str, *, required: bool = False) -> Field:
    return Field(name=name, label=label, input="text", hint=hint, required=required)


def _select(name: str, label: str, hint: str, choices: tuple[tuple[str, str], ...]) -> Field:
    return Field(name=name, label=label, input="select", hint=hint, choices=choices, required=True)


KINDS: Final[tuple[Kind, ...]] = (
    Kind(
        "slack",
        "Slack",
        ("slack",),
        (
            _secret(
                "webhook",
                "Webhook URL or bot token",
                "An incoming webhook's URL (https://hooks.slack.com/services/…) or a bot "
                "token (xoxb-…).",
            ),
            _text_field(
                "channel",
                "Channel",
                "#alerts, or @person. Needed with a bot token; with a webhook, empty posts "
                "to the webhook's own channel.",
            ),
        ),
        _slack,
        _read_slack,
        "webhook",
    ),
    Kind(
        "teams",
        "Microsoft Teams",
        ("workflow", "workflows"),
        (
            _secret(
                "webhook",
                "Workflow webhook URL",
                "In Teams, add the Workflows template “Post to a channel when a webhook "
                "request is received” and paste its URL.",
            ),
        ),
        _teams,
        _read_whole("webhook"),
        "webhook",
    ),
    Kind(
        "discord",
        "Discord",
        ("discord",),
        (
            _secret(
                "webhook",
                "Webhook URL",
                "Channel settings → Integrations → Webhooks → Copy Webhook URL.",
            ),
            _text_field("botname", "Bot name", "The name the messages show. Empty: the webhook's."),
        ),
        _discord,
        _read_discord,
        "webhook",
    ),
    Kind(
        "telegram",
        "Telegram",
        ("tgram",),
        (
            _secret("bot_token", "Bot token", "From @BotFather, e.g. 123456789:ABC…"),
            _text_field(
                "chat_id",
                "Chat ID",
                "The chat, group or channel to post to: a number such as -1001234567890, or "
                "@channelname.",
                required=True,
            ),
        ),
        _telegram,
        _read_telegram,
        "bot_token",
    ),
    Kind(
        "ntfy",
        "ntfy",
        ("ntfy", "ntfys"),
        (
            _text_field(
                "server", "Server", "Your ntfy server's address, or https://ntfy.sh.", required=True
            ),
            _text_field("topic", "Topic", "The topic the phones subscribe to.", required=True),
            _select("priority", "Priority", "How loudly phones announce it.", NTFY_PRIORITIES),
            _secret(
                "token",
                "Access token",
                "For a protected topic (tk_…). Empty for a public topic.",
                required=False,
            ),
        ),
        _ntfy,
        _read_ntfy,
        "server",
        (("server", "https://ntfy.sh"), ("priority", "high")),
    ),
    Kind(
        "pushover",
        "Pushover",
        ("pover",),
        (
            _secret("user_key", "User key", "Your user (or group) key, on Pushover's dashboard."),
            _secret("app_token", "Application token", "The API token of an application you made."),
            _text_field("device", "Device", "One device's name. Empty: all your devices."),
            _select("priority", "Priority", "", PUSHOVER_PRIORITIES),
        ),
        _pushover,
        _read_pushover,
        "user_key",
        (("priority", "high"),),
    ),
    Kind(
        "email",
        "E-mail",
        ("mailto", "mailtos"),
        (
            _text_field("smtp_host", "SMTP server", "e.g. smtp.example.com.", required=True),
            _text_field("smtp_port", "Port", "Empty: the usual port of the security chosen."),
            _select("security", "Security", "", EMAIL_SECURITY),
            _text_field("username", "User name", "Empty when the server needs no sign-in."),
            _secret("password", "Password", "The SMTP user's password.", required=False),
            _text_field("from_address", "From", "The address messages come from.", required=True),
            _text_field("to", "To", "Addresses to send to, separated by commas.", required=True),
        ),
        _email,
        _read_email,
        "smtp_host",
        (("security", "starttls"),),
    ),
    Kind(
        "apprise",
        "Any Apprise URL",
        (),
        (
            _secret(
                "url",
                "Apprise URL",
                "Any service Apprise supports, e.g. json://host/path, mmost://host/token, "
                "matrix://…: see Apprise's list of services.",
            ),
        ),
        _any,
        _read_whole("url"),
        "url",
    ),
)
BY_KEY: Final = {kind.key: kind for kind in KINDS}
DEFAULT_KIND: Final = "slack"
OTHER: Final = BY_KEY["apprise"]


def kind_named(key: str | None, fallback: str = DEFAULT_KIND) -> Kind:
    return BY_KEY.get(key or "", BY_KEY[fallback])


def kind_of_service(service: str) -> Kind:
    """The kind whose form shows a stored URL of this scheme (else "Any Apprise URL")."""
    return next((kind for kind in KINDS if service in kind.schemes), OTHER)


def label_of_service(service: str) -> str:
    kind = kind_of_service(service)
    return kind.label if kind is not OTHER else f"Apprise ({service})"


def stored_values(kind: Kind, url: str) -> dict[str, str]:
    """The fields of kind as a stored URL holds them ({} when kind cannot read it)."""
    import apprise  # loaded at first use (delivery/chat.py)

    try:
        plugin = apprise.Apprise.instantiate(url, suppress_exceptions=False)
    except Exception:
        return {}
    if plugin is None:
        return {}
    if kind is OTHER:
        return {"url": url}
    try:
        return kind.read(plugin)
    except (AttributeError, TypeError, ValueError, IndexError):
        return {}
