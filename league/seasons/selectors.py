"""Reads of seasonal leagues: leagues, rosters, seasons, division tables, fixtures, the next season's plan."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from league.models import Club, Membership

from . import scoring
from .models import Division, DivisionPlayer, Fixture, League, LeaguePlayer, Season


def league_list(*, club: Club) -> QuerySet:
    return League.objects.filter(club=club).select_related("club").order_by("name")


def league_get(*, league_id) -> League | None:
    try:
        return League.objects.select_related("club").filter(pk=league_id).first()
    except (ValueError, TypeError):
        return None


def roster(*, league: League) -> QuerySet:
    return LeaguePlayer.objects.filter(league=league).select_related("user").order_by("added_at", "pk")


def season_list(*, league: League) -> QuerySet:
    return Season.objects.filter(league=league).select_related("league__club").order_by("number")


def season_get(*, season_id) -> Season | None:
    try:
        return Season.objects.select_related("league__club").filter(pk=season_id).first()
    except (ValueError, TypeError):
        return None


def fixture_get(*, fixture_id) -> Fixture | None:
    try:
        return Fixture.objects.select_related("home", "away", "division", "season").filter(pk=fixture_id).first()
    except (ValueError, TypeError):
        return None


def fixture_list(*, season: Season, tier: int | None = None, round: int | None = None) -> QuerySet:
    fixtures = Fixture.objects.filter(season=season).select_related("home", "away", "division")
    if tier is not None:
        fixtures = fixtures.filter(division__tier=tier)
    if round is not None:
        fixtures = fixtures.filter(round=round)
    return fixtures.order_by("round", "division__tier", "board")


@dataclass
class DivisionTable:
    division: Division
    members: list[DivisionPlayer]  # seeding order
    lines: list[scoring.Line]  # best first; players are user ids


def division_tables(season: Season) -> list[DivisionTable]:
    """Every division's table computed from its decided fixtures under the season's own rules."""
    rules = season.rules
    points = scoring.Points(**rules["points"])
    members: dict[int, list[DivisionPlayer]] = {}
    for member in DivisionPlayer.objects.filter(season=season).select_related("user").order_by("seed"):
        members.setdefault(member.division_id, []).append(member)
    outcomes: dict[int, list[scoring.Outcome]] = {}
    decided = Fixture.objects.filter(season=season).exclude(result="")
    for f in decided.values("division_id", "home_id", "away_id", "result", "games_home", "games_away"):
        outcomes.setdefault(f["division_id"], []).append(
            scoring.Outcome(f["home_id"], f["away_id"], f["result"], f["games_home"], f["games_away"])
        )
    tables = []
    for division in Division.objects.filter(season=season).order_by("tier"):
        seeded = members.get(division.pk, [])
        lines = scoring.division_table(
            [m.user_id for m in seeded], outcomes.get(division.pk, []), points=points, tiebreaks=rules["tiebreaks"]
        )
        tables.append(DivisionTable(division, seeded, lines))
    return tables


def standings_rows(season: Season) -> list[dict]:
    """The division tables as JSON-ready dicts (what a close freezes): per division its players,
    best first, with the promotion or relegation zone each position is in."""
    tables = division_tables(season)
    rules = season.rules
    result = []
    for table in tables:
        by_id = {m.user_id: m for m in table.members}
        rows = []
        for line in table.lines:
            member = by_id[line.player]
            zone = scoring.zone(
                line.position,
                len(table.lines),
                tier=table.division.tier,
                tiers=len(tables),
                promote=rules["promote"],
                relegate=rules["relegate"],
            )
            rows.append(
                {
                    "position": line.position,
                    "username": member.user.get_username(),
                    "seed": member.seed,
                    "came": member.movement,
                    "points": line.points,
                    "played": line.played,
                    "wins": line.wins,
                    "draws": line.draws,
                    "losses": line.losses,
                    "tiebreaks": line.tiebreaks,
                    "zone": zone,
                }
            )
        result.append({"tier": table.division.tier, "standings": rows})
    return result


def season_standings(*, season: Season) -> list[dict]:
    """The frozen final standings once closed; otherwise computed from the results so far."""
    if season.final_standings is not None:
        return season.final_standings
    return standings_rows(season)


def eligible_players(league: League) -> list:
    """The roster for the next season: active roster entries who are still active club members,
    in the order they were added."""
    members = Membership.objects.filter(club_id=league.club_id, status=Membership.Status.ACTIVE).values("user_id")
    entries = roster(league=league).filter(active=True, user_id__in=members)
    return [entry.user for entry in entries]


@dataclass
class Plan:
    """Next season's divisions (top first, each in seeding order) and who leaves."""

    divisions: list[list[tuple[object, str]]]  # (user, movement)
    leaving: list


def next_season_plan(*, league: League) -> Plan:
    """Divisions of the next season: the first splits the roster into ``league.divisions`` even
    tiers; later ones apply promotion and relegation to the last season's final tables (which
    must be closed - the caller checks)."""
    players = eligible_players(league)
    last = league.seasons.order_by("-number").first()
    if last is None:
        split = scoring.split_evenly(players, league.divisions)
        return Plan([[(user, scoring.NEW) for user in division] for division in split], [])
    tables = division_tables(last)
    users = {m.user_id: m.user for t in tables for m in t.members}
    staying = {user.pk for user in players}
    final = [[line.player for line in table.lines] for table in tables]
    leaving = [pk for division in final for pk in division if pk not in staying]
    joining = [user.pk for user in players if user.pk not in users]
    users.update({user.pk: user for user in players})
    placed = scoring.next_divisions(
        final, promote=last.rules["promote"], relegate=last.rules["relegate"], leaving=leaving, joining=joining
    )
    return Plan(
        [[(users[p.player], p.movement) for p in division] for division in placed], [users[pk] for pk in leaving]
    )
