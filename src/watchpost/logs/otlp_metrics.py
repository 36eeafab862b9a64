"""OpenTelemetry metrics over OTLP/HTTP: an ExportMetricsServiceRequest (protobuf or JSON)
turned into metric samples of the logs store.

Each data point becomes samples named after its metric: a gauge's or sum's point one sample
(its value); a histogram's or exponential histogram's `<name>_count`, `<name>_sum`,
`<name>_min`, `<name>_max` (those it carries); a summary's `<name>_count`, `<name>_sum` and
one `<name>` sample per quantile, tagged `quantile`. Tags are the resource's attributes,
then the point's (dotted paths, values as text, as log attributes are flattened). The time is
the point's `time_unix_nano`, else the time of receipt. Exemplars are not kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)

from watchpost.logs.events import MetricPoint
from watchpost.logs.otlp import attributes, decode, export_answer, nanos_time
from watchpost.logs.parsing import MAX_EVENTS, Unparseable, flatten, within_reach


def decode_request(data: bytes, kind: str) -> ExportMetricsServiceRequest:
    """The request message; Unparseable when the body is not one."""
    return decode(data, kind, ExportMetricsServiceRequest(), _drop_exemplars)


def _drop_exemplars(value: Any) -> None:
    """Exemplars carry hex trace ids protobuf's JSON mapping cannot read, and are not kept."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            item.pop("exemplars", None)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _samples(metric: Any) -> Iterator[tuple[Any, str, float, dict[str, str]]]:
    """(point, name, value, extra tags) of one metric."""
    name = metric.name
    kind = metric.WhichOneof("data")
    if kind in ("gauge", "sum"):
        for point in getattr(metric, kind).data_points:
            which = point.WhichOneof("value")
            value = point.as_double if which == "as_double" else float(point.as_int)
            yield point, name, value, {}
    elif kind in ("histogram", "exponential_histogram"):
        for point in getattr(metric, kind).data_points:
            yield point, f"{name}_count", float(point.count), {}
            for part in ("sum", "min", "max"):
                if point.HasField(part):
                    yield point, f"{name}_{part}", getattr(point, part), {}
    elif kind == "summary":
        for point in metric.summary.data_points:
            yield point, f"{name}_count", float(point.count), {}
            yield point, f"{name}_sum", point.sum, {}
            for quantile in point.quantile_values:
                yield point, name, quantile.value, {"quantile": repr(quantile.quantile)}


def build_points(
    request: ExportMetricsServiceRequest,
    *,
    source_id: int,
    team_id: int,
    received: datetime,
    oldest: datetime | None = None,
) -> tuple[list[MetricPoint], int, int]:
    """(samples, data points read, data points dropped as older than `oldest`)."""
    samples: list[MetricPoint] = []
    seen = dropped = 0
    last: Any = None  # the point of the last sample (kept: `is` compares live objects)
    for resource_metrics in request.resource_metrics:
        resource = flatten(attributes(resource_metrics.resource.attributes))
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                for point, name, value, extra in _samples(metric):
                    dt = within_reach(nanos_time(point.time_unix_nano), received)
                    too_old = oldest is not None and dt < oldest
                    if point is not last:
                        last = point
                        seen += 1
                        dropped += too_old
                    if too_old:
                        continue
                    if len(samples) >= MAX_EVENTS:
                        raise Unparseable(f"a request holds at most {MAX_EVENTS} samples")
                    tags = {**resource, **flatten(attributes(point.attributes)), **extra}
                    samples.append(
                        MetricPoint(
                            source_id=source_id,
                            team_id=team_id,
                            dt=dt,
                            name=name,
                            value=float(value),
                            tags=tags,
                        )
                    )
    return samples, seen, dropped


def success(kind: str, rejected: int = 0, message: str = "") -> tuple[bytes, str]:
    """An ExportMetricsServiceResponse: full success, or partial with `rejected` points."""
    return export_answer(
        ExportMetricsServiceResponse(), "rejected_data_points", kind, rejected, message
    )
