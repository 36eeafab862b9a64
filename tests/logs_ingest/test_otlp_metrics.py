"""POST /v1/metrics: OTLP/HTTP metrics become the source's samples in the logs store (both
backends: sources live in the database)."""

from __future__ import annotations

from datetime import timedelta

import httpx
import orjson
from fastapi import FastAPI
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.metrics.v1.metrics_pb2 import (
    Gauge,
    Histogram,
    HistogramDataPoint,
    Metric,
    NumberDataPoint,
    ResourceMetrics,
    ScopeMetrics,
    Summary,
    SummaryDataPoint,
)

from tests.factories.api import Api
from tests.factories.log_ingest import create_source, send
from watchpost.clock import FrozenClock
from watchpost.logs.events import MetricPoint
from watchpost.logs.store import MetricSearch

PROTOBUF = "application/x-protobuf"


def tag(key: str, value: str) -> KeyValue:
    return KeyValue(key=key, value=AnyValue(string_value=value))


def request(nanos: int, old: int) -> ExportMetricsServiceRequest:
    gauge = Metric(
        name="queue.depth",
        gauge=Gauge(
            data_points=[
                NumberDataPoint(time_unix_nano=nanos, as_int=12, attributes=[tag("queue", "a")]),
                NumberDataPoint(time_unix_nano=old, as_double=3.5),
            ]
        ),
    )
    histogram = Metric(
        name="http.duration",
        histogram=Histogram(
            data_points=[HistogramDataPoint(time_unix_nano=nanos, count=4, sum=0.8, max=0.5)]
        ),
    )
    summary = Metric(
        name="gc.pause",
        summary=Summary(
            data_points=[
                SummaryDataPoint(
                    time_unix_nano=nanos,
                    count=2,
                    sum=0.03,
                    quantile_values=[SummaryDataPoint.ValueAtQuantile(quantile=0.99, value=0.02)],
                )
            ]
        ),
    )
    return ExportMetricsServiceRequest(
        resource_metrics=[
            ResourceMetrics(
                resource={"attributes": [tag("service.name", "worker")]},  # type: ignore[arg-type]
                scope_metrics=[ScopeMetrics(metrics=[gauge, histogram, summary])],
            )
        ]
    )


async def samples(app: FastAPI, source_id: int) -> list[MetricPoint]:
    found: list[MetricPoint] = await app.state.ctx.logs.search_metrics(
        MetricSearch(source_ids=[source_id])
    )
    return found


async def test_data_points_become_samples_and_old_ones_a_partial_success(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    source_id, token = await create_source(api, metrics_retention=1)
    nanos = int(clock.now().timestamp() * 1e9)
    old = int((clock.now() - timedelta(days=3)).timestamp() * 1e9)
    body = request(nanos, old).SerializeToString()
    response = await send(client, token, body, PROTOBUF, gzipped=True, path="/v1/metrics")
    assert response.status_code == 200, response.content
    partial = ExportMetricsServiceResponse.FromString(response.content).partial_success
    assert partial.rejected_data_points == 1 and "metrics_retention" in partial.error_message
    found = {
        (s.name, s.value, tuple(sorted(s.tags.items()))) for s in await samples(app, source_id)
    }
    worker = ("service.name", "worker")
    assert found == {
        ("queue.depth", 12.0, (("queue", "a"), worker)),
        ("http.duration_count", 4.0, (worker,)),
        ("http.duration_sum", 0.8, (worker,)),
        ("http.duration_max", 0.5, (worker,)),
        ("gc.pause_count", 2.0, (worker,)),
        ("gc.pause_sum", 0.03, (worker,)),
        ("gc.pause", 0.02, (("quantile", "0.99"), worker)),
    }
    assert all(
        s.dt == clock.now() and s.team_id == api.team_id for s in await samples(app, source_id)
    )


async def test_json_metrics_and_a_paused_source(
    app: FastAPI, api: Api, client: httpx.AsyncClient, clock: FrozenClock
) -> None:
    source_id, token = await create_source(api)
    nanos = str(int(clock.now().timestamp() * 1e9))
    point = {
        "timeUnixNano": nanos,
        "asDouble": 0.25,
        "exemplars": [{"traceId": "5b8efff798038103d269b633813fc60c", "asDouble": 1.0}],
    }
    body = {
        "resourceMetrics": [
            {"scopeMetrics": [{"metrics": [{"name": "cpu", "gauge": {"dataPoints": [point]}}]}]}
        ]
    }
    response = await send(client, token, orjson.dumps(body), path="/v1/metrics")
    assert response.status_code == 200 and response.json() == {}
    assert [(s.name, s.value) for s in await samples(app, source_id)] == [("cpu", 0.25)]

    paused_id, paused = await create_source(api, "paused", ingesting_paused=True)
    response = await send(client, paused, orjson.dumps(body), path="/v1/metrics")
    assert response.json()["partialSuccess"]["rejectedDataPoints"] == "1"
    assert await samples(app, paused_id) == []
    bad = await send(client, token, b"\x0a\xff", PROTOBUF, path="/v1/metrics")
    assert bad.status_code == 400
