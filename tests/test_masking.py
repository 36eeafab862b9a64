"""One masking rule for URLs in log lines and error texts: no user-info (user name and
password), no query value; and a monitor whose URL carries credentials logs neither, from its
check to its incident."""

from __future__ import annotations

import logging

import pytest
from fastapi import FastAPI

from tests.factories.api import Api
from tests.factories.engine import engine_of, recording_server
from tests.factories.monitors import create_monitor
from watchpost.delivery.sending import Outcome
from watchpost.masking import install, mask_url, mask_urls
from watchpost.probes.base import ProbeResult
from watchpost.probes.errors import scrub


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        ("http://bob:PASSWORD@host/x?token=TOKEN", "http://***@host/x?token=***"),
        ("https://host/x", "https://host/x"),
        ("https://TOKEN@host/x", "https://***@host/x"),  # a user name alone may be a token
        ("https://bob:@host/", "https://***@host/"),
        ("http://bob:p%40ss%3A@[::1]:8080/a?b=%26c&d=1", "http://***@[::1]:8080/a?b=***&d=***"),
        ("http://[2001:db8::1]/x?t=1#frag", "http://[2001:db8::1]/x?t=***#***"),
        ("http://host/x#access_token=abc&state=1", "http://host/x#access_token=***&state=***"),
        ("http://host/a@b/c?x=y@z", "http://host/a@b/c?x=***"),  # `@` past the host
        ("http://u:p@w@host?", "http://***@host?"),  # the last `@` ends the user-info
        ("http://host/?flag&k=", "http://host/?***&k=***"),
        ("http://host/?&&", "http://host/?&&"),
        ("host:5432", "host:5432"),
        ("not a url", "not a url"),
    ],
)
def test_mask_url(url: str, masked: str) -> None:
    assert mask_url(url) == masked


def test_mask_urls_masks_every_url_in_a_text_and_nothing_else() -> None:
    text = (
        "GET 'http://a:SECRET1@x.example/p?k=SECRET2' failed, redirected to "
        "<https://y.example/q?sig=SECRET3> (see json://u:SECRET4@hook.example/)"
    )
    masked = mask_urls(text)
    assert masked == (
        "GET 'http://***@x.example/p?k=***' failed, redirected to "
        "<https://y.example/q?sig=***> (see json://***@hook.example/)"
    )
    assert mask_urls("a=1&b=2 host:80") == "a=1&b=2 host:80"


def test_probe_and_delivery_errors_and_scrubbed_texts_are_masked() -> None:
    result = ProbeResult(ok=False, latency_ms=1.0, error="at http://u:SECRET@h/?t=SECRET")
    assert result.error == "at http://***@h/?t=***"
    outcome = Outcome(error="sending failed: ClientError: http://u:SECRET@h/?t=SECRET")
    assert outcome.error == "sending failed: ClientError: http://***@h/?t=***"
    assert scrub("key K1 for http://h/?t=SECRET", ("K1",)) == "key *** for http://h/?t=***"


def test_every_record_of_the_process_masks_its_urls(caplog: pytest.LogCaptureFixture) -> None:
    install()  # as the app and the command line do; a second call changes nothing
    install()
    caplog.set_level(logging.INFO)
    try:
        raise ValueError("cannot open http://u:SECRET@h/?t=SECRET")
    except ValueError:
        # A library's logger, which no filter of ours is on.
        logging.getLogger("some.library").exception("%s at %s", "http://h/?t=SECRET", 3)
    (record,) = caplog.records
    text = logging.Formatter().format(record)
    assert "SECRET" not in text and "http://h/?t=*** at 3" in text
    assert "cannot open http://***@h/?t=***" in text


async def test_a_monitor_url_with_credentials_reaches_no_log_line(
    app: FastAPI, api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    password, token = "Pw-mask-0c7e", "Tk-mask-51ab"
    caplog.set_level(logging.DEBUG)
    async with recording_server() as server:
        path = f"/x?token={token}"
        server.status[path] = 503
        url = server.url(path).replace("://", f"://bob:{password}@")
        await create_monitor(
            api, url=url, check_frequency=60, confirmation_period=0, recovery_period=0
        )
        report = await engine_of(app).tick()
        assert report.applied == 1 and server.hits[path] == 1
    server_lines = [r.getMessage() for r in caplog.records if r.name.startswith("watchpost")]
    started = [line for line in server_lines if " started " in line]
    assert started == [
        f"incident 1 started (monitor 1): http://***@127.0.0.1:{server.port}/x?token=***"
    ]
    assert not [line for line in caplog.text.splitlines() if password in line or token in line]
