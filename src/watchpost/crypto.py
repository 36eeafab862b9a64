"""Secrets: encryption of stored probe credentials, hashing of API tokens and passwords."""

from __future__ import annotations

import asyncio
import binascii
import hashlib
import logging
import os
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Final, TypeVar

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

log = logging.getLogger(__name__)

KEY_FILE_NAME = "secret.key"
HASHING_AT_ONCE: Final = 2
"""Password hashes made or checked at a time (people's argon2id, status pages' scrypt): each
fills tens of MiB for its duration, so a burst of attempts waits its turn instead of holding
that many times the memory, and leaves the default thread pool to the logs store."""
_HASHING: Final = ThreadPoolExecutor(HASHING_AT_ONCE, thread_name_prefix="password-hash")
T = TypeVar("T")


async def on_hashing_thread(work: Callable[..., T], *args: object) -> T:
    """work(*args) on one of the HASHING_AT_ONCE password-hashing threads."""
    return await asyncio.get_running_loop().run_in_executor(_HASHING, work, *args)


BOX_VERSION = "v1."
"""Prefix of the stored text, so the format can change later without guessing."""
_NONCE_BYTES = 12


class SecretBox:
    """Authenticated symmetric encryption (AES-256-GCM) keyed from the configured secret.

    Stored text: `v1.` + base64(96-bit random nonce + ciphertext + tag). AES-GCM instead of
    Fernet, and binascii's base64 instead of the urlsafe variant (pure Python around it),
    because a page of 250 sources decrypts 250 tokens.

    The cipher is keyed at the first encrypt or decrypt: cryptography (≈ 8 MB resident) loads
    then, so a server whose monitors hold no credentials never loads it.
    """

    def __init__(self, secret_key: str) -> None:
        self._secret_key = secret_key
        self._keyed: AESGCM | None = None

    def _aead(self) -> AESGCM:
        if self._keyed is None:
            from cryptography.hazmat.primitives import hashes
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            from cryptography.hazmat.primitives.kdf.hkdf import HKDF

            key = HKDF(
                algorithm=hashes.SHA256(), length=32, salt=None, info=b"watchpost secret box v1"
            ).derive(self._secret_key.encode())
            self._keyed = AESGCM(key)
        return self._keyed

    def encrypt(self, plaintext: str) -> str:
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._aead().encrypt(nonce, plaintext.encode(), None)
        return BOX_VERSION + binascii.b2a_base64(nonce + sealed, newline=False).decode()

    def decrypt(self, ciphertext: str) -> str:
        aead = self._aead()
        from cryptography.exceptions import InvalidTag

        try:
            if not ciphertext.startswith(BOX_VERSION):
                raise ValueError("unknown format")
            raw = binascii.a2b_base64(ciphertext[len(BOX_VERSION) :], strict_mode=True)
            plain = aead.decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], None)
            return plain.decode()
        except (InvalidTag, ValueError) as exc:  # wrong key or damaged: say so, echo nothing
            raise ValueError("stored secret cannot be decrypted with the configured key") from exc


def load_or_create_key(configured: str | None, key_dir: Path) -> str:
    """The configured key, else the one kept in key_dir, else a new one written there."""
    if configured:
        return configured
    path = key_dir / KEY_FILE_NAME
    if path.exists():
        return path.read_text().strip()
    key_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    log.warning("WATCHPOST_SECRET_KEY is not set: generated a new key and kept it at %s", path)
    return key


def random_token(prefix: str, nbytes: int = 32) -> str:
    """A random, URL-safe token with nbytes of entropy behind a readable prefix."""
    return prefix + secrets.token_urlsafe(nbytes)


def hash_token(token: str) -> str:
    """SHA-256 of a high-entropy token: enough, since tokens cannot be guessed."""
    return hashlib.sha256(token.encode()).hexdigest()


_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1


def hash_password(password: str) -> str:
    """A salted scrypt hash of a password people choose (so slow to guess), as text:
    `scrypt$n$r$p$salt$hash`, salt and hash in hex. About 50 ms: run it off the event loop."""
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P)
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    """Whether password is the one hash_password turned into stored."""
    try:
        _, n, r, p, salt, digest = stored.split("$")
        expected = bytes.fromhex(digest)
        got = hashlib.scrypt(
            password.encode(),
            salt=bytes.fromhex(salt),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(expected),
        )
    except ValueError:
        return False
    return secrets.compare_digest(got, expected)
