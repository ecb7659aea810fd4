"""Rating-history charts as inline SVG geometry: no script library, the template draws the lines."""

from __future__ import annotations

from dataclasses import dataclass

WIDTH, HEIGHT, PAD = 320, 120, 8


@dataclass(frozen=True)
class Chart:
    """What ``web/_rating_chart.html`` draws: a mu line, an ordinal (mu - 3 sigma) line, a mu +/-
    sigma band, and the vertical range in rating points for the labels."""

    width: int
    height: int
    mu: str  # SVG polyline points
    ordinal: str
    band: str  # SVG polygon points
    low: float
    high: float
    count: int


def rating_chart(points) -> Chart | None:
    """Geometry for a player's rating after each rated result, starting from the rating before the
    first. ``points`` have ``mu_before``, ``sigma_before``, ``mu``, ``sigma`` (RatingPoint rows).
    None without points: nothing to draw."""
    points = list(points)
    if not points:
        return None
    series = [(points[0].mu_before, points[0].sigma_before)] + [(p.mu, p.sigma) for p in points]
    values = [mu + sigma for mu, sigma in series] + [mu - 3 * sigma for mu, sigma in series]
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = (WIDTH - 2 * PAD) / max(1, len(series) - 1)

    def xy(index: int, value: float) -> str:
        x = PAD + index * step
        y = PAD + (high - value) / span * (HEIGHT - 2 * PAD)
        return f"{x:.1f},{y:.1f}"

    mu_line = " ".join(xy(i, mu) for i, (mu, _) in enumerate(series))
    ordinal_line = " ".join(xy(i, mu - 3 * sigma) for i, (mu, sigma) in enumerate(series))
    upper = [xy(i, mu + sigma) for i, (mu, sigma) in enumerate(series)]
    lower = [xy(i, mu - sigma) for i, (mu, sigma) in enumerate(series)]
    band = " ".join(upper + lower[::-1])
    return Chart(WIDTH, HEIGHT, mu_line, ordinal_line, band, round(low, 1), round(high, 1), len(points))
