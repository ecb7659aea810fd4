"""The bracket of an elimination tournament as its decided boards make it: the match graph of the
format (``league.scoring.elimination``), the seeds, each bracket board's winner, and the final
placements once the bracket is decided. Reads only: the standings rank by these placements, and
``brackets`` pairs the next round from the same state.

A bracket match needs a winner: a drawn board (or a double forfeit) sends the better seed through.
"""

from __future__ import annotations

from ..models import Tournament, TournamentBoard
from ..scoring import elimination
from .settings import Format

GROUPS, PLAYOFF = "groups", "playoff"  # the stages of groups_playoff (``Tournament.bracket["stage"]``)


def bracket_matches(tournament: Tournament, entrants: int) -> list[elimination.BracketMatch]:
    if tournament.format == Format.DOUBLE_ELIMINATION:
        return elimination.double_elimination(
            entrants, grand_final_reset=tournament.settings.get("grand_final_reset", True)
        )
    return elimination.single_elimination(entrants, third_place=tournament.settings.get("third_place", False))


def winner_slot(board: TournamentBoard, seeds: list) -> int:
    """0 or 1: the slot (seat) of the board's winner; a tie goes to the better seed."""
    top = board.placements[0]
    if len(top) == 1:
        return board.seat_ids.index(top[0])
    first, second = board.seat_ids
    return 0 if seeds.index(first) <= seeds.index(second) else 1


def bracket_seeds(tournament: Tournament) -> list:
    bracket = tournament.bracket
    return bracket["playoff_seeds"] if tournament.format == Format.GROUPS_PLAYOFF else bracket["seeds"]


def bracket_state(tournament: Tournament) -> tuple[elimination.BracketState, set[str]]:
    """The bracket now (B's ``bracket_state`` over the decided bracket boards) and the ids of the
    bracket matches that already have a board."""
    seeds = bracket_seeds(tournament)
    boards = list(tournament.boards.exclude(bracket_match=""))
    results = {b.bracket_match: winner_slot(b, seeds) for b in boards if b.finished_at is not None}
    state = elimination.bracket_state(bracket_matches(tournament, len(seeds)), seeds, results)
    return state, {b.bracket_match for b in boards}


def final_placements(tournament: Tournament, rows: list) -> list[list] | None:
    """Final placement groups (best first) once the bracket is decided; groups_playoff places the
    players who did not reach the playoff after it, by their group position, then standings."""
    if not tournament.bracket or (
        tournament.format == Format.GROUPS_PLAYOFF and tournament.bracket.get("stage") != PLAYOFF
    ):
        return None
    state, _ = bracket_state(tournament)
    if not state.finished:
        return None
    placed = [list(group) for group in state.placements]
    if tournament.format == Format.GROUPS_PLAYOFF:
        order = {row.player: index for index, row in enumerate(rows)}
        rankings = tournament.bracket["group_rankings"]
        advance = tournament.settings["advance"]
        for position in range(advance, max(len(group) for group in rankings)):
            level = [group[position] for group in rankings if position < len(group)]
            placed += [[pk] for pk in sorted(level, key=lambda pk: order.get(pk, len(order)))]
    return placed
