"""The tables of one round as a venue prints them: a tournament round or a season matchday, each
table with its number, its players in seat order and the pairing a result slip reports on.

Table numbers are the board's order and never depend on who reads them:
- a tournament round: the board number (``TournamentBoard.number``), as the tournament page shows it;
- a season matchday: the round's fixtures across every division in the order the season page lists
  them (division tier, then board), numbered from 1 - one room, one sequence of tables.
``season_table_numbers`` is that numbering, and the season page uses it too, so the page and the
printout always agree. Reads only; nothing here writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .models import Tournament, TournamentRound
from .seasons import selectors as season_selectors
from .seasons.models import Fixture, Season
from .tournaments import selectors as tournament_selectors

BOARD = "board"
FIXTURE = "fixture"


@dataclass(frozen=True)
class Table:
    """One table of a printed round. ``kind`` and ``pk`` name the pairing (a tournament board or a
    season fixture) that the slip's QR code reports on; a bye has no slip."""

    number: int
    kind: str
    pk: int
    players: tuple[str, ...]  # usernames, seat order (a fixture: home, away)
    division: int | None = None  # a season matchday: the division's tier
    bracket_match: str = ""  # an elimination board: "W1-2"
    decided: bool = False

    @property
    def is_bye(self) -> bool:
        return len(self.players) == 1


@dataclass(frozen=True)
class PrintedRound:
    number: int
    play_by: datetime | None
    tables: list[Table]

    @property
    def slips(self) -> list[Table]:
        """The tables that get a result slip: every table but a bye."""
        return [table for table in self.tables if not table.is_bye]


def tournament_round(*, tournament: Tournament, number: int) -> PrintedRound | None:
    """Round ``number`` of a tournament (None if it has not been paired)."""
    boards = list(tournament_selectors.board_list(tournament=tournament, round=number).order_by("number"))
    if not boards:
        return None
    names = dict(tournament.entries.values_list("user_id", "user__username"))
    record = TournamentRound.objects.filter(tournament=tournament, number=number).first()
    tables = [
        Table(
            number=board.number,
            kind=BOARD,
            pk=board.pk,
            players=tuple(names.get(pk, "?") for pk in board.seat_ids),
            bracket_match=board.bracket_match,
            decided=board.is_done,
        )
        for board in boards
    ]
    return PrintedRound(number=number, play_by=record.deadline_at if record else None, tables=tables)


def season_table_numbers(fixtures) -> dict[int, int]:
    """Fixture pk -> table number: within each round, 1, 2, ... in the season page's order."""
    numbers: dict[int, int] = {}
    counters: dict[int, int] = {}
    for fixture in sorted(fixtures, key=lambda f: (f.round, f.division.tier, f.board)):
        counters[fixture.round] = counters.get(fixture.round, 0) + 1
        numbers[fixture.pk] = counters[fixture.round]
    return numbers


def season_matchday(*, season: Season, number: int) -> PrintedRound | None:
    """Matchday ``number`` of a season, every division's fixtures (None if there is no such round)."""
    fixtures: list[Fixture] = list(season_selectors.fixture_list(season=season, round=number))
    if not fixtures:
        return None
    numbers = season_table_numbers(fixtures)
    names = season_selectors.season_player_names(season=season)
    tables = sorted(
        (
            Table(
                number=numbers[fixture.pk],
                kind=FIXTURE,
                pk=fixture.pk,
                players=tuple(names.get(pk, "?") for pk in fixture.seat_ids),
                division=fixture.division.tier,
                decided=bool(fixture.result),
            )
            for fixture in fixtures
        ),
        key=lambda table: table.number,
    )
    return PrintedRound(number=number, play_by=fixtures[0].play_by, tables=tables)
