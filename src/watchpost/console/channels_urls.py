"""How each kind of notification channel's labelled fields become the Apprise URL the API
stores, and how they are read back from it (console/channels_kinds.py names the kinds and
their fields). Apprise does the parsing; every URL built here is instantiated by Apprise
before it is stored. Messages never repeat a secret."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final
from urllib.parse import quote, urlencode, urlsplit

Values = Mapping[str, str]


class KindProblem(Exception):
    """A field's value Apprise cannot use: the field's name and what to do."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def _plugin(url: str, field: str, message: str) -> Any:
    """Apprise's plugin for url, or a problem of field (Apprise's own words can quote the
    URL's secrets: they are not shown)."""
    try:
        import apprise  # loaded at first use (delivery/chat.py)

        found = apprise.Apprise.instantiate(url, suppress_exceptions=False)
    except Exception:  # Apprise raises TypeError, AppriseImproperlyConfigured …
        found = None
    if found is None:
        raise KindProblem(field, message)
    return found


def _is(plugin: Any, name: str, field: str, message: str) -> None:
    if type(plugin).__name__ != name:
        raise KindProblem(field, message)


def _text(values: Values, name: str) -> str:
    return values.get(name, "").strip()


def _canonical(plugin: Any) -> str:
    return str(plugin.url(privacy=False))


# ---------------------------------------------------------------------------- Slack

_SLACK_HOOK: Final = (
    "Paste the webhook URL Slack gave (https://hooks.slack.com/services/…) or a bot token (xoxb-…)"
)


def _slack(values: Values) -> str:
    secret, channel = _text(values, "webhook"), _text(values, "channel")
    if secret.startswith("xox"):
        if not channel:
            raise KindProblem("channel", "Name the channel to post to: a bot token needs one")
        plugin = _plugin(
            f"slack://{quote(secret, safe='')}/{quote(channel, safe='')}", "webhook", _SLACK_HOOK
        )
        _is(plugin, "NotifySlack", "webhook", _SLACK_HOOK)
        return _canonical(plugin)
    if not secret.lower().startswith(("https://", "slack://")):
        raise KindProblem("webhook", _SLACK_HOOK)
    hook = _plugin(secret, "webhook", _SLACK_HOOK)
    _is(hook, "NotifySlack", "webhook", _SLACK_HOOK)
    if getattr(hook, "mode", "") != "hook":
        raise KindProblem("webhook", _SLACK_HOOK)
    tokens = "/".join(quote(str(t), safe="") for t in (hook.token_a, hook.token_b, hook.token_c))
    target = f"/{quote(channel, safe='')}" if channel else ""
    return _canonical(
        _plugin(f"slack://{tokens}{target}", "channel", "Apprise cannot post to this channel")
    )


def _read_slack(plugin: Any) -> dict[str, str]:
    channels = ", ".join(str(c) for c in getattr(plugin, "channels", []) or [])
    if getattr(plugin, "mode", "") == "bot":
        return {"webhook": str(plugin.access_token), "channel": channels}
    hook = f"https://hooks.slack.com/services/{plugin.token_a}/{plugin.token_b}/{plugin.token_c}"
    return {"webhook": hook, "channel": channels}


# ---------------------------------------------------------------------- Microsoft Teams

_TEAMS_HOOK: Final = (
    "Paste the URL of a Teams workflow “when a webhook request is received” "
    "(https://….logic.azure.com/workflows/… or …/powerautomate/…)"
)


def _teams(values: Values) -> str:
    plugin = _plugin(_text(values, "webhook"), "webhook", _TEAMS_HOOK)
    _is(plugin, "NotifyWorkflows", "webhook", _TEAMS_HOOK)
    return _canonical(plugin)


def _read_whole(name: str) -> Callable[[Any], dict[str, str]]:
    def read(plugin: Any) -> dict[str, str]:
        return {name: _canonical(plugin)}

    return read


# ----------------------------------------------------------------------------- Discord

_DISCORD_HOOK: Final = "Paste the webhook URL Discord gave (https://discord.com/api/webhooks/…/…)"


