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


# ---- standings by round --------------------------------------------------------------------------
ROUND_WIDTH, ROUND_HEIGHT = 360, 200  # fits a 390-px phone (the page's margins included), scales up
ROUND_LEFT, ROUND_RIGHT, ROUND_TOP, ROUND_BOTTOM = 34, 10, 10, 30
MAX_LINES = 8  # the leaders' lines; more are unreadable on a phone (the table below has everyone)
SERIES_CLASSES = 8  # line colours series-0 .. series-7 in kifu.css, each with enough contrast on white


@dataclass(frozen=True)
class Line:
    name: str
    css: str  # series-k: its colour
    points: str  # SVG polyline points
    markers: tuple[Marker, ...]
    final: str  # the last value, for the legend


@dataclass(frozen=True)
class RoundChart:
    """What ``web/_standings_chart.html`` draws: one line per leading player of cumulative points
    after each round, round labels along the bottom, point ticks on the left, a marker per round
    whose ``<title>`` gives the player, round, points and place."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    rounds: int
    players: int  # how many players the event has (the chart shows the first MAX_LINES)
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    lines: tuple[Line, ...]


def _place_after(totals: dict[str, list[float]], index: int) -> dict[str, int]:
    """Places by points after round ``index + 1`` (tied players share the place)."""
    values = sorted((series[index] for series in totals.values()), reverse=True)
    return {name: values.index(series[index]) + 1 for name, series in totals.items()}


def standings_chart(per_round: dict[str, list[float]], *, points_text=str) -> RoundChart | None:
    """Geometry for cumulative points after each round. ``per_round`` maps a player's name to the
    points they took in rounds 1, 2, ... (0 for a round without a result), in the event's standings
    order; the first ``MAX_LINES`` are drawn. None before any round has a result."""
    rounds = max((len(values) for values in per_round.values()), default=0)
    if rounds == 0 or not any(any(values) for values in per_round.values()):
        return None
    totals = {}
    for name, values in per_round.items():
        running, series = 0.0, []
        for value in list(values) + [0.0] * (rounds - len(values)):
            running += value
            series.append(running)
        totals[name] = series
    high_value = max(max(series) for series in totals.values())
    low_value = min(0.0, min(min(series) for series in totals.values()))
    step = nice_step((high_value - low_value) or 1.0, Y_TICKS - 1)
    low, high = math.floor(low_value / step) * step, math.ceil(high_value / step) * step
    if high == low:
        high = low + step
    right, bottom = ROUND_WIDTH - ROUND_RIGHT, ROUND_HEIGHT - ROUND_BOTTOM

    def x_of(number: int) -> float:  # round 0 (the start) at the left edge
        return ROUND_LEFT + number / rounds * (right - ROUND_LEFT)

    def y_of(value: float) -> float:
        return ROUND_TOP + (high - value) / (high - low) * (bottom - ROUND_TOP)

    places = [_place_after(totals, index) for index in range(rounds)]
    lines = []
    for k, (name, series) in enumerate(list(totals.items())[:MAX_LINES]):
        path = [(x_of(0), y_of(0.0))] + [(x_of(i + 1), y_of(v)) for i, v in enumerate(series)]
        markers = tuple(
            Marker(
                round(x_of(i + 1), 1),
                round(y_of(v), 1),
                _("%(name)s, round %(round)s: %(points)s points, place %(place)s")
                % {"name": name, "round": i + 1, "points": points_text(v), "place": places[i][name]},
            )
            for i, v in enumerate(series)
        )
        lines.append(
            Line(
                name,
                f"series-{k % SERIES_CLASSES}",
                " ".join(f"{x:.1f},{y:.1f}" for x, y in path),
                markers,
                points_text(series[-1]),
            )
        )
    y_ticks = tuple(
        Tick(round(y_of(low + k * step), 1), points_text(round(low + k * step, 9)))
        for k in range(round((high - low) / step) + 1)
    )
    every = max(1, math.ceil(rounds / 12))  # at most a dozen round labels
    x_ticks = tuple(
        Tick(round(x_of(n), 1), _("R%(round)s") % {"round": n})
        for n in range(1, rounds + 1)
        if n % every == 0 or n == 1
    )
    return RoundChart(
        ROUND_WIDTH, ROUND_HEIGHT, ROUND_LEFT, right, ROUND_TOP, bottom, rounds, len(per_round),
        y_ticks, x_ticks, tuple(lines),
    )  # fmt: skip
