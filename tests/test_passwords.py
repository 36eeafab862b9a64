"""Sign-in passwords (people/passwords.py): argon2id, checked off the event loop on a pool of
`HASHING_AT_ONCE` threads (each check holds argon2's 64 MiB while it runs), and the dummy hash
an unknown e-mail is checked against is made at the first such check, not at import."""

from __future__ import annotations

import asyncio
import threading
from typing import Literal

import pytest
from argon2 import PasswordHasher

from tests.factories.processes import run_python
from watchpost.people import passwords


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
    assert len(threads) <= passwords.HASHING_AT_ONCE
    assert passwords._HASHING._max_workers == passwords.HASHING_AT_ONCE


def test_the_dummy_is_an_argon2_hash_of_the_hashers_parameters() -> None:
    dummy = passwords._dummy()
    assert not PasswordHasher().check_needs_rehash(dummy)


def test_importing_the_module_makes_no_hash() -> None:
    done = run_python(
        "from watchpost.people import passwords; print(passwords._dummy.cache_info().currsize)"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"
