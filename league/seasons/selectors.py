"""Reads of seasonal leagues: leagues, rosters, seasons, division tables, fixtures, the next season's plan."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from games.selectors import may_see_mature
from league.models import Club, Membership

from . import scoring
from .models import Division, DivisionPlayer, Fixture, League, LeaguePlayer, Season


def _visible(leagues: QuerySet, viewer, prefix: str = "") -> QuerySet:
    """Leagues of mature games (and their seasons and fixtures: ``prefix`` is the path to the
    league) only for a viewer who consented, as tournaments: without consent they are missing from
    lists and each answers 404 (``games.selectors.may_see_mature``)."""
    return leagues if may_see_mature(viewer) else leagues.exclude(**{f"{prefix}mature": True})


def league_list(*, club: Club, viewer) -> QuerySet:
    return _visible(League.objects.filter(club=club), viewer).select_related("club").order_by("name")


def league_get(*, league_id, viewer) -> League | None:
    try:
        return _visible(League.objects.select_related("club").filter(pk=league_id), viewer).first()
    except (ValueError, TypeError):
        return None


def roster(*, league: League) -> QuerySet:
    return LeaguePlayer.objects.filter(league=league).select_related("user").order_by("added_at", "pk")


def season_list(*, league: League) -> QuerySet:
    return Season.objects.filter(league=league).select_related("league__club").order_by("number")


def season_get(*, season_id, viewer) -> Season | None:
    try:
        seasons = Season.objects.select_related("league__club").filter(pk=season_id)
        return _visible(seasons, viewer, "league__").first()
    except (ValueError, TypeError):
        return None


def fixture_get(*, fixture_id, viewer) -> Fixture | None:
    try:
        fixtures = Fixture.objects.select_related("home", "away", "division", "season").filter(pk=fixture_id)
        return _visible(fixtures, viewer, "season__league__").first()
    except (ValueError, TypeError):
        return None


def player_divisions(*, user, viewer) -> QuerySet:
    """``user``'s places in seasons, newest first, as ``viewer`` may see them."""
    places = DivisionPlayer.objects.filter(user=user).select_related("season__league__club", "division")
    return _visible(places, viewer, "season__league__").order_by("-season__started_at")


def fixture_list(*, season: Season, tier: int | None = None, round: int | None = None) -> QuerySet:
    fixtures = Fixture.objects.filter(season=season).select_related("home", "away", "division")
    if tier is not None:
        fixtures = fixtures.filter(division__tier=tier)
    if round is not None:
        fixtures = fixtures.filter(round=round)
    return fixtures.order_by("round", "division__tier", "board")


def season_player_names(*, season: Season) -> dict[int, str]:
    """User id -> username of everyone in the season's divisions (one query)."""
    return dict(DivisionPlayer.objects.filter(season=season).values_list("user_id", "user__username"))


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
    if rules.get("tables"):
        return _multi_division_tables(season, members)
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


def _multi_division_tables(season: Season, members: dict[int, list[DivisionPlayer]]) -> list[DivisionTable]:
    """A multiplayer season's tables: placement points per decided fixture (``scoring.multi_division_table``)."""
    rules = season.rules
    outcomes: dict[int, list[scoring.TableOutcome]] = {}
    decided = Fixture.objects.filter(season=season).exclude(result="")
    for f in decided.values("division_id", "result", "placements", "game_scores"):
        outcomes.setdefault(f["division_id"], []).append(
            scoring.TableOutcome(
                tuple(tuple(group) for group in f["placements"]),
                {int(pk): value for pk, value in (f["game_scores"] or {}).items()},
                double_forfeit=f["result"] == scoring.DOUBLE_FORFEIT,
            )
        )
    tables = []
    for division in Division.objects.filter(season=season).order_by("tier"):
        seeded = members.get(division.pk, [])
        lines = scoring.multi_division_table(
            [m.user_id for m in seeded],
            outcomes.get(division.pk, []),
            placement_points=rules["tables"].get("placement_points"),
            tiebreaks=rules["tiebreaks"],
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


def points_by_round(*, season: Season) -> dict[int, dict[str, list[float]]]:
    """Per division (tier), each player's league points in rounds 1, 2, ... of the season (0 where
    a round has no decided fixture of theirs yet): the standings-by-round chart's data. Points as
    the tables count them (the season's ``points`` or a multiplayer fixture's own ``points``)."""
    points = scoring.Points(**season.rules["points"])
    names, tiers = {}, {}
    placed = DivisionPlayer.objects.filter(season=season).values_list("user_id", "user__username", "division__tier")
    result: dict[int, dict[str, list[float]]] = {}
    for pk, name, tier in placed:
        names[pk], tiers[pk] = name, tier
        result.setdefault(tier, {})[name] = [0.0] * season.rounds
    decided = Fixture.objects.filter(season=season).exclude(result="")
    for f in decided.values("round", "home_id", "away_id", "result", "points", "players"):
        if f["players"]:
            taken = {int(pk): value for pk, value in (f["points"] or {}).items()}
        else:
            taken = {f["home_id"]: points.of(f["result"], home=True), f["away_id"]: points.of(f["result"], home=False)}
        for pk, value in taken.items():
            result[tiers[pk]][names[pk]][f["round"] - 1] += value
    return result
