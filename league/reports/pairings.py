"""The pairings a result can be reported for, behind one face: who plays, which log owns it, how it
may be decided, whether it is decided - and deciding it through the path its kind already has.

Kinds (the ``kind`` of the API's and the web page's URLs):

- ``challenge``: a challenge of a challenge ladder (a single game, or a series if the ladder plays
  matches); decided by ``league.services.challenges.decide_result``, as an organiser's result is.
- ``game``: a rated game of a rating ladder (the game's id); decided by a ``result`` event in the
  ladder log, as a finished game's is (``league.services.results``).
- ``match``: a rated series of a rating ladder (the match's id). A match of a challenge or of a
  tournament board is that challenge's or board's pairing.
- ``board``: a tournament board (its id; a single game or a series); decided by
  ``league.tournaments.boards.decide`` and ``complete_check``, so a completed round is paired next.
- ``fixture``: a season fixture (its id); decided by ``league.seasons.services.fixture_result_record``.

Locks are taken in the order every league write takes them: the owner (ladder, tournament or
season), then the pairing's row, then its match.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime

from games.errors import ServiceError
from games.models import Event, Game
from games.selectors import mature_engines, may_see_mature
from kifu.locking import lock_by_id

from ..models import Challenge, Ladder, LeagueGame, Match, ResultReport, Tournament, TournamentBoard
from ..scoring import ladder as ladder_rules
from ..scoring import reports as rules
from ..seasons.models import Fixture, Season
from ..seasons.services import fixture_result_record, season_game_finished
from ..services.challenges import decide_result
from ..services.log import event_append, ladder_lock
from ..services.matches import current_game
from ..services.results import league_game_finished
from ..tournaments.boards import complete_check, decide, tournament_lock
from ..tournaments.lifecycle import tournament_game_finished

Kind = ResultReport.Kind
KINDS = tuple(Kind.values) + ("match",)
LADDER_STEPS = {
    "reported": ladder_rules.RESULT_REPORTED,
    "confirmed": ladder_rules.RESULT_CONFIRMED,
    "auto_confirmed": ladder_rules.RESULT_CONFIRMED,
    "disputed": ladder_rules.RESULT_DISPUTED,
    "settled": ladder_rules.RESULT_SETTLED,
    "entered": ladder_rules.RESULT_SETTLED,
}


@dataclass
class Pairing:
    kind: str
    key: str
    row: object  # Challenge, LeagueGame, Match, TournamentBoard or Fixture
    owner: Ladder | Tournament | Season
    club_id: int
    engine: str
    players: list[int]
    settings: dict = field(default_factory=dict)
    series: dict | None = None  # the match spec, when it is played as a series of games
    match: Match | None = None
    decided: bool = False
    game: Game | None = None  # the game attached to it now (a series: its current game)

    @property
    def mode(self) -> str:
        return self.settings.get("results", rules.DEFAULT_MODE)

    @property
    def confirm_hours(self) -> float:
        return float(self.settings.get("report_confirm_hours", rules.DEFAULT_CONFIRM_HOURS))

    @property
    def owner_field(self) -> str:
        return {Ladder: "ladder", Tournament: "tournament", Season: "season"}[type(self.owner)]

    @property
    def ladder(self) -> Ladder | None:
        return self.owner if isinstance(self.owner, Ladder) else None

    def online_game_played(self) -> bool:
        """Whether a game on the server has begun deciding this pairing (a move made, or finished):
        then the server's game decides it, never a report."""
        games = self._server_games()
        if not games:
            return False
        finished = Game.objects.filter(pk__in=games, status=Game.Status.FINISHED).exists()
        return finished or Event.objects.filter(game_id__in=games, kind="move").exists()

    def _server_games(self) -> list:
        if self.match is not None:
            ids = LeagueGame.objects.filter(match=self.match).values_list("game_id", flat=True)
        else:
            ids = [self.game.pk] if self.game is not None else []
        return list(Game.objects.filter(pk__in=list(ids), source=Game.Source.SERVER).values_list("pk", flat=True))


def _missing(kind: str) -> ServiceError:
    return ServiceError("not_found", f"no such {kind}", status=404)


def _unknown_kind(kind: str) -> ServiceError:
    return ServiceError("unknown_pairing_kind", f"a pairing is one of {', '.join(KINDS)}, not {kind!r}", status=404)


ROWS = {  # the row of each kind, how its key is looked up, what is read with it
    "challenge": (Challenge, "pk", ("ladder",)),
    "game": (LeagueGame, "game_id", ("ladder", "game")),
    "match": (Match, "pk", ("ladder",)),
    "board": (TournamentBoard, "pk", ("tournament",)),
    "fixture": (Fixture, "pk", ("season__league",)),
}


