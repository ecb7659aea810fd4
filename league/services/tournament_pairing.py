"""Pairing inputs of Swiss rounds: who is paired in a round, the players' histories as
``league.scoring.swiss`` and ``league.scoring.multiswiss`` see them, stored on each round's
``TournamentRound.pairing_input`` - and the calls that pair a round from a stored input, so any
round can be reproduced from the record. Reads only."""

from __future__ import annotations

from ..models import Tournament, TournamentEntry
from ..scoring import multiswiss, roundrobin, swiss
from .tournament_settings import MAX_TABLE


def active_players(tournament: Tournament, number: int) -> list[int]:
    """User ids of the entries to pair in round ``number``, in pairing-number order."""
    return list(
        tournament.entries.filter(status=TournamentEntry.Status.ACTIVE, first_round__lte=number)
        .order_by("number")
        .values_list("user_id", flat=True)
    )


def late_points(tournament: Tournament) -> dict[int, float]:
    """Points a late entrant gets for the rounds before they joined."""
    per_round = tournament.settings.get("late_entry_points", 0.0)
    return {
        user: per_round * (first - 1)
        for user, first in tournament.entries.filter(first_round__gt=1).values_list("user_id", "first_round")
    }


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
    from .tournament_standings import standings_rows

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
    return {
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


def _trim(counts: list[int]) -> list[int]:
    while counts and counts[-1] == 0:
        counts = counts[:-1]
    return counts


def multi_pairing(tournament: Tournament, data: dict, seed: int) -> multiswiss.TableRound:
    """Run multiswiss.pair_round on a stored pairing input (a round is reproducible from it)."""
    seats = tournament.settings["seats"]
    players = [
        multiswiss.TablePlayer(p["id"], p["score"], p["rank"], p["byes"], tuple(p["seats"])) for p in data["players"]
    ]
    met = {frozenset((a, b)): count for a, b, count in data["met"]}
    return multiswiss.pair_round(
        players, met=met, preferred=seats["preferred"], min_seats=seats["min"], max_seats=seats["max"], seed=seed
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
