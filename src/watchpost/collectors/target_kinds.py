"""Which fields each collector target kind requires, accepts and rejects.

This table is the single source of the rules: request validation, the OpenAPI
description of the create endpoint and the tests all read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal, get_args

from watchpost.probes.targets.settings import TargetKind

Kind = TargetKind
SslMode = Literal["disable", "require", "verify-ca"]
Tls = Literal["false", "true", "skip-verify", "preferred"]
Scheme = Literal["http", "https"]

KINDS: Final[tuple[str, ...]] = get_args(Kind)

# Fields whose applicability depends on the kind. `host` and `enabled` apply to every kind.
KIND_FIELDS: Final[tuple[str, ...]] = (
    "port",
    "service",
    "listen_ip",
    "endpoint",
    "username",
    "password",
    "api_key",
    "ssl_mode",
    "tls",
    "scheme",
)
WRITE_ONLY_FIELDS: Final[frozenset[str]] = frozenset({"password", "api_key"})
# A change to any of these sends the target back to `pending`: it must be probed anew.
CONNECTION_FIELDS: Final[frozenset[str]] = frozenset({"host", *KIND_FIELDS})


@dataclass(frozen=True)
class KindRule:
    required: tuple[str, ...]
    optional: tuple[str, ...]
    defaults: dict[str, str] = field(default_factory=dict)

    @property
    def accepted(self) -> frozenset[str]:
        return frozenset(self.required) | frozenset(self.optional)


_CREDENTIALS = ("username", "password")
_PROCESS_OPTIONAL = ("port", "listen_ip")

KIND_RULES: Final[dict[str, KindRule]] = {
    "postgres": KindRule(required=("port", "ssl_mode"), optional=_CREDENTIALS),
    "mysql": KindRule(required=("port", "tls"), optional=_CREDENTIALS),
    "redis": KindRule(required=("port",), optional=_CREDENTIALS),
    "mongodb": KindRule(required=("port",), optional=_CREDENTIALS),
    "memcached": KindRule(required=("port",), optional=_CREDENTIALS),
    "elasticsearch": KindRule(
        required=("port",),
        optional=(*_CREDENTIALS, "api_key", "scheme"),
        defaults={"scheme": "http"},
    ),
    "nginx": KindRule(required=("service",), optional=_PROCESS_OPTIONAL),
    "apache": KindRule(required=("service",), optional=_PROCESS_OPTIONAL),
    "kafka": KindRule(required=("service",), optional=_PROCESS_OPTIONAL),
    "prometheus": KindRule(required=("service", "endpoint"), optional=()),
}
assert set(KIND_RULES) == set(KINDS)
assert all(rule.accepted <= set(KIND_FIELDS) for rule in KIND_RULES.values())


def kind_problems(kind: str, present: set[str]) -> list[tuple[str, str]]:
    """(field, message) for every required field absent and every present field not accepted.

    `present` holds the kind-dependent fields that carry a value (null and blank count as absent).
    """
    rule = KIND_RULES[kind]
    problems = [
        (name, f"{name} is required for {kind} targets")
        for name in rule.required
        if name not in present
    ]
    accepted = ", ".join(("host", *rule.required, *rule.optional, "enabled"))
    problems += [
        (name, f"{name} does not apply to {kind} targets (they accept: {accepted})")
        for name in KIND_FIELDS
        if name in present and name not in rule.accepted
    ]
    return problems


def rules_markdown() -> str:
    """The table as Markdown, for the OpenAPI description."""
    lines = ["| kind | required | optional |", "|---|---|---|"]
    for kind, rule in KIND_RULES.items():
        required = ", ".join(("host", *rule.required))
        optional = ", ".join(rule.optional) or "none"
        lines.append(f"| {kind} | {required} | {optional} |")
    return "\n".join(lines)
