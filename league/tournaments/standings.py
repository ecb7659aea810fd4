"""Tournament standings from the boards: two-player results (``scoring.standings``), multiplayer
tables (``scoring.placements``) and elimination placements (``bracket_state``). Reads the database
only (and fills the standings cache)."""

from __future__ import annotations

import hashlib
import logging
import uuid
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Max

from ..models import Tournament, TournamentBoard
from ..scoring import placements as table_rules
from ..scoring import standings as tiebreak_rules
from ..scoring.standings import Row
from .boards import missed_rounds
from .bracket_state import final_placements

logger = logging.getLogger(__name__)
Format = Tournament.Format
DOUBLE_FORFEIT = TournamentBoard.Decided.DOUBLE_FORFEIT


@dataclass(frozen=True)
class _Entrant:
    user_id: int
    username: str
    number: int
    status: str


@dataclass(frozen=True)
class _Board:
    """The fields of a finished board that standings read (loaded as values, not model objects:
    a 1,000-player Swiss has 3,500 boards and building models cost more than the maths)."""

    players: list
    first_id: int
    second_id: int | None
    decided_by: str
    score_first: float | None
    games_first: float
    games_second: float
    points: dict
    placements: list | None
    game_scores: dict | None

    seat_ids = TournamentBoard.seat_ids
    is_bye = TournamentBoard.is_bye


def _entries(tournament: Tournament) -> list[_Entrant]:
    """Entrants who were ever paired (a no-show dropped before their first round is left out)."""
    values = tournament.entries.order_by("number").values_list(
        "user_id", "user__username", "number", "status", "dropped_after_round", "first_round"
    )
    return [_Entrant(*row[:4]) for row in values if row[4] is None or row[4] >= row[5]]


def _finished_boards(tournament: Tournament) -> list[_Board]:
    """The decided boards; two-player formats skip the JSON fields (decoding them cost more than
    the standings maths): their seats are ``first`` and ``second``, their result ``score_first``."""
    names = [f.name for f in dataclass_fields(_Board)]
    if tournament.format != Format.MULTI_SWISS:
        names = [name for name in names if name not in _JSON_FIELDS]
    boards = tournament.boards.filter(finished_at__isnull=False).order_by("round", "number")
    return [_Board(**{**_JSON_FIELDS, **dict(zip(names, row, strict=True))}) for row in boards.values_list(*names)]


_JSON_FIELDS = {"players": (), "points": None, "placements": None, "game_scores": None}


def standings_rows(tournament: Tournament, *, raw: bool = False) -> list:
    """The standings, best first, as JSON-ready rows (``raw``: the scoring ``Row`` objects).
    Elimination formats rank by final placement once the bracket has one. Computed once per
    change of the tournament's results or entries (``_cached``), not on every read."""
    entries, rows = _cached(tournament)
    if raw:
        return rows
    names = {entry.user_id: entry.username for entry in entries}
    numbers = {entry.user_id: entry.number for entry in entries}
    status = {entry.user_id: entry.status for entry in entries}
    return [
        {
            "rank": row.rank,
            "username": names[row.player],
            "number": numbers[row.player],
            "points": row.points,
            "played": row.played,
            "wins": row.wins,
            "draws": row.draws,
            "losses": row.losses,
            "byes": row.byes,
            "status": status[row.player],
            "tiebreaks": row.tiebreaks,
        }
        for row in rows
    ]


# ---- computed once per change --------------------------------------------------------------------
# A tournament's standings are cached under a version token that every write to its boards, entries
# or settings replaces at once (``standings_changed``: the post_save/post_delete receivers connected
# in ``LeagueConfig.ready``, and the one bulk ``update`` of entries in ``lifecycle``), plus a
# fingerprint of the committed results and entries read with the standings (``_fingerprint``: how
# many boards are decided and when the last was, the entries' count and last drop and check-in).
# Only reads outside a transaction fill the cache, so it holds committed data only; a read racing
# a write's commit (it saw the new token but the old rows) is left under the old fingerprint. A
# failing cache costs a recomputation, never a read. A per-process cache (embedded mode's
# LocMemCache) is not used: another process's write could not replace its token.
CACHE_SECONDS = 24 * 3600


def _version_key(tournament_id) -> str:
    return f"kifu:tournament-standings-version:{tournament_id}"


def _replace_version(tournament_id) -> None:
    try:
        cache.set(_version_key(tournament_id), uuid.uuid4().hex, CACHE_SECONDS)
    except Exception:  # the cache is an optimisation: standings never depend on it
        logger.warning("could not replace the standings version of tournament %s", tournament_id, exc_info=True)


def standings_changed(tournament_id) -> None:
    """The tournament's results, entries or settings changed: cached standings are stale."""
    _replace_version(tournament_id)


def on_tournament_saved(sender, instance, **kwargs) -> None:
    """post_save/post_delete receiver of Tournament, TournamentEntry and TournamentBoard."""
    standings_changed(instance.pk if isinstance(instance, Tournament) else instance.tournament_id)


def _may_cache() -> bool:
    """Outside a transaction (committed data only), with a cache shared by every process."""
    return not connection.in_atomic_block and "locmem" not in settings.CACHES["default"]["BACKEND"].lower()


