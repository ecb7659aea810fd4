"""Seasonal-league records: a club's league and its roster, seasons, divisions of players and fixtures.

Standings are not stored while a season runs: they are computed from the decided fixtures
(``scoring.division_table``), so a corrected result recomputes them; closing a season freezes them
in ``Season.final_standings``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.models import Game
from league.models import Club

from . import scoring

User = settings.AUTH_USER_MODEL


class League(models.Model):
    """A club's league of one game, played in seasons: two-player fixtures, or (``tables`` set)
    multiplayer fixtures of 3-6 seats scored by placement points. Settings apply to seasons started
    after a change; a running season keeps the copy it started with (``Season.rules``)."""

    club = models.ForeignKey(Club, related_name="season_leagues", on_delete=models.PROTECT)
    name = models.CharField(max_length=100)
    engine = models.CharField(max_length=40)
    game_config = models.JSONField(default=dict, blank=True, help_text="The validated config of every game.")
    cycles = models.PositiveSmallIntegerField(default=1, help_text="1 single, 2 double round robin.")
    days_per_round = models.PositiveSmallIntegerField(default=7, help_text="Round r is to be played by start + r*days.")
    divisions = models.PositiveSmallIntegerField(default=1, help_text="Divisions of the first season.")
    promote = models.PositiveSmallIntegerField(default=2, help_text="Go up from each division but the top.")
    relegate = models.PositiveSmallIntegerField(default=2, help_text="Go down from each division but the bottom.")
    points_win = models.FloatField(default=3.0)
    points_draw = models.FloatField(default=1.0)
    points_loss = models.FloatField(default=0.0)
    tiebreaks = models.JSONField(default=list, blank=True, help_text="Tiebreak names in order of use.")
    allow_bots = models.BooleanField(
        default=False, help_text="May bot accounts be on the roster and play seasons (games.accounts.is_bot)."
    )
    tables = models.JSONField(
        default=dict,
        blank=True,
        help_text='Multiplayer fixtures: {"seats": {"preferred", "min", "max"}, "placement_points": [...]}; '
        "empty for two-player fixtures.",
    )
    mature = models.BooleanField(default=False, help_text="A league of a mature game: only consenting players.")
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["club", "name"]
        constraints = [models.UniqueConstraint(fields=["club", "name"], name="season_league_name_once_per_club")]

    def __str__(self) -> str:
        return f"{self.club}: {self.name} ({self.engine})"

    def rules(self) -> dict:
        """The settings a new season copies."""
        return {
            "cycles": self.cycles,
            "days_per_round": self.days_per_round,
            "promote": self.promote,
            "relegate": self.relegate,
            "points": {"win": self.points_win, "draw": self.points_draw, "loss": self.points_loss},
            "tiebreaks": list(self.tiebreaks),
            **({"tables": dict(self.tables)} if self.tables else {}),
            **({"mature": True} if self.mature else {}),
        }

    @property
    def is_multiplayer(self) -> bool:
        return bool(self.tables)


class LeaguePlayer(models.Model):
    """The roster: who plays next season. Removing a player (``active`` False) takes them out of the
    next season; the running one is not changed."""

    league = models.ForeignKey(League, related_name="roster", on_delete=models.CASCADE)
    user = models.ForeignKey(User, related_name="season_league_entries", on_delete=models.PROTECT)
    active = models.BooleanField(default=True)
    added_at = models.DateTimeField(help_text="When last added; newcomers are seeded in this order.")

    class Meta:
        ordering = ["league", "added_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["league", "user"], name="season_league_player_once")]

    def __str__(self) -> str:
        return f"{self.user} in {self.league_id} ({'active' if self.active else 'removed'})"


class Season(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running"
        CLOSED = "closed", "closed: final standings frozen"

    league = models.ForeignKey(League, related_name="seasons", on_delete=models.PROTECT)
    number = models.PositiveSmallIntegerField(help_text="1 for the first season.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING, db_index=True)
    rules = models.JSONField(help_text="The league's settings when the season started (League.rules()).")
    rounds = models.PositiveSmallIntegerField(default=0, help_text="Rounds of the largest division.")
    started_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    final_standings = models.JSONField(null=True, blank=True, help_text="Per division, frozen at the close.")

    class Meta:
        ordering = ["league", "number"]
        constraints = [models.UniqueConstraint(fields=["league", "number"], name="season_number_once")]

    def __str__(self) -> str:
        return f"{self.league} season {self.number} ({self.status})"


class Division(models.Model):
    season = models.ForeignKey(Season, related_name="division_set", on_delete=models.CASCADE)
    tier = models.PositiveSmallIntegerField(help_text="1 = top division.")

    class Meta:
        ordering = ["season", "tier"]
        constraints = [models.UniqueConstraint(fields=["season", "tier"], name="division_tier_once")]

    def __str__(self) -> str:
        return f"season {self.season_id} division {self.tier}"


class DivisionPlayer(models.Model):
    class Movement(models.TextChoices):
        NEW = scoring.NEW, "new to the league"
        STAYED = scoring.STAYED
        PROMOTED = scoring.PROMOTED
        RELEGATED = scoring.RELEGATED

    season = models.ForeignKey(Season, related_name="players", on_delete=models.CASCADE)
    division = models.ForeignKey(Division, related_name="players", on_delete=models.CASCADE)
    user = models.ForeignKey(User, related_name="season_divisions", on_delete=models.PROTECT)
    seed = models.PositiveSmallIntegerField(help_text="Pairing number in the division, 1 first; the last tiebreak.")
    movement = models.CharField(max_length=10, choices=Movement.choices, default=Movement.NEW)

    class Meta:
        ordering = ["division", "seed"]
        constraints = [
            models.UniqueConstraint(fields=["season", "user"], name="season_player_once"),
            models.UniqueConstraint(fields=["division", "seed"], name="division_seed_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} #{self.seed} in {self.division}"


class Fixture(models.Model):
    """One game of a division's schedule: ``home`` takes seat 0, ``away`` seat 1. A multiplayer
    fixture lists every seat in ``players`` (user ids, seat order; empty for two seats), and once
    decided ``placements`` ranks them (best first, ties grouped), ``points`` holds each one's league
    points and ``result`` is ``placed`` (or ``double_forfeit``: everyone lost, no points) - as a
    tournament board does. Decided when ``result`` is set (by the game, by a forfeit at the play-by
    date, by a reported result or by an organiser's correction)."""

    class Result(models.TextChoices):
        HOME = scoring.HOME, "home (first seat) won"
        AWAY = scoring.AWAY, "away (second seat) won"
        DRAW = scoring.DRAW
        DOUBLE_FORFEIT = scoring.DOUBLE_FORFEIT, "double forfeit (both lose)"
        PLACED = scoring.PLACED, "placed (a multiplayer fixture: see placements)"

    class Method(models.TextChoices):
        PLAYED = "played"
        FORFEIT = "forfeit", "forfeit at the play-by date"
        CORRECTION = "correction", "set by an organiser"
        REPORTED = "reported", "a reported result, confirmed or settled (league.reports)"

    season = models.ForeignKey(Season, related_name="fixtures", on_delete=models.CASCADE)
    division = models.ForeignKey(Division, related_name="fixtures", on_delete=models.CASCADE)
    round = models.PositiveSmallIntegerField()
    board = models.PositiveSmallIntegerField(help_text="Board number in the round, from 1.")
    home = models.ForeignKey(User, related_name="+", on_delete=models.PROTECT)
    away = models.ForeignKey(User, related_name="+", on_delete=models.PROTECT)
    game = models.OneToOneField(Game, related_name="season_fixture", on_delete=models.PROTECT)
    play_by = models.DateTimeField(db_index=True)
    result = models.CharField(max_length=16, choices=Result.choices, blank=True, db_index=True)
    method = models.CharField(max_length=12, choices=Method.choices, blank=True)
    games_home = models.FloatField(default=0, help_text="The engine's game score of the home player.")
    games_away = models.FloatField(default=0)
    players = models.JSONField(default=list, blank=True, help_text="Multiplayer: user ids in seat order.")
    placements = models.JSONField(null=True, blank=True, help_text="Multiplayer: user ids best first, ties grouped.")
    points = models.JSONField(null=True, blank=True, help_text="Multiplayer: league points by user id.")
    game_scores = models.JSONField(null=True, blank=True, help_text="Multiplayer: the engine's scores by user id.")
    decided_at = models.DateTimeField(null=True, blank=True)
    corrected_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    note = models.CharField(max_length=200, blank=True, help_text="Why: the forfeit or the correction's reason.")

    class Meta:
        ordering = ["division", "round", "board"]
        constraints = [
            models.UniqueConstraint(fields=["division", "round", "board"], name="fixture_board_once"),
        ]

    def __str__(self) -> str:
        return f"{self.home} v {self.away} (division {self.division_id}, round {self.round})"

    @property
    def is_decided(self) -> bool:
        return bool(self.result)

    @property
    def seat_ids(self) -> list[int]:
        """Every player's user id in seat order (a two-seat fixture: home, away)."""
        return list(self.players) if self.players else [self.home_id, self.away_id]