def _fetch(kind: str, key: str, *, lock: bool):
    """The pairing's row (its owner locked first, then the row, when ``lock``)."""
    model, by, related = ROWS[kind]
    row = model.objects.select_related(*related).filter(**{by: key}).first()
    if row is None:
        raise _missing(kind)
    if not lock:
        return row
    if kind in ("challenge", "game", "match"):
        if row.ladder_id is None:
            raise _missing(kind)
        ladder_lock(row.ladder_id)
    elif kind == "board":
        tournament_lock(row.tournament_id)
    else:
        lock_by_id(Season, row.season_id)
    return lock_by_id(model, key, by=by, related=related, of=("self",))


def pairing_get(kind: str, key, *, lock: bool = False) -> Pairing:
    """The pairing ``kind``/``key`` (404 ``not_found`` or ``unknown_pairing_kind``); with ``lock``,
    its owner and row locked (inside a transaction)."""
    key = str(key)
    if kind not in ROWS:
        raise _unknown_kind(kind)
    if kind == "match":
        owner = (
            Match.objects.filter(pk=key).values("challenge__pk", "tournament_board__pk").first()
            if _uuid_like(key)
            else None
        )
        if owner and owner["challenge__pk"]:
            return pairing_get("challenge", owner["challenge__pk"], lock=lock)
        if owner and owner["tournament_board__pk"]:
            return pairing_get("board", owner["tournament_board__pk"], lock=lock)
    if kind in ("challenge", "game", "match"):
        if not _uuid_like(key):
            raise _missing(kind)
        key = str(uuid.UUID(key))  # one spelling: reports and idempotency keys are found by it
    elif not (key.isdigit() and len(key) <= 18):  # a board's or fixture's id fits a bigint
        raise _missing(kind)
    else:
        key = str(int(key))
    row = _fetch(kind, key, lock=lock)
    return _build(kind, key, row)


def _uuid_like(key: str) -> bool:
    try:
        uuid.UUID(key)
    except ValueError:
        return False
    return True


def _build(kind: str, key: str, row) -> Pairing:
    if kind == "challenge":
        ladder = row.ladder
        match = Match.objects.filter(pk=row.match_id).first() if row.match_id else None
        return Pairing(
            kind, key, row, ladder, ladder.club_id, ladder.engine, [row.defender_id, row.challenger_id],
            settings=ladder.settings, series=match.spec if match else ladder.settings.get("match"), match=match,
            decided=row.status not in Challenge.OPEN,
            game=current_game(match) if match else row.game,
        )  # fmt: skip
    if kind == "game":
        ladder = row.ladder
        if ladder is None or ladder.kind != ladder_rules.RATING or row.challenge_id or row.match_id:
            raise _missing("rated game")
        players = list(row.game.seats.order_by("index").values_list("user_id", flat=True))
        return Pairing(
            kind, key, row, ladder, ladder.club_id, ladder.engine, players, settings=ladder.settings,
            decided=row.recorded, game=row.game,
        )  # fmt: skip
    if kind == "match":
        ladder = row.ladder
        if ladder is None or ladder.kind != ladder_rules.RATING:
            raise _missing("rated match")
        return Pairing(
            kind, key, row, ladder, ladder.club_id, ladder.engine, list(row.players), settings=ladder.settings,
            series=row.spec, match=row, decided=row.status != Match.Status.RUNNING, game=current_game(row),
        )  # fmt: skip
    if kind == "board":
        tournament = row.tournament
        match = Match.objects.filter(pk=row.match_id).first() if row.match_id else None
        if row.is_bye:
            raise ServiceError("bye", "a bye has no game and no result to report", status=409)
        return Pairing(
            kind, key, row, tournament, tournament.club_id, tournament.engine, row.seat_ids,
            settings=tournament.settings, series=match.spec if match else None, match=match,
            decided=row.finished_at is not None, game=current_game(match) if match else row.game,
        )  # fmt: skip
    season = row.season
    return Pairing(
        kind, key, row, season, season.league.club_id, season.league.engine, row.seat_ids,
        settings=season.rules, decided=bool(row.result), game=row.game,
    )  # fmt: skip


def pairing_visible(pairing: Pairing, viewer) -> bool:
    """Whether ``viewer`` may see the pairing: one of a mature game only with their consent, as its
    games and tournaments are shown (``games.selectors.may_see_mature``)."""
    return pairing.engine not in mature_engines() or may_see_mature(viewer)


def pairing_of_game(game_id) -> tuple[str, str] | None:
    """The pairing a game belongs to, as (kind, key), or None."""
    link = LeagueGame.objects.filter(game_id=game_id).values("challenge_id", "match_id", "ladder_id").first()
    if link is not None:
        if link["challenge_id"]:
            return "challenge", str(link["challenge_id"])
        if link["match_id"]:
            board = TournamentBoard.objects.filter(match_id=link["match_id"]).values_list("pk", flat=True).first()
            return ("board", str(board)) if board else ("match", str(link["match_id"]))
        return ("game", str(game_id)) if link["ladder_id"] else None
    board = TournamentBoard.objects.filter(game_id=game_id).values_list("pk", flat=True).first()
    if board is not None:
        return "board", str(board)
    fixture = Fixture.objects.filter(game_id=game_id).values_list("pk", flat=True).first()
    return ("fixture", str(fixture)) if fixture is not None else None