def _discord(values: Values) -> str:
    hook = _plugin(_text(values, "webhook"), "webhook", _DISCORD_HOOK)
    _is(hook, "NotifyDiscord", "webhook", _DISCORD_HOOK)
    name = _text(values, "botname")
    who = f"{quote(name, safe='')}@" if name else ""
    ids = f"{quote(str(hook.webhook_id), safe='')}/{quote(str(hook.webhook_token), safe='')}"
    return _canonical(_plugin(f"discord://{who}{ids}", "botname", "Apprise cannot use this name"))


def _read_discord(plugin: Any) -> dict[str, str]:
    hook = f"https://discord.com/api/webhooks/{plugin.webhook_id}/{plugin.webhook_token}"
    return {"webhook": hook, "botname": str(plugin.user or "")}


# ---------------------------------------------------------------------------- Telegram

_TELEGRAM_BOT: Final = "Paste the token @BotFather gave (it looks like 123456789:ABC…)"


def _telegram(values: Values) -> str:
    token, chat = _text(values, "bot_token"), _text(values, "chat_id")
    plugin = _plugin(
        f"tgram://{quote(token, safe=':')}/{quote(chat, safe='@-')}", "bot_token", _TELEGRAM_BOT
    )
    _is(plugin, "NotifyTelegram", "bot_token", _TELEGRAM_BOT)
    if not plugin.targets:
        raise KindProblem("chat_id", "Give a chat ID (a number such as -1001234567890) or @channel")
    return _canonical(plugin)


def _read_telegram(plugin: Any) -> dict[str, str]:
    chats = ", ".join(str(target[0]) for target in plugin.targets or [])
    return {"bot_token": str(plugin.bot_token), "chat_id": chats}


# -------------------------------------------------------------------------------- ntfy

NTFY_PRIORITIES: Final = (
    ("min", "Min"),
    ("low", "Low"),
    ("default", "Default"),
    ("high", "High"),
    ("max", "Max (urgent)"),
)


def _ntfy(values: Values) -> str:
    server = _text(values, "server") or "https://ntfy.sh"
    parts = urlsplit(server if "://" in server else f"https://{server}")
    try:
        port = parts.port
    except ValueError:
        raise KindProblem("server", "Give the server's address, e.g. https://ntfy.sh") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path.strip("/"):
        raise KindProblem("server", "Give the server's address, e.g. https://ntfy.sh")
    topic = _text(values, "topic")
    if not topic:
        raise KindProblem("topic", "Name the topic to publish to")
    priority = _text(values, "priority") or "default"
    if priority not in dict(NTFY_PRIORITIES):
        raise KindProblem("priority", "Choose one of the priorities")
    query = {"priority": priority}
    if _text(values, "token"):
        query["token"] = _text(values, "token")
    scheme = "ntfys" if parts.scheme == "https" else "ntfy"
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    where = f"{host}:{port}" if port else host
    url = f"{scheme}://{where}/{quote(topic, safe='')}?{urlencode(query)}"
    plugin = _plugin(url, "topic", "Apprise cannot publish to this topic")
    _is(plugin, "NotifyNtfy", "topic", "Apprise cannot publish to this topic")
    if list(plugin.topics) != [topic]:
        raise KindProblem("topic", "A topic is letters, digits, “-” and “_”")
    return _canonical(plugin)


def _read_ntfy(plugin: Any) -> dict[str, str]:
    scheme = "https" if plugin.secure else "http"
    host = plugin.host or "ntfy.sh"
    server = f"{scheme}://{host}" + (f":{plugin.port}" if plugin.port else "")
    return {
        "server": server,
        "topic": ", ".join(plugin.topics or []),
        "priority": str(plugin.priority or "default"),
        "token": str(getattr(plugin, "token", None) or ""),
    }


# ---------------------------------------------------------------------------- Pushover

PUSHOVER_PRIORITIES: Final = (
    ("low", "Low (no sound)"),
    ("moderate", "Moderate"),
    ("normal", "Normal"),
    ("high", "High (bypasses quiet hours)"),
)
_PUSHOVER_NAMES: Final = {-2: "low", -1: "moderate", 0: "normal", 1: "high"}