def _cached(tournament: Tournament) -> tuple[list, list[Row]]:
    if not _may_cache():
        return _compute(tournament)
    try:
        version = cache.get(_version_key(tournament.pk))
        if version is None:
            cache.add(_version_key(tournament.pk), uuid.uuid4().hex, CACHE_SECONDS)
            version = cache.get(_version_key(tournament.pk))
        key = f"kifu:tournament-standings:{tournament.pk}:{version}:{_fingerprint(tournament)}"
        hit = cache.get(key) if version else None
    except Exception:  # see above
        logger.warning("standings cache unavailable", exc_info=True)
        return _compute(tournament)
    if hit is not None:
        return hit
    computed = _compute(tournament)
    try:
        cache.set(key, computed, CACHE_SECONDS)
    except Exception:  # see above
        logger.warning("could not cache the standings of tournament %s", tournament.pk, exc_info=True)
    return computed


def _fingerprint(tournament: Tournament) -> str:
    boards = tournament.boards.filter(finished_at__isnull=False).aggregate(n=Count("id"), last=Max("finished_at"))
    entries = tournament.entries.aggregate(
        n=Count("id"), dropped=Max("dropped_at"), checked=Max("checked_in_at"), late=Max("first_round")
    )
    text = "|".join(str(value) for value in (*boards.values(), *entries.values()))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _compute(tournament: Tournament) -> tuple[list, list[Row]]:
    """(the entrants, the standings rows) from the database."""
    entries = _entries(tournament)
    players = [entry.user_id for entry in entries]
    known = set(players)
    boards = [b for b in _finished_boards(tournament) if set(b.seat_ids) <= known]
    missed = {pk: values for pk, values in missed_rounds(tournament).items() if pk in known}
    if tournament.format == Format.MULTI_SWISS:
        rows = _table_rows(tournament, players, boards, missed)
    else:
        rows = _pair_rows(tournament, players, boards, missed)
    if tournament.format in (Format.SINGLE_ELIMINATION, Format.DOUBLE_ELIMINATION, Format.GROUPS_PLAYOFF):
        placed = final_placements(tournament, rows)
        if placed:
            rows = _by_placement(rows, placed)
    return entries, rows


def _pair_rows(tournament: Tournament, players: list, boards: list, missed: dict) -> list[Row]:
    """Two-player boards: a Swiss bye scores a point (FIDE C.04.1 d); a round-robin or bracket bye
    is a round off and scores nothing; a double forfeit is a lost round for both but no game.
    Double forfeits and a late entrant's missed rounds are unplayed rounds in the tiebreaks."""
    results, byes, double = [], [], []
    for board in boards:
        seats = board.seat_ids
        if board.is_bye:
            if tournament.format == Format.SWISS:
                byes.append(seats[0])
        elif board.decided_by == DOUBLE_FORFEIT:
            double += seats
        else:
            results.append(
                tiebreak_rules.Result(seats[0], seats[1], board.score_first, board.games_first, board.games_second)
            )
    return tiebreak_rules.standings(
        players, results, byes, tiebreaks=tournament.tiebreaks, double_forfeits=double, missed=missed
    )


def _table_rows(tournament: Tournament, players: list, boards: list, missed: dict) -> list[Row]:
    tables, byes = [], {}
    for board in boards:
        seats = board.seat_ids
        points = {int(pk): value for pk, value in board.points.items()}
        if board.is_bye:
            byes.setdefault(seats[0], []).append(points[seats[0]])
            continue
        scores = {int(pk): value for pk, value in (board.game_scores or {}).items()}
        ranking = tuple(tuple(group) for group in board.placements)
        tables.append(table_rules.Table(ranking, points, scores, counted=board.decided_by != DOUBLE_FORFEIT))
    size = tournament.settings["seats"]["max"]
    top = table_rules.place_points(size, tournament.settings.get("placement_points"))[0]
    return table_rules.standings(players, tables, byes, tiebreaks=tournament.tiebreaks, missed=missed, max_points=top)


def _by_placement(rows: list[Row], placed: list[list]) -> list[Row]:
    """Rows reordered by placement groups (best first); a group shares its rank."""
    by_player = {row.player: row for row in rows}
    order = {row.player: index for index, row in enumerate(rows)}
    out, rank = [], 1
    for group in placed:
        members = sorted((pk for pk in group if pk in by_player), key=order.get)
        for pk in members:
            by_player[pk].rank = rank
            out.append(by_player[pk])
        rank += len(members)
    missing = [row for row in rows if row.player not in {r.player for r in out}]
    for row in missing:
        row.rank = rank
        out.append(row)
        rank += 1
    return out


def group_standings(tournament: Tournament) -> list[list[Row]]:
    """groups_playoff: each group's standings rows, best first, from the group's own round-robin
    results and the tournament's tiebreaks (empty before the groups are drawn)."""
    bracket = tournament.bracket or {}
    boards = list(tournament.boards.filter(round__lte=bracket.get("group_rounds", 0), finished_at__isnull=False))
    tables = []
    for group in bracket.get("groups", []):
        members = set(group)
        results = [
            tiebreak_rules.Result(b.seat_ids[0], b.seat_ids[1], b.score_first, b.games_first, b.games_second)
            for b in boards
            if not b.is_bye and set(b.seat_ids) <= members and b.score_first is not None
        ]
        tables.append(tiebreak_rules.standings(group, results, tiebreaks=tournament.tiebreaks))
    return tables
