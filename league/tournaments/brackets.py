"""Elimination tournaments on ``league.scoring.elimination``: single elimination (optional third-place
match), double elimination (optional grand-final reset), and round-robin groups (snake seeding)
feeding a single-elimination playoff. Each bracket match is one board - a game, or a match with
the tournament's ``match`` setting. Called by ``lifecycle`` with the tournament row locked; the
bracket as it stands is read by ``bracket_state``.

Seeds are the entries in pairing-number order: entry order, the rating ladder or a draw (the
``seeding`` setting, ``seeding.seeds_fix``), or the organiser's list at the start. A bracket match
needs a winner: a drawn board (or a double forfeit) sends the better seed through, and a player who
has withdrawn forfeits their next bracket match.
"""

from __future__ import annotations

from datetime import datetime

from games.services import ServiceError

from ..models import Tournament
from ..scoring import elimination, roundrobin
from .boards import active_players, create_round
from .bracket_state import GROUPS, PLAYOFF, bracket_matches, bracket_seeds, bracket_state, winner_slot
from .settings import Format
from .standings import group_standings


def bracket_start(tournament: Tournament, *, now: datetime) -> None:
    """Fix the seeds (and for groups_playoff the groups) at the start."""
    seeds = active_players(tournament, 1)
    if tournament.format != Format.GROUPS_PLAYOFF:
        tournament.bracket = {"seeds": seeds}
        tournament.rounds = max(match.round for match in bracket_matches(tournament, len(seeds)))
        tournament.save(update_fields=["bracket", "rounds"])
        return
    count, advance = tournament.settings["groups"], tournament.settings["advance"]
    if len(seeds) < 2 * count or len(seeds) < count * advance:
        raise ServiceError(
            "too_few_entries",
            f"{count} groups sending {advance} each to the playoff need at least {max(2 * count, count * advance)} "
            f"players; {len(seeds)} entered",
        )
    groups = [list(group) for group in elimination.group_assignment(seeds, count)]
    for index, group in enumerate(groups):
        tournament.entries.filter(user_id__in=group).update(group=index)
    group_rounds = max(len(roundrobin.round_robin(group)) for group in groups)
    playoff = max(match.round for match in bracket_matches(tournament, count * advance))
    tournament.bracket = {"seeds": seeds, "groups": groups, "group_rounds": group_rounds, "stage": GROUPS}
    tournament.rounds = group_rounds + playoff
    tournament.save(update_fields=["bracket", "rounds"])


def bracket_pair_next(tournament: Tournament, *, now: datetime) -> bool:
    """Pair the next round: a group-stage round, or every bracket match that became playable. False
    when the bracket has its placements and nothing is left to pair (the caller finishes the
    tournament)."""
    number = tournament.current_round + 1
    bracket = dict(tournament.bracket)
    if tournament.format == Format.GROUPS_PLAYOFF and bracket.get("stage") == GROUPS:
        if number <= bracket["group_rounds"]:
            _pair_groups(tournament, number, now=now)
            return True
        rankings = group_rankings(tournament)
        bracket["group_rankings"] = rankings
        bracket["playoff_seeds"] = list(elimination.playoff_seeding(rankings, tournament.settings["advance"]))
        bracket["stage"] = PLAYOFF
        tournament.bracket = bracket
        tournament.save(update_fields=["bracket"])
    state, paired = bracket_state(tournament)
    ready = [(match_id, a, b) for match_id, a, b in state.ready if match_id not in paired]
    if not ready:
        if not state.finished:
            raise ServiceError("bracket_stuck", "no bracket match is playable and the bracket is not finished", 409)
        return False
    seeds = bracket_seeds(tournament)
    results = {
        b.bracket_match: winner_slot(b, seeds)
        for b in tournament.boards.exclude(bracket_match="").filter(finished_at__isnull=False)
    }
    create_round(
        tournament,
        number,
        [[a, b] for _, a, b in ready],
        seed=tournament.seed + number,
        data={"seeds": seeds, "results": results, "byes": [list(bye) for bye in state.byes]},
        stage=PLAYOFF if tournament.format == Format.GROUPS_PLAYOFF else "",
        bracket_ids=[match_id for match_id, _, _ in ready],
        now=now,
    )
    return True


def _pair_groups(tournament: Tournament, number: int, *, now: datetime) -> None:
    """Round ``number`` of every group's Berger table at once (a group's byes are rounds off)."""
    tables = []
    for group in tournament.bracket["groups"]:
        rounds = roundrobin.round_robin(group)
        if number <= len(rounds):
            tables += [[p.first] if p.is_bye else [p.first, p.second] for p in rounds[number - 1]]
    data = {"groups": tournament.bracket["groups"], "berger_round": number}
    create_round(tournament, number, tables, seed=tournament.seed + number, data=data, stage=GROUPS, now=now)


def group_rankings(tournament: Tournament) -> list[list]:
    """Each group's players best first, by the group's own round-robin results and tiebreaks."""
    return [[row.player for row in rows] for rows in group_standings(tournament)]