ONLINE_RESULT, TABLE_RESULT, NOT_TAKEN = "online", "table", "not taken"


def game_route(game_id) -> str | None:
    """Where a finished game's result goes (the receivers ask, for a game the league or an event
    linked): ``TABLE_RESULT`` for a table game (its keeper's report,
    ``services.table_game_finished``); ``NOT_TAKEN`` for a game on the server of a pairing decided
    at the table only; else ``ONLINE_RESULT`` (decided at once, as always). Two or three indexed
    reads: it runs after every finished game of an event."""
    source = Game.objects.filter(pk=game_id).values_list("source", flat=True).first()
    if source is None:
        return None
    if source == Game.Source.TABLE:
        return TABLE_RESULT
    return NOT_TAKEN if _owner_settings(game_id).get("results") == rules.TABLE else ONLINE_RESULT


def _owner_settings(game_id) -> dict:
    """The settings of the ladder, tournament or season whose pairing plays ``game_id``."""
    link = LeagueGame.objects.filter(game_id=game_id).values(
        "ladder__settings", "match__tournament_board__tournament__settings"
    )
    for row in link[:1]:
        return row["match__tournament_board__tournament__settings"] or row["ladder__settings"] or {}
    board = TournamentBoard.objects.filter(game_id=game_id).values_list("tournament__settings", flat=True).first()
    if board is not None:
        return board
    return Fixture.objects.filter(game_id=game_id).values_list("season__rules", flat=True).first() or {}


# ---- a pairing moved to the table -----------------------------------------------------------------
def pairing_game_replace(pairing: Pairing, game: Game) -> str:
    """Point the pairing (owner and row locked) at ``game``, the table game that replaces its game on
    the server not yet played (``games.table.table_game_for_pairing`` makes it and cancels the old
    one). Its finish then reaches the league as the old game's would have - as a report to confirm,
    since it is a table game. Returns the pairing's key: a rated game's is its game, so it changes."""
    old = pairing.game
    link = LeagueGame.objects.filter(game=old).first() if old is not None else None
    if link is not None:
        LeagueGame.objects.create(
            game=game, ladder=link.ladder, challenge=link.challenge, match=link.match, number=link.number
        )
        link.recorded = True  # the cancelled game is never taken
        link.save(update_fields=["recorded"])
    if pairing.kind in ("challenge", "board", "fixture") and pairing.match is None:
        pairing.row.game = game  # a series' games are its LeagueGame rows, above
        pairing.row.save(update_fields=["game"])
    pairing.game = game
    if pairing.kind == "game":
        pairing.key = str(game.pk)
    return pairing.key


# ---- deciding (owner and row locked) ---------------------------------------------------------------
def _finish_series(pairing: Pairing, ranking: list, scores: dict | None, now: datetime) -> None:
    """A series decided by a report: the match ends with the reported standing and points."""
    match = pairing.match
    if match is None or match.status != Match.Status.RUNNING:
        return
    match = lock_by_id(Match, match.pk)
    match.status, match.result, match.finished_at = Match.Status.FINISHED, ranking, now
    if scores is not None:
        match.totals = {str(player): value for player, value in scores.items()}
    match.save(update_fields=["status", "result", "finished_at", "totals"])


def decide_reported(pairing: Pairing, ranking: list, scores: dict | None, *, now: datetime, actor) -> None:
    """Decide the pairing by a confirmed or settled result, through its kind's own decide path.
    A game on the server still attached to it is left as it is: the pairing no longer takes its
    result (as after an organiser's result today)."""
    row = pairing.row
    _finish_series(pairing, ranking, scores, now)
    if pairing.kind == "challenge":
        match = pairing.match.pk if pairing.match else None
        decide_result(pairing.owner, row, ranking, now=now, actor=actor, source="report", match=match)
    elif pairing.kind in ("game", "match"):
        payload = {"ranking": ranking, "rated": True, "source": "report"}
        if pairing.kind == "game":
            row.recorded = True
            row.save(update_fields=["recorded"])
            payload["game"] = str(row.game_id)
        else:
            payload["match"] = str(row.pk)
        event_append(pairing.owner, kind=ladder_rules.RESULT, payload=payload, actor=actor, at=now)
    elif pairing.kind == "board":
        decide(row, pairing.owner, ranking, TournamentBoard.Decided.REPORT, now=now, scores=scores)
        complete_check(pairing.owner, row)
    else:
        fixture_result_record(row, pairing.owner, ranking, scores, now=now)


def decide_table_game(pairing: Pairing, game_id, *, now: datetime) -> None:
    """Decide by a confirmed table game: the path an online game's finish takes (the game's own
    league follow-up, run now instead of when the game ended)."""
    if pairing.kind == "fixture":
        season_game_finished(game_id=game_id, now=now)
    elif pairing.kind == "board":
        tournament_game_finished(game_id=game_id, now=now)
    else:
        league_game_finished(game_id=game_id, now=now)
