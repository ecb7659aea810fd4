"""Rating-history charts as inline SVG geometry: no script library, the template draws the lines,
the axes (rating ticks on the left, dates along the bottom) and a marker per rated result whose
``<title>`` is what a pointer hovering over it shows."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone
from django.utils.translation import gettext as _

WIDTH, HEIGHT = 420, 190
LEFT, RIGHT, TOP, BOTTOM = 40, 12, 10, 26  # margins: rating labels left, date labels below
Y_TICKS, X_TICKS = 5, 4


@dataclass(frozen=True)
class Tick:
    at: float  # x or y in the SVG
    label: str


@dataclass(frozen=True)
class Marker:
    x: float
    y: float
    title: str  # the hover text: date, mu and sigma, ordinal


@dataclass(frozen=True)
class Chart:
    """What ``web/_rating_chart.html`` draws: a mu line, an ordinal (mu - 3 sigma) line, a mu +/-
    sigma band inside the plot box (``left``..``right``, ``top``..``bottom``), rating ticks, date
    ticks and one marker per rated result; ``low``..``high`` is the rating range of the axis."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    mu: str  # SVG polyline points
    ordinal: str
    band: str  # SVG polygon points
    low: float
    high: float
    count: int
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    markers: tuple[Marker, ...]


def nice_step(span: float, count: int) -> float:
    """A round tick spacing (1, 2 or 5 times a power of ten) giving about ``count`` intervals over
    ``span`` (Heckbert, "Nice numbers for graph labels", Graphics Gems, 1990). Ten lines of
    arithmetic, so written here rather than pulling in a plotting library for its tick locator."""
    raw = span / max(1, count)
    magnitude = 10 ** math.floor(math.log10(raw))
    fraction = raw / magnitude  # 1 <= fraction < 10
    factor = 1 if fraction < 1.5 else 2 if fraction < 3 else 5 if fraction < 7 else 10
    return factor * magnitude


def _number(value: float, step: float) -> str:
    decimals = max(0, -math.floor(math.log10(step))) if step < 1 else 0
    return f"{value:.{decimals}f}"


def _date_label(moment: datetime, span_seconds: float) -> str:
    local = timezone.localtime(moment)
    return local.strftime("%Y-%m-%d") if span_seconds >= 2 * 86400 else local.strftime("%m-%d %H:%M")


def rating_chart(points) -> Chart | None:
    """Geometry for a player's rating after each rated result, starting from the rating before the
    first. ``points`` have ``at``, ``mu_before``, ``sigma_before``, ``mu``, ``sigma``, ``ordinal``
    (RatingPoint rows), oldest first. x is time (by result order when all share one moment), y the
    rating on an axis widened to round ticks. None without points: nothing to draw."""
    points = list(points)
    if not points:
        return None
    series = [(points[0].mu_before, points[0].sigma_before)] + [(p.mu, p.sigma) for p in points]
    values = [mu + sigma for mu, sigma in series] + [mu - 3 * sigma for mu, sigma in series]
    step = nice_step((max(values) - min(values)) or 1.0, Y_TICKS - 1)
    low, high = math.floor(min(values) / step) * step, math.ceil(max(values) / step) * step
    if high == low:  # a flat history: draw it across the middle
        low, high = low - 2 * step, high + 2 * step
    right, bottom = WIDTH - RIGHT, HEIGHT - BOTTOM

    times = [points[0].at] + [p.at for p in points]
    first, last = times[0], times[-1]
    span_seconds = (last - first).total_seconds()

    def x_of(index: int) -> float:
        if span_seconds > 0:
            return LEFT + (times[index] - first).total_seconds() / span_seconds * (right - LEFT)
        return LEFT + index / max(1, len(series) - 1) * (right - LEFT)

    def y_of(value: float) -> float:
        return TOP + (high - value) / (high - low) * (bottom - TOP)

    def xy(index: int, value: float) -> str:
        return f"{x_of(index):.1f},{y_of(value):.1f}"

    mu_line = " ".join(xy(i, mu) for i, (mu, _) in enumerate(series))
    ordinal_line = " ".join(xy(i, mu - 3 * sigma) for i, (mu, sigma) in enumerate(series))
    upper = [xy(i, mu + sigma) for i, (mu, sigma) in enumerate(series)]
    lower = [xy(i, mu - sigma) for i, (mu, sigma) in enumerate(series)]
    band = " ".join(upper + lower[::-1])

    y_ticks = tuple(
        Tick(round(y_of(low + k * step), 1), _number(low + k * step, step))
        for k in range(round((high - low) / step) + 1)
    )
    if span_seconds > 0:
        moments = [first + (last - first) * k / (X_TICKS - 1) for k in range(X_TICKS)]
        x_ticks = tuple(
            Tick(round(LEFT + k / (X_TICKS - 1) * (right - LEFT), 1), _date_label(moment, span_seconds))
            for k, moment in enumerate(moments)
        )
    else:
        x_ticks = (Tick(float(LEFT), _date_label(first, 0)),)
    markers = tuple(
        Marker(
            round(x_of(i + 1), 1),
            round(y_of(point.mu), 1),
            f"{timezone.localtime(point.at):%Y-%m-%d %H:%M}: "
            f"μ {point.mu:.2f} ± {point.sigma:.2f}, {_('ordinal')} {point.ordinal:.2f}",
        )
        for i, point in enumerate(points)
    )
    return Chart(
        WIDTH, HEIGHT, LEFT, right, TOP, bottom, mu_line, ordinal_line, band, low, high, len(points),
        y_ticks, x_ticks, markers,
    )  # fmt: skip
