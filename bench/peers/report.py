"""The peer benchmark's figures and how they are printed: each round's figures, the ratios
of each Watchpost side to the peer in the same round, and the medians (no I/O, no timing)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    fmt: str = "{:,.1f}"
    """How one value prints; ratios print with two decimals whatever this says."""
    compared: bool = True
    """Whether the ratios table has a column for it (not for counts of errors)."""


@dataclass
class Measurement:
    """One side's figures in one round of one part."""

    part: str
    side: str
    round: int
    figures: dict[str, float] = field(default_factory=dict)
    note: str = ""


def show(metric: Metric, value: float | None) -> str:
    if value is None or value != value:  # missing or NaN
        return "-"
    return metric.fmt.format(value)


def ratio(ours: float | None, theirs: float | None) -> float | None:
    """ours / theirs, or None when either is missing or theirs is 0."""
    if ours is None or theirs is None or not theirs or ours != ours or theirs != theirs:
        return None
    return ours / theirs


def median(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None and v == v]
    return statistics.median(present) if present else None


def row(m: Measurement, metrics: Sequence[Metric]) -> str:
    cells = " | ".join(show(metric, m.figures.get(metric.key)) for metric in metrics)
    return f"| {m.round} | {m.side} | {cells} | {m.note} |"


def rounds_table(measurements: Sequence[Measurement], metrics: Sequence[Metric]) -> str:
    """Every measurement as it was taken, in order."""
    head = "| round | side | " + " | ".join(m.label for m in metrics) + " | note |"
    lines = [head, "|---|---|" + "---:|" * len(metrics) + "---|"]
    lines += [row(m, metrics) for m in measurements]
    return "\n".join(lines)


def ratios_table(
    measurements: Sequence[Measurement], metrics: Sequence[Metric], ours: str, peer: str
) -> str:
    """Per round: ours / peer for each metric, then the median of those ratios."""
    rounds = sorted({m.round for m in measurements})
    metrics = [m for m in metrics if m.compared]
    head = "| round | " + " | ".join(f"{m.label} ratio" for m in metrics) + " |"
    lines = [f"{ours} / {peer}, same round:", "", head, "|---|" + "---:|" * len(metrics)]
    per_metric: dict[str, list[float | None]] = {m.key: [] for m in metrics}
    for r in rounds:
        a = next((m for m in measurements if m.round == r and m.side == ours), None)
        b = next((m for m in measurements if m.round == r and m.side == peer), None)
        cells = []
        for metric in metrics:
            value = ratio(
                a.figures.get(metric.key) if a else None, b.figures.get(metric.key) if b else None
            )
            per_metric[metric.key].append(value)
            cells.append("-" if value is None else f"{value:.2f}")
        lines.append(f"| {r} | " + " | ".join(cells) + " |")
    medians = [median(per_metric[m.key]) for m in metrics]
    lines.append(
        "| median | " + " | ".join("-" if v is None else f"**{v:.2f}**" for v in medians) + " |"
    )
    return "\n".join(lines)


def medians_table(measurements: Sequence[Measurement], metrics: Sequence[Metric]) -> str:
    """Each side's median of each metric over the rounds."""
    sides = list(dict.fromkeys(m.side for m in measurements))
    lines = [
        "| side (median of rounds) | " + " | ".join(m.label for m in metrics) + " |",
        "|---|" + "---:|" * len(metrics),
    ]
    for side in sides:
        mine = [m for m in measurements if m.side == side]
        cells = [
            show(metric, median([m.figures.get(metric.key) for m in mine])) for metric in metrics
        ]
        lines.append(f"| {side} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def part_report(
    title: str,
    measurements: Sequence[Measurement],
    metrics: Sequence[Metric],
    ours: Sequence[str],
    peer: str,
) -> str:
    """The whole printout of one part: rounds, medians, and each of ours against the peer."""
    parts = [f"### {title}", "", rounds_table(measurements, metrics), ""]
    parts += [medians_table(measurements, metrics), ""]
    for side in ours:
        if any(m.side == side for m in measurements) and any(m.side == peer for m in measurements):
            parts += [ratios_table(measurements, metrics, side, peer), ""]
    return "\n".join(parts)


def order(sides: Sequence[str], round_: int) -> list[str]:
    """The sides of a round, reversed every other round so neither always goes first."""
    return list(sides) if round_ % 2 else list(reversed(sides))
