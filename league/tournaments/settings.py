"""Tournament settings: which options each format takes, their defaults, and their validation
(seats checked against the engine's player counts, placement points, match boards, deadlines, late
entries, check-in, bot accounts, bracket options). Pure checks; every refusal is a ServiceError."""

from __future__ import annotations

import math

from games.services import ServiceError

from ..models import Tournament
from ..scoring.placements import place_points
from ..scoring.reports import ReportError, check_confirm_hours, check_mode
from ..services.matches import check_spec

Format = Tournament.Format
ELIMINATION = (Format.SINGLE_ELIMINATION, Format.DOUBLE_ELIMINATION, Format.GROUPS_PLAYOFF)
SWISS_FORMATS = (Format.SWISS, Format.MULTI_SWISS)
MAX_TABLE = 6
MAX_DEADLINE_SECONDS = 90 * 24 * 3600
SETTINGS = {
    "seats": (Format.MULTI_SWISS,),
    "placement_points": (Format.MULTI_SWISS,),
    "bye_points": (Format.MULTI_SWISS,),
    "match": tuple(Format.values),
    "round_deadline_seconds": tuple(Format.values),
    "check_in": tuple(Format.values),
    "allow_bots": tuple(Format.values),
    "late_entry_until_round": SWISS_FORMATS,
    "late_entry_points": SWISS_FORMATS,
    "third_place": (Format.SINGLE_ELIMINATION, Format.GROUPS_PLAYOFF),
    "grand_final_reset": (Format.DOUBLE_ELIMINATION,),
    "groups": (Format.GROUPS_PLAYOFF,),
    "advance": (Format.GROUPS_PLAYOFF,),
    "seeding": tuple(Format.values),
    "mature": tuple(Format.values),
    "results": tuple(Format.values),
    "report_confirm_hours": tuple(Format.values),
}
SEEDING = ("entry", "rating", "random")


def whole(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def check_settings(format: str, game, raw) -> dict:
    """The validated settings of a tournament of ``format`` of the engine ``game`` (defaults filled in)."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ServiceError("invalid_settings", "settings is a JSON object")
    for key in raw:
        if key not in SETTINGS:
            raise ServiceError("invalid_settings", f"unknown setting {key!r}; known: {', '.join(sorted(SETTINGS))}")
        if format not in SETTINGS[key]:
            raise ServiceError(
                "invalid_settings", f"{key} applies to {', '.join(SETTINGS[key])} tournaments, not {format}"
            )
    out: dict = {}
    for flag in ("check_in", "allow_bots", "third_place", "grand_final_reset"):
        value = raw.get(flag, flag == "grand_final_reset")
        if not isinstance(value, bool):
            raise ServiceError("invalid_settings", f"{flag} is true or false")
        if flag in raw or format in SETTINGS[flag]:
            out[flag] = value
    if "mature" in raw:
        if not isinstance(raw["mature"], bool):
            raise ServiceError("invalid_settings", "mature is true or false")
        if raw["mature"]:
            out["mature"] = True
    if "seeding" in raw:
        if raw["seeding"] not in SEEDING:
            raise ServiceError(
                "invalid_settings",
                'seeding is "entry" (entry order), "rating" (the club\'s rating ladder) or "random" (a draw)',
            )
        out["seeding"] = raw["seeding"]
    if "match" in raw:
        out["match"] = check_spec(game.slug, raw["match"])
    try:
        if "results" in raw:
            out["results"] = check_mode(raw["results"])
        if "report_confirm_hours" in raw:
            out["report_confirm_hours"] = check_confirm_hours(raw["report_confirm_hours"])
    except ReportError as error:
        raise ServiceError("invalid_settings", error.message) from None
    if "round_deadline_seconds" in raw:
        if not whole(raw["round_deadline_seconds"], 10, MAX_DEADLINE_SECONDS):
            raise ServiceError(
                "invalid_settings", f"round_deadline_seconds is a whole number from 10 to {MAX_DEADLINE_SECONDS}"
            )
        out["round_deadline_seconds"] = raw["round_deadline_seconds"]
    if "late_entry_until_round" in raw:
        if not whole(raw["late_entry_until_round"], 2, 100):
            raise ServiceError(
                "invalid_settings", "late_entry_until_round is the last round a late entry joins (2-100)"
            )
        out["late_entry_until_round"] = raw["late_entry_until_round"]
        points = raw.get("late_entry_points", 0)
        if not _number(points) or points < 0:
            raise ServiceError("invalid_settings", "late_entry_points is the points (0 or more) per missed round")
        out["late_entry_points"] = float(points)
    elif "late_entry_points" in raw:
        raise ServiceError("invalid_settings", "late_entry_points needs late_entry_until_round")
    if format == Format.MULTI_SWISS:
        out.update(table_settings(game, raw))
    if format == Format.GROUPS_PLAYOFF:
        for key, default in (("groups", 2), ("advance", 2)):
            value = raw.get(key, default)
            if not whole(value, 1, 64):
                raise ServiceError("invalid_settings", f"{key} is a whole number from 1 to 64")
            out[key] = value
        if out["groups"] * out["advance"] < 2:
            raise ServiceError("invalid_settings", "groups x advance must send at least two players to the playoff")
    return out


def table_settings(game, raw: dict) -> dict:
    """Seats, placement points and bye points of multiplayer tables, checked against the engine: a
    multiplayer Swiss's, and a multiplayer seasonal league's (``league.seasons.services``)."""
    low, high = max(game.min_seats, 3), min(game.max_seats, MAX_TABLE)
    if high < low:
        raise ServiceError(
            "bad_seat_count", f"{game.name} is played by {game.min_seats}-{game.max_seats}; use the swiss format"
        )
    seats = raw.get("seats", {})
    if not isinstance(seats, dict) or set(seats) - {"preferred", "min", "max"}:
        raise ServiceError("invalid_seats", 'seats is {"preferred": n, "min": n, "max": n}')
    for value in seats.values():
        if not whole(value, low, high):
            raise ServiceError(
                "invalid_seats", f"{game.name} tables seat {low}-{high} players here; seats must lie in that range"
            )
    preferred = seats.get("preferred", max(min(4, high, seats.get("max", high)), seats.get("min", low)))
    smallest = seats.get("min", low)
    largest = seats.get("max", max(preferred, smallest))
    if not smallest <= preferred <= largest:
        raise ServiceError("invalid_seats", "seats must satisfy min <= preferred <= max")
    out = {"seats": {"preferred": preferred, "min": smallest, "max": largest}}
    table = raw.get("placement_points")
    if table is not None:
        if (
            not isinstance(table, list)
            or len(table) < largest
            or not all(_number(v) and v >= 0 for v in table)
            or any(a < b for a, b in zip(table, table[1:], strict=False))
        ):
            raise ServiceError(
                "invalid_placement_points",
                f"placement_points lists the points of places 1, 2, ... (at least {largest} numbers, never rising)",
            )
        out["placement_points"] = [float(v) for v in table]
    values = place_points(preferred, out.get("placement_points"))
    bye = raw.get("bye_points", sum(values) / len(values))
    if not _number(bye) or bye < 0:
        raise ServiceError("invalid_settings", "bye_points is a number (0 or more)")
    out["bye_points"] = float(bye)
    return out
