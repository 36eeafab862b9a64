"""Sign-in passwords (people/passwords.py): argon2id, checked off the event loop on a pool of
`crypto.HASHING_AT_ONCE` threads (each check holds argon2's 64 MiB while it runs), and the dummy
hash an unknown e-mail is checked against is made at the first such check, not at import.
Status page passwords (scrypt, 16 MiB a check) are hashed and checked on the same threads."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any, Literal, cast

import pytest
from argon2 import PasswordHasher

from tests.factories.processes import run_python
from watchpost import crypto
from watchpost.context import AppContext
from watchpost.crypto import on_hashing_thread
from watchpost.people import passwords
from watchpost.public_pages import access, sessions
from watchpost.status_pages.models import StatusPage

WORDS = ["open sesame", "open sesame!", "", "open sesame"]


class Recording(PasswordHasher):
    """argon2-cffi's hasher, noting the threads its checks run on."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: set[str] = set()

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        self.threads.add(threading.current_thread().name)
        return super().verify(hash, password)


async def test_hashes_and_checks_run_on_the_pool_and_answer_right(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stored = await passwords.hash_password("correct horse battery")
    assert stored.startswith("$argon2id$")
    hasher = Recording()
    monkeypatch.setattr(passwords, "_HASHER", hasher)
    answers = await asyncio.gather(
        passwords.verify(stored, "correct horse battery"),
        passwords.verify(stored, "wrong horse battery"),
        passwords.verify(None, "correct horse battery"),  # nobody's: the dummy
        passwords.verify(stored, "correct horse battery"),
        passwords.verify("not a hash", "correct horse battery"),
    )
    threads = hasher.threads
    assert list(answers) == [True, False, False, True, False]
    assert threads and all(name.startswith("password-hash") for name in threads)
    assert len(threads) <= crypto.HASHING_AT_ONCE
    assert crypto._HASHING._max_workers == crypto.HASHING_AT_ONCE


async def test_status_page_passwords_use_the_same_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    threads: set[str] = set()

    def recording(work: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            threads.add(threading.current_thread().name)
            return work(*args)

        return run

    monkeypatch.setattr(crypto, "hash_password", recording(crypto.hash_password))
    monkeypatch.setattr(sessions, "password_matches", recording(sessions.password_matches))
    stored = await on_hashing_thread(crypto.hash_password, "open sesame")
    page = StatusPage(password_hash=stored)
    answers = await asyncio.gather(
        *(access.check_password_off_loop(page, word, cast(AppContext, None)) for word in WORDS)
    )
    assert list(answers) == [word == "open sesame" for word in WORDS]
    assert threads and all(name.startswith("password-hash") for name in threads)


def test_the_dummy_is_an_argon2_hash_of_the_hashers_parameters() -> None:
    dummy = passwords._dummy()
    assert not PasswordHasher().check_needs_rehash(dummy)


def test_importing_the_module_makes_no_hash() -> None:
    done = run_python(
        "from watchpost.people import passwords; print(passwords._dummy.cache_info().currsize)"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"