def _pushover(values: Values) -> str:
    user, token = _text(values, "user_key"), _text(values, "app_token")
    priority = _text(values, "priority") or "normal"
    if priority not in dict(PUSHOVER_PRIORITIES):
        raise KindProblem("priority", "Choose one of the priorities")
    device = _text(values, "device")
    target = f"/{quote(device, safe='')}" if device else ""
    url = f"pover://{quote(user, safe='')}@{quote(token, safe='')}{target}?priority={priority}"
    plugin = _plugin(url, "user_key", "Apprise does not accept this user key and token")
    _is(plugin, "NotifyPushover", "user_key", "Apprise does not accept this user key and token")
    if device and device not in (plugin.devices or []):
        raise KindProblem("device", "A device name is up to 25 letters, digits, “-” and “_”")
    return _canonical(plugin)


def _read_pushover(plugin: Any) -> dict[str, str]:
    return {
        "user_key": str(plugin.user_key),
        "app_token": str(plugin.token),
        "device": ", ".join(str(d) for d in plugin.devices or []),
        "priority": _PUSHOVER_NAMES.get(int(plugin.priority or 0), "normal"),
    }


# ------------------------------------------------------------------------------ e-mail

EMAIL_SECURITY: Final = (
    ("starttls", "STARTTLS (usually port 587)"),
    ("ssl", "TLS from the start (usually port 465)"),
    ("none", "None: plain text (usually port 25)"),
)


def _email(values: Values) -> str:
    host = _text(values, "smtp_host")
    if not host or "/" in host or "@" in host or " " in host:
        raise KindProblem("smtp_host", "Give the SMTP server's host name, e.g. smtp.example.com")
    port_text = _text(values, "smtp_port")
    if port_text and not (port_text.isdigit() and 0 < int(port_text) < 65536):
        raise KindProblem("smtp_port", "A port is a number from 1 to 65535")
    security = _text(values, "security") or "starttls"
    if security not in dict(EMAIL_SECURITY):
        raise KindProblem("security", "Choose one of the ways")
    sender = _text(values, "from_address")
    if not sender:
        raise KindProblem("from_address", "Give the address the messages come from")
    recipients = [part.strip() for part in _text(values, "to").replace(";", ",").split(",")]
    recipients = [part for part in recipients if part]
    if not recipients:
        raise KindProblem("to", "Give at least one address to send to")
    user, password = _text(values, "username"), _text(values, "password")
    login = ""
    if user:
        login = quote(user, safe="") + (f":{quote(password, safe='')}" if password else "") + "@"
    query = {"from": sender, "to": ",".join(recipients)}
    if security != "none":
        query["mode"] = security
    where = f"{host}:{port_text}" if port_text else host
    url = f"{'mailto' if security == 'none' else 'mailtos'}://{login}{where}/?{urlencode(query)}"
    plugin = _plugin(url, "from_address", "Apprise does not accept this sender address")
    _is(plugin, "NotifyEmail", "smtp_host", "Apprise cannot send e-mail through this server")
    if len(plugin.targets) != len(recipients):
        raise KindProblem(
            "to", "Write each address in full (name@example.com), separated by commas"
        )
    return _canonical(plugin)


def _read_email(plugin: Any) -> dict[str, str]:
    return {
        "smtp_host": str(plugin.smtp_host or plugin.host or ""),
        "smtp_port": str(plugin.port or ""),
        "security": str(plugin.secure_mode) if plugin.secure else "none",
        "username": str(plugin.user or ""),
        "password": str(plugin.password or ""),
        "from_address": str(plugin.from_addr[1]) if plugin.from_addr else "",
        "to": ", ".join(str(target[1]) for target in plugin.targets or []),
    }


# ------------------------------------------------------------------------- any Apprise URL

_ANY: Final = "Apprise does not know this URL: see Apprise's list of services for its form"


def _any(values: Values) -> str:
    text = _text(values, "url")
    plugin = _plugin(text, "url", _ANY)
    return (
        _canonical(plugin)
        if "://" not in text or text.lower().startswith(("http:", "https:"))
        else text
    )
