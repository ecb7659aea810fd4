"""Tournament standings from the boards: two-player results (``scoring.standings``), multiplayer
tables (``scoring.placements``) and elimination placements (``bracket_state``). Reads only."""

from __future__ import annotations

from ..models import Tournament, TournamentBoard, TournamentEntry
from ..scoring import placements as table_rules
from ..scoring import standings as tiebreak_rules
from ..scoring.standings import Row
from .boards import missed_rounds
from .bracket_state import final_placements

Format = Tournament.Format
DOUBLE_FORFEIT = TournamentBoard.Decided.DOUBLE_FORFEIT


def _entries(tournament: Tournament) -> list[TournamentEntry]:
    """Entrants who were ever paired (a no-show dropped before their first round is left out)."""
    return [
        entry
        for entry in tournament.entries.order_by("number").select_related("user")
        if entry.dropped_after_round is None or entry.dropped_after_round >= entry.first_round
    ]


def standings_rows(tournament: Tournament, *, raw: bool = False) -> list:
    """The standings, best first, as JSON-ready rows (``raw``: the scoring ``Row`` objects).
    Elimination formats rank by final placement once the bracket has one."""
    entries = _entries(tournament)
    players = [entry.user_id for entry in entries]
    known = set(players)
    boards = [b for b in tournament.boards.filter(finished_at__isnull=False) if set(b.seat_ids) <= known]
    missed = {pk: values for pk, values in missed_rounds(tournament).items() if pk in known}
    if tournament.format == Format.MULTI_SWISS:
        rows = _table_rows(tournament, players, boards, missed)
    else:
        rows = _pair_rows(tournament, players, boards, missed)
    if tournament.format in (Format.SINGLE_ELIMINATION, Format.DOUBLE_ELIMINATION, Format.GROUPS_PLAYOFF):
        placed = final_placements(tournament, rows)
        if placed:
            rows = _by_placement(rows, placed)
    if raw:
        return rows
    names = {entry.user_id: entry.user.get_username() for entry in entries}
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
