"""A webhook's delivery log in the console unfolds each delivery to its attempts (a
<details> per delivery, no JavaScript): newest first, each with its time, status code or
error, duration, response excerpt (escaped) and the next retry it scheduled; the attempts of
the page's deliveries are read in one statement. The delivery's own row keeps its state,
next retry and Retry button; a viewer sees the same log."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy import event

from tests.console.team_support import person
from tests.factories.api import Api
from tests.factories.delivery import (
    Answer,
    advance,
    configure,
    create_webhook,
    deliverer_of,
    deliveries,
    receiver,
)
from tests.factories.incidents import create_reported_incident
from watchpost.console.web import exact


async def test_each_delivery_unfolds_to_its_attempts(app: FastAPI, api: Api) -> None:
    configure(app, delivery_retry_delays="0,60,60")
    async with receiver() as hook:
        hook.answer("/hook", Answer(500, body="<b>down</b>"), Answer(500, body="again"))
        webhook = await create_webhook(api, hook.url())
        for n in range(3):
            await create_reported_incident(api, name=f"Incident {n}")
        worker = deliverer_of(app)
        first_at = app.state.ctx.clock.now()
        await worker.tick()  # three deliveries: two fail, one succeeds
        advance(app, 70)
        await worker.tick()  # the two failed ones again: both succeed now
        failed_first = [d for d in await deliveries(app) if d.attempts == 2]
    assert len(failed_first) == 2
    statements: list[str] = []
    engine = app.state.ctx.db.engine.sync_engine

    def note(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        statements.append(statement)

    async with person(app, "vera@example.com", "viewer") as (vera, _):
        event.listen(engine, "before_cursor_execute", note)
        try:
            page = await vera.get(f"/webhooks/{webhook['id']}")
        finally:
            event.remove(engine, "before_cursor_execute", note)
    assert page.status_code == 200
    assert len([s for s in statements if "delivery_attempts" in s]) == 1
    text = page.text
    assert text.count('<details class="attempts"') == 3
    assert text.count("<summary>2 attempts") == 2 and text.count("<summary>1 attempt<") == 1
    one = failed_first[0]
    block = text[text.index(f'id="attempts-{one.id}"') :]
    block = block[: block.index("</details>")]
    assert block.index("Attempt 2") < block.index("Attempt 1")  # newest first
    assert "HTTP 200" in block and "HTTP 500" in block
    assert f'<time datetime="{first_at.isoformat().replace("+00:00", "Z")}">' in block
    assert exact(first_at) in block
    assert one.last_attempt_at is not None and exact(one.last_attempt_at) in block
    assert " ms</span>" in block
    # The first attempt scheduled the second about a minute later; the second ended it.
    assert block.count("Next retry:</span> <time") == 1
    assert "Next retry:</span> none" in block
    assert "&lt;b&gt;down&lt;/b&gt;" in text and "<b>down</b>" not in text
    # The delivery rows themselves are as before: delivered, two attempts.
    assert text.count("(2 attempts)") == 2
