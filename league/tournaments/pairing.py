"""Pairing inputs of Swiss rounds: the players' histories as ``league.scoring.swiss`` and
``league.scoring.multiswiss`` see them, stored on each round's ``TournamentRound.pairing_input`` -
the calls that pair a round from a stored input, so any round can be reproduced from the record -
and the check of an organiser's manual tables. Reads only."""

from __future__ import annotations

from ..models import Tournament
from ..scoring import multiswiss, roundrobin, swiss
from .boards import active_players, late_points
from .settings import MAX_TABLE, Format
from .standings import standings_rows


def swiss_players(tournament: Tournament, number: int) -> list[swiss.SwissPlayer]:
    entries = list(tournament.entries.order_by("number").values_list("user_id", "number"))
    state = {user: {"score": 0.0, "opp": set(), "col": [], "bye": False} for user, _ in entries}
    for user, points in late_points(tournament).items():
        state[user]["score"] += points
    for board in tournament.boards.filter(finished_at__isnull=False).order_by("round", "number"):
        seats = board.seat_ids
        first = state[seats[0]]
        if board.is_bye:
            first["score"] += 1
            first["bye"] = True
            continue
        second = state[seats[1]]
        first["score"] += board.points[str(seats[0])]
        second["score"] += board.points[str(seats[1])]
        first["opp"].add(seats[1]), second["opp"].add(seats[0])
        first["col"].append(1), second["col"].append(-1)
    playing = set(active_players(tournament, number))
    return [
        swiss.SwissPlayer(user, s["score"], number_, frozenset(s["opp"]), tuple(s["col"]), s["bye"])
        for (user, number_), s in ((e, state[e[0]]) for e in entries)
        if user in playing
    ]


def multi_input(tournament: Tournament, number: int) -> dict:
    """What multiswiss.pair_round sees for round ``number``: players by standing, meetings so far."""
    rows = standings_rows(tournament, raw=True)
    rank = {row.player: index for index, row in enumerate(rows, start=1)}
    points = {row.player: row.points for row in rows}
    playing = active_players(tournament, number)
    byes = dict.fromkeys(playing, 0)
    seat_counts: dict[int, list[int]] = {pk: [0] * MAX_TABLE for pk in playing}
    met: dict[frozenset, int] = {}
    for board in tournament.boards.all():
        seats = board.seat_ids
        if board.is_bye:
            if seats[0] in byes:
                byes[seats[0]] += 1
            continue
        for index, pk in enumerate(seats):
            if pk in seat_counts:
                seat_counts[pk][index] += 1
        for i, a in enumerate(seats):
            for b in seats[i + 1 :]:
                key = frozenset((a, b))
                met[key] = met.get(key, 0) + 1
    players = sorted(playing, key=lambda pk: rank.get(pk, len(rank) + 1))
    data = {
        "players": [
            {
                "id": pk,
                "score": points.get(pk, 0.0),
                "rank": rank.get(pk, len(rank) + 1),
                "byes": byes[pk],
                "seats": _trim(seat_counts[pk]),
            }
            for pk in players
        ],
        "met": sorted([*sorted(pair), count] for pair, count in met.items() if pair <= set(playing)),
    }
    data["score_unit"] = multiswiss.field_unit(_table_players(data))
    return data


def _table_players(data: dict) -> list[multiswiss.TablePlayer]:
    return [
        multiswiss.TablePlayer(p["id"], p["score"], p["rank"], p["byes"], tuple(p["seats"])) for p in data["players"]
    ]


def _trim(counts: list[int]) -> list[int]:
    while counts and counts[-1] == 0:
        counts = counts[:-1]
    return counts


def multi_pairing(tournament: Tournament, data: dict, seed: int) -> multiswiss.TableRound:
    """Run multiswiss.pair_round on a stored pairing input (a round is reproducible from it; an
    input stored before ``score_unit`` was recorded is paired with the score unit of its day)."""
    seats = tournament.settings["seats"]
    players = _table_players(data)
    met = {frozenset((a, b)): count for a, b, count in data["met"]}
    unit = data.get("score_unit") or multiswiss.smallest_gap(players)
    return multiswiss.pair_round(
        players,
        met=met,
        preferred=seats["preferred"],
        min_seats=seats["min"],
        max_seats=seats["max"],
        seed=seed,
        score_unit=unit,
    )


def swiss_input(players: list[swiss.SwissPlayer]) -> dict:
    return {
        "players": [
            {
                "id": p.id,
                "score": p.score,
                "rank": p.rank,
                "opponents": sorted(p.opponents),
                "colours": list(p.colours),
                "had_bye": p.had_bye,
            }
            for p in players
        ]
    }


def swiss_pairing(data: dict, seed: int) -> list[roundrobin.Pairing]:
    """Run swiss.pair_round on a stored pairing input."""
    players = [
        swiss.SwissPlayer(p["id"], p["score"], p["rank"], frozenset(p["opponents"]), tuple(p["colours"]), p["had_bye"])
        for p in data["players"]
    ]
    return swiss.pair_round(players, seed=seed)


# ---- manual pairings -----------------------------------------------------------------------------
def table_error(tournament: Tournament, number: int, tables: list[list[int]]) -> str | None:
    """Why these tables are not a valid pairing of round ``number`` (None: they are)."""
    expected = set(active_players(tournament, number))
    seen = [pk for table in tables for pk in table]
    if len(seen) != len(set(seen)):
        return "a player appears twice"
    if set(seen) != expected:
        missing = len(expected - set(seen))
        extra = len(set(seen) - expected)
        return f"every active player must be seated exactly once ({missing} missing, {extra} not active in this round)"
    if tournament.format == Format.MULTI_SWISS:
        seats = tournament.settings["seats"]
        low, high = seats["min"], seats["max"]
    else:
        low = high = 2
    for table in tables:
        if len(table) != 1 and not low <= len(table) <= high:
            return f"a table seats {low}-{high} players (or one: a bye), not {len(table)}"
    if tournament.format == Format.SWISS and sum(len(t) == 1 for t in tables) > 1:
        return "a Swiss round has at most one bye"
    return None


def manual_tables(tournament: Tournament, number: int, data: dict) -> list[list[int]] | None:
    """The organiser's planned tables for round ``number`` if they still fit the active players."""
    tables = data.get("tables")
    if not isinstance(tables, list) or table_error(tournament, number, tables):
        return None
    return [list(table) for table in tables]
