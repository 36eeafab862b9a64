"""Secrets: encryption of stored probe credentials, hashing of API tokens."""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import secrets
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken

log = logging.getLogger(__name__)

KEY_FILE_NAME = "secret.key"


class SecretBox:
    """Authenticated symmetric encryption (Fernet) keyed from the configured secret."""

    def __init__(self, secret_key: str) -> None:
        digest = hashlib.sha256(secret_key.encode()).digest()
        self._fernet = Fernet(base64.urlsafe_b64encode(digest))

    def encrypt(self, plaintext: str) -> str:
        return self._fernet.encrypt(plaintext.encode()).decode()

    def decrypt(self, ciphertext: str) -> str:
        try:
            return self._fernet.decrypt(ciphertext.encode()).decode()
        except InvalidToken as exc:  # wrong key: say so without echoing anything secret
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
