"""Two-factor sign-in: TOTP (RFC 6238, pyotp: 30-second steps, one step of drift either way)
and ten single-use recovery codes. The TOTP secret is stored encrypted (crypto.SecretBox);
recovery codes as SHA-256 (they are random, not chosen by people)."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Final

import pyotp
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from watchpost.crypto import SecretBox, hash_token
from watchpost.people.models import RecoveryCode
from watchpost.teams.models import User

ISSUER: Final = "Watchpost"
RECOVERY_CODES: Final = 10


def new_secret() -> str:
    return pyotp.random_base32()


def provisioning_uri(secret: str, email: str) -> str:
    return pyotp.TOTP(secret).provisioning_uri(name=email, issuer_name=ISSUER)


def code_matches(secret: str, code: str, now: datetime) -> bool:
    digits = "".join(c for c in code if c.isdigit())
    return len(digits) == 6 and pyotp.TOTP(secret).verify(digits, for_time=now, valid_window=1)


def enabled(user: User) -> bool:
    return user.totp_enabled_at is not None and user.totp_secret_encrypted is not None


def _normal_code(code: str) -> str:
    return "".join(c for c in code.lower() if c.isalnum())


async def enable(
    db: AsyncSession, *, user: User, secret: str, box: SecretBox, now: datetime
) -> list[str]:
    """Turns TOTP on with secret (after the person entered a code of it) and returns fresh
    recovery codes, shown once."""
    user.totp_secret_encrypted = box.encrypt(secret)
    user.totp_enabled_at = now
    await db.execute(delete(RecoveryCode).where(RecoveryCode.user_id == user.id))
    codes = ["-".join(secrets.token_hex(3) for _ in range(2)) for _ in range(RECOVERY_CODES)]
    db.add_all(RecoveryCode(user_id=user.id, code_hash=hash_token(_normal_code(c))) for c in codes)
    await db.flush()
    return codes


async def disable(db: AsyncSession, *, user: User) -> None:
    user.totp_secret_encrypted = None
    user.totp_enabled_at = None
    await db.execute(delete(RecoveryCode).where(RecoveryCode.user_id == user.id))
    await db.flush()


async def verify(db: AsyncSession, *, user: User, code: str, box: SecretBox, now: datetime) -> bool:
    """Whether code is the person's current TOTP code or one of their unused recovery codes
    (which is then used up)."""
    if not enabled(user):
        return False
    secret = box.decrypt(user.totp_secret_encrypted or "")
    if code_matches(secret, code, now):
        return True
    wanted = hash_token(_normal_code(code))
    found = await db.scalar(
        select(RecoveryCode).where(
            RecoveryCode.user_id == user.id,
            RecoveryCode.code_hash == wanted,
            RecoveryCode.used_at.is_(None),
        )
    )
    if found is None:
        return False
    found.used_at = now
    await db.flush()
    return True
