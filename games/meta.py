"""A game's ``meta``: checked on the way in (record imports), read defensively on the way out.

``Game.meta`` holds game settings that are not engine config - ``time_control`` and
``spectator_delay_seconds`` (``services.game_create``) - and, on an imported game, the record
header's descriptive fields (``../shared/rules/README.md``: event, date, place, notes). A record
import goes through ``meta_check``: the same validators as game creation, and no other keys, so a
record cannot store a setting the readers choke on. ``meta_readable`` is for readers of a row that
is already stored (by an older version, or by hand): a setting that does not pass the same checks
is left out, and logged, instead of failing the request - one bad row must not take down a list.
"""

from __future__ import annotations

import logging
from datetime import datetime

from . import clocks
from .clocks import CLOCK_STATE  # a bank clock's projection: server working state, not record meta

log = logging.getLogger("kifu.games")

# Descriptive header fields of a record, text of at most this many characters.
RECORD_TEXT = {"event": 200, "date": 100, "place": 200, "notes": 10_000}
SOURCE_ID = "kifu_game_id"  # the id of the game a record was exported from (record_header)
SETTINGS = ("time_control", "spectator_delay_seconds")
# Server bookkeeping a record may carry when it was exported from a server; never imported.
SERVER_ONLY = {CLOCK_STATE, "demo"}


class MetaError(ValueError):
    """A meta value that is not allowed: ``code`` is stable, ``message`` says what is."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _time_control(raw, engine_slug: str) -> dict | None:
    try:
        return clocks.parse_time_control(raw, engine_slug)
    except clocks.TimeControlError as error:
        raise MetaError("bad_time_control", f"meta.time_control: {error.message}") from None


def spectator_delay_check(seconds) -> int:
    """The spectator delay a game may have (game creation, a later change, a record import)."""
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int)
        or not (0 <= seconds <= clocks.MAX_SPECTATOR_DELAY_SECONDS)
    ):
        raise MetaError(
            "bad_spectator_delay",
            f"spectator_delay_seconds is a whole number of seconds from 0 to {clocks.MAX_SPECTATOR_DELAY_SECONDS}",
        )
    return seconds


def _spectator_delay(raw) -> int:
    try:
        return spectator_delay_check(raw)
    except MetaError as error:
        raise MetaError(error.code, f"meta.{error.message}") from None


def meta_check(raw: dict, *, engine_slug: str) -> dict:
    """The meta to store for an imported game, or MetaError naming the first bad key.

    Settings are normalised as game creation normalises them (``on_timeout`` filled in, a zero
    delay left out); server bookkeeping (``clock_state``, ``demo``) is dropped; any other key is
    refused with ``unknown_meta_key``."""
    if not isinstance(raw, dict):
        raise MetaError("bad_meta", '"meta" must be an object')
    unknown = sorted(set(raw) - set(RECORD_TEXT) - {SOURCE_ID, *SETTINGS, *SERVER_ONLY})
    if unknown:
        allowed = ", ".join([*RECORD_TEXT, SOURCE_ID, *SETTINGS])
        raise MetaError(
            "unknown_meta_key", f"unknown meta key(s): {', '.join(unknown)}; a record's meta may have {allowed}"
        )
    meta = {}
    for key, limit in RECORD_TEXT.items():
        if key in raw:
            if not isinstance(raw[key], str) or len(raw[key]) > limit:
                raise MetaError("bad_meta", f"meta.{key} must be text of at most {limit} characters")
            meta[key] = raw[key]
    if SOURCE_ID in raw:
        if not isinstance(raw[SOURCE_ID], str) or not 0 < len(raw[SOURCE_ID]) <= 100:
            raise MetaError("bad_meta", f"meta.{SOURCE_ID} must be text of at most 100 characters")
        meta[SOURCE_ID] = raw[SOURCE_ID]
    if raw.get("time_control") is not None:
        meta["time_control"] = _time_control(raw["time_control"], engine_slug)
    if "spectator_delay_seconds" in raw and _spectator_delay(raw["spectator_delay_seconds"]):
        meta["spectator_delay_seconds"] = raw["spectator_delay_seconds"]
    return meta


def meta_readable(meta, *, engine_slug: str, game_id=None) -> dict:
    """``meta`` as stored, less any setting that fails the checks above (logged): what readers use.

    A valid row comes back equal to itself (so this is cheap to call on every read); a bad
    ``time_control`` takes its ``clock_state`` with it, and a ``clock_state`` that does not load is
    dropped (the clock then shows no seats)."""
    if not isinstance(meta, dict):
        log.warning("game %s: stored meta is not an object; read as {}", game_id)
        return {}
    out = dict(meta)
    if out.get("time_control") is not None:
        try:
            out["time_control"] = _time_control(out["time_control"], engine_slug)
        except MetaError as error:
            log.warning("game %s: stored meta.time_control ignored: %s", game_id, error.message)
            out.pop("time_control")
            out.pop(CLOCK_STATE, None)
    if "spectator_delay_seconds" in out:
        try:
            _spectator_delay(out["spectator_delay_seconds"])
        except MetaError as error:
            log.warning("game %s: stored meta.spectator_delay_seconds ignored: %s", game_id, error.message)
            out.pop("spectator_delay_seconds")
    if CLOCK_STATE in out and not _bank_loads(out[CLOCK_STATE], "bank_seconds" in (out.get("time_control") or {})):
        log.warning("game %s: stored meta.clock_state ignored: it does not load", game_id)
        out.pop(CLOCK_STATE)
    return out


def _bank_loads(data, banked: bool) -> bool:
    if not banked:
        return False
    try:
        bank = clocks.Bank.from_json(data)
        return isinstance(bank.mark, datetime) and all(isinstance(ms, int | float) for ms in bank.remaining_ms)
    except (TypeError, KeyError, ValueError, AttributeError):
        return False
