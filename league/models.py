"""League records: players, clubs and memberships, ladders with their append-only logs, challenges,
matches, and the projections (standings, rating history) rebuilt from the logs."""

from __future__ import annotations

import uuid

import pgtrigger
from django.conf import settings
from django.db import models

from games.models import GENESIS_HASH, Game

from .scoring import ladder as rules

User = settings.AUTH_USER_MODEL


class PlayerProfile(models.Model):
    user = models.OneToOneField(User, related_name="player_profile", on_delete=models.CASCADE)
    display_name = models.CharField(max_length=80, blank=True)
    language = models.CharField(max_length=10, default="en", help_text="A language code from settings.LANGUAGES.")
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.display_name or str(self.user)


class Club(models.Model):
    slug = models.SlugField(max_length=50, unique=True)
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    class Role(models.TextChoices):
        ORGANISER = "organiser"
        MEMBER = "member"

    class Status(models.TextChoices):
        INVITED = "invited", "invited by an organiser"
        REQUESTED = "requested", "asked to join"
        ACTIVE = "active"
        LEFT = "left", "left or removed"

    club = models.ForeignKey(Club, related_name="memberships", on_delete=models.CASCADE)
    user = models.ForeignKey(User, related_name="club_memberships", on_delete=models.CASCADE)
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)
    status = models.CharField(max_length=10, choices=Status.choices)
    invited_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField()
    joined_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["club", "user__username"]
        constraints = [models.UniqueConstraint(fields=["club", "user"], name="membership_once_per_club")]

    def __str__(self) -> str:
        return f"{self.user} in {self.club} ({self.role}, {self.status})"

    @property
    def is_organiser(self) -> bool:
        return self.status == self.Status.ACTIVE and self.role == self.Role.ORGANISER


class Ladder(models.Model):
    """One ladder per club, game and kind. Its history is ``events``; the rest is projection."""

    class Kind(models.TextChoices):
        CHALLENGE = rules.CHALLENGE, "challenge ladder (two players)"
        RATING = rules.RATING, "rating ladder (OpenSkill, 2 or more players)"

    club = models.ForeignKey(Club, related_name="ladders", on_delete=models.PROTECT)
    name = models.CharField(max_length=100)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    engine = models.CharField(max_length=40)
    game_config = models.JSONField(default=dict, blank=True, help_text="The validated config of every game.")
    settings = models.JSONField(default=dict, blank=True, help_text="Current settings (the log has every change).")
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField()
    head_seq = models.PositiveIntegerField(default=0)
    head_hash = models.CharField(max_length=64, default=GENESIS_HASH)
    projected_seq = models.PositiveIntegerField(default=0, help_text="The log position the projection reflects.")

    class Meta:
        ordering = ["club", "name"]
        constraints = [
            models.UniqueConstraint(fields=["club", "engine", "kind"], name="ladder_one_per_club_game_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.club}: {self.name} ({self.kind}, {self.engine})"


class LadderEvent(models.Model):
    """One entry of a ladder's log. Never updated or deleted: PostgreSQL triggers refuse it."""

    ladder = models.ForeignKey(Ladder, related_name="events", on_delete=models.PROTECT)
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=30, choices=[(kind, kind) for kind in rules.EVENT_KINDS])
    payload = models.JSONField()
    # PROTECT: a user who appears in a league log is deactivated, not deleted (the log never changes).
    actor = models.ForeignKey(User, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(help_text="When it happened on the league's clock (services take `now`).")
    created_at = models.DateTimeField(auto_now_add=True)
    hash = models.CharField(max_length=64, help_text="sha256(previous hash + canonical JSON of this event)")

    class Meta:
        ordering = ["ladder", "seq"]
        constraints = [models.UniqueConstraint(fields=["ladder", "seq"], name="ladder_event_unique_seq")]
        triggers = [
            pgtrigger.Protect(name="ladder_event_append_only", operation=pgtrigger.Update | pgtrigger.Delete),
            pgtrigger.Trigger(
                name="ladder_event_no_truncate",
                level=pgtrigger.Statement,
                when=pgtrigger.Before,
                operation=pgtrigger.Truncate,
                func="RAISE EXCEPTION 'kifu: the ladder log is append-only; TRUNCATE is refused'; RETURN NULL;",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.ladder_id}#{self.seq} {self.kind}"


class Match(models.Model):
    """A series of games between the same players; its result feeds a ladder when it has one."""

    class Status(models.TextChoices):
        RUNNING = "running"
        FINISHED = "finished"
        ABANDONED = "abandoned", "stopped: its challenge was decided without it"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    ladder = models.ForeignKey(Ladder, null=True, blank=True, related_name="matches", on_delete=models.PROTECT)
    engine = models.CharField(max_length=40)
    config = models.JSONField(default=dict, blank=True)
    spec = models.JSONField(help_text='{"format": best_of|first_to|session, "target": N, "points": wins|scores}')
    players = models.JSONField(help_text="User ids in the seat order of the first game.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    totals = models.JSONField(default=dict, blank=True, help_text="Match points by user id.")
    result = models.JSONField(null=True, blank=True, help_text="Ranking of user ids, best first; ties grouped.")
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "matches"

    def __str__(self) -> str:
        return f"{self.spec.get('format')} {self.spec.get('target')} of {self.engine} ({self.status})"


class Challenge(models.Model):
    """A challenge's working state (deadlines, its game); what happened to it is in the ladder log."""

    class Status(models.TextChoices):
        ISSUED = "issued", "waiting for the defender"
        ACCEPTED = "accepted", "accepted, being played"
        DECIDED = "decided", "decided (result or forfeit)"
        WITHDRAWN = "withdrawn", "withdrawn by the challenger"
        VOID = "void", "void"

    OPEN = (Status.ISSUED, Status.ACCEPTED)

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    ladder = models.ForeignKey(Ladder, related_name="challenges", on_delete=models.PROTECT)
    challenger = models.ForeignKey(User, related_name="challenges_issued", on_delete=models.PROTECT)
    defender = models.ForeignKey(User, related_name="challenges_received", on_delete=models.PROTECT)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ISSUED, db_index=True)
    free = models.BooleanField(default=False, help_text="Used one of a new player's free challenges.")
    issued_at = models.DateTimeField()
    accept_by = models.DateTimeField(db_index=True)
    accepted_at = models.DateTimeField(null=True, blank=True)
    play_by = models.DateTimeField(null=True, blank=True, db_index=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    match = models.OneToOneField(Match, null=True, blank=True, on_delete=models.PROTECT, related_name="challenge")
    outcome = models.JSONField(null=True, blank=True, help_text='{"winner": user id or null, "reason": ...}')
    issued_seq = models.PositiveIntegerField()
    decided_seq = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-issued_at"]

    def __str__(self) -> str:
        return f"{self.challenger} v {self.defender} ({self.status})"


class LeagueGame(models.Model):
    """A game the league created: which ladder, challenge or match its result belongs to."""

    game = models.OneToOneField(Game, primary_key=True, related_name="league", on_delete=models.PROTECT)
    ladder = models.ForeignKey(Ladder, null=True, blank=True, on_delete=models.PROTECT, related_name="games")
    challenge = models.ForeignKey(Challenge, null=True, blank=True, on_delete=models.PROTECT, related_name="games")
    match = models.ForeignKey(Match, null=True, blank=True, on_delete=models.PROTECT, related_name="games")
    number = models.PositiveSmallIntegerField(default=0, help_text="Game number within its match, from 0.")
    recorded = models.BooleanField(default=False, help_text="Its result has been taken into the league.")

    class Meta:
        ordering = ["match", "number"]

    def __str__(self) -> str:
        return f"league game {self.game_id}"


# ---- projections: rebuilt from the log, never edited by hand ----------------------------------
class LadderEntry(models.Model):
    ladder = models.ForeignKey(Ladder, related_name="entries", on_delete=models.CASCADE)
    user = models.ForeignKey(User, related_name="ladder_entries", on_delete=models.CASCADE)
    position = models.PositiveIntegerField(null=True, blank=True, help_text="1 = top; null when off the ladder.")
    active = models.BooleanField(default=False)
    mu = models.FloatField(null=True, blank=True)
    sigma = models.FloatField(null=True, blank=True)
    ordinal = models.FloatField(null=True, blank=True, help_text="mu - 3 sigma")
    played = models.PositiveIntegerField(default=0)
    won = models.PositiveIntegerField(default=0)
    lost = models.PositiveIntegerField(default=0)
    drawn = models.PositiveIntegerField(default=0)
    forfeits_won = models.PositiveIntegerField(default=0)
    forfeits_lost = models.PositiveIntegerField(default=0)
    drops = models.PositiveIntegerField(default=0)
    free_challenges_left = models.PositiveIntegerField(default=0)
    joined_at = models.DateTimeField(null=True, blank=True)
    last_active_at = models.DateTimeField(null=True, blank=True)
    drop_from = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["ladder", "position"]
        constraints = [models.UniqueConstraint(fields=["ladder", "user"], name="ladder_entry_once")]
        # A result reads and rewrites a window of places (league.services.log): an index lookup,
        # not a scan of the ladder's rows.
        indexes = [models.Index(fields=["ladder", "position"], name="ladder_entry_place")]

    def __str__(self) -> str:
        return f"{self.user} #{self.position} on {self.ladder_id}"


class RatingPoint(models.Model):
    """One rating change of one player: the rating history."""

    ladder = models.ForeignKey(Ladder, related_name="rating_points", on_delete=models.CASCADE)
    user = models.ForeignKey(User, related_name="rating_points", on_delete=models.CASCADE)
    seq = models.PositiveIntegerField(help_text="The log event (a result) that changed it.")
    at = models.DateTimeField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu = models.FloatField()
    sigma = models.FloatField()
    ordinal = models.FloatField()
    game = models.UUIDField(null=True, blank=True)
    match = models.UUIDField(null=True, blank=True)

    class Meta:
        ordering = ["ladder", "user", "seq"]
        indexes = [models.Index(fields=["ladder", "user", "seq"], name="rating_point_history")]

    def __str__(self) -> str:
        return f"{self.user} {self.mu:.2f}/{self.sigma:.2f} at #{self.seq}"


# ---- tournaments: round robin, Swiss, multiplayer Swiss and elimination events of a club (issue 8)
class Tournament(models.Model):
    """A club's tournament. Its pairings are ``boards`` (a game or a match each, 2-6 seats);
    standings are computed from their results (``league.tournaments.standings``) and frozen
    in ``final_standings`` at the end. ``settings`` holds the validated per-tournament options
    (seats, placement points, match boards, deadlines, late entries, check-in, bracket options)."""

    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", "round robin (Berger tables)"
        SWISS = "swiss", "Swiss (two players a game)"
        MULTI_SWISS = "multi_swiss", "Swiss for tables of 3-6 players"
        SINGLE_ELIMINATION = "single_elimination", "single elimination"
        DOUBLE_ELIMINATION = "double_elimination", "double elimination"
        GROUPS_PLAYOFF = "groups_playoff", "round-robin groups, then a single-elimination playoff"

    class Status(models.TextChoices):
        OPEN = "open", "taking entries"
        RUNNING = "running"
        FINISHED = "finished"

    club = models.ForeignKey(Club, related_name="tournaments", on_delete=models.PROTECT)
    name = models.CharField(max_length=100)
    format = models.CharField(max_length=20, choices=Format.choices)
    engine = models.CharField(max_length=40)
    game_config = models.JSONField(default=dict, blank=True, help_text="The validated config of every game.")
    settings = models.JSONField(default=dict, blank=True, help_text="Validated options (see the README).")
    cycles = models.PositiveSmallIntegerField(default=1, help_text="Round robin: 1 single, 2 double.")
    rounds = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Number of rounds (set at start).")
    tiebreaks = models.JSONField(default=list, blank=True, help_text="Tiebreak names in order of use.")
    seed = models.BigIntegerField(default=0, help_text="Swiss: the seed of the pairing's draws (colours by lot).")
    bracket = models.JSONField(
        null=True, blank=True, help_text="Elimination: seeds (user ids), groups and the playoff seeds, set as they are."
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    current_round = models.PositiveSmallIntegerField(default=0)
    final_standings = models.JSONField(null=True, blank=True)
    created_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.format}, {self.engine})"


class TournamentEntry(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        DROPPED = "dropped", "withdrew or was dropped: not paired again"

    tournament = models.ForeignKey(Tournament, related_name="entries", on_delete=models.CASCADE)
    user = models.ForeignKey(User, related_name="tournament_entries", on_delete=models.PROTECT)
    number = models.PositiveIntegerField(help_text="Pairing number / initial rank, 1 = first seed.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    first_round = models.PositiveSmallIntegerField(default=1, help_text="A late entry joins at this round.")
    checked_in_at = models.DateTimeField(null=True, blank=True)
    dropped_at = models.DateTimeField(null=True, blank=True)
    dropped_after_round = models.PositiveSmallIntegerField(null=True, blank=True)
    group = models.PositiveSmallIntegerField(null=True, blank=True, help_text="groups_playoff: group index from 0.")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="tournament_entry_once"),
            models.UniqueConstraint(fields=["tournament", "number"], name="tournament_entry_number_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user} #{self.number} in {self.tournament_id}"


class TournamentRound(models.Model):
    """One paired round: what went into its pairing (so it can be reproduced), its seed and deadline."""

    tournament = models.ForeignKey(Tournament, related_name="round_set", on_delete=models.CASCADE)
    number = models.PositiveSmallIntegerField()
    stage = models.CharField(max_length=10, blank=True, help_text="groups_playoff: groups or playoff.")
    seed = models.BigIntegerField(default=0)
    pairing_input = models.JSONField(default=dict, blank=True)
    manual = models.BooleanField(default=False, help_text="Paired by an organiser.")
    deadline_at = models.DateTimeField(null=True, blank=True, db_index=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["tournament", "number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="tournament_round_once")]

    def __str__(self) -> str:
        return f"{self.tournament_id} round {self.number}"


class TournamentBoard(models.Model):
    """One table of one round: ``players`` in seat order (``first``/``second`` are seats 0 and 1);
    a board of one player is a bye. A board is one game or, with the tournament's ``match``
    setting, one ``match`` (best of N). Once decided, ``placements`` ranks its players (best first,
    ties grouped) and ``points`` holds each player's tournament points; ``score_first`` is first's
    points on a two-seat board (1, 1/2, 0), ``games_*`` the engine's game scores."""

    class Decided(models.TextChoices):
        GAME = "game"
        MATCH = "match"
        BYE = "bye"
        FORFEIT = "forfeit", "the side the game waited on lost at the round deadline"
        DOUBLE_FORFEIT = "double_forfeit", "nobody played in time: everyone lost"
        CORRECTION = "correction", "set by an organiser"
        REPORT = "report", "a reported result, confirmed or settled (league.reports)"

    tournament = models.ForeignKey(Tournament, related_name="boards", on_delete=models.CASCADE)
    round = models.PositiveSmallIntegerField()
    number = models.PositiveSmallIntegerField(help_text="Board number in the round, from 1.")
    first = models.ForeignKey(User, related_name="+", on_delete=models.PROTECT)
    second = models.ForeignKey(User, null=True, blank=True, related_name="+", on_delete=models.PROTECT)
    players = models.JSONField(default=list, blank=True, help_text="User ids in seat order.")
    bracket_match = models.CharField(max_length=12, blank=True, help_text='Elimination: the match id, e.g. "W1-1".')
    game = models.OneToOneField(Game, null=True, blank=True, related_name="tournament_board", on_delete=models.PROTECT)
    match = models.OneToOneField(
        Match, null=True, blank=True, related_name="tournament_board", on_delete=models.PROTECT
    )
    score_first = models.FloatField(null=True, blank=True)
    games_first = models.FloatField(default=0)
    games_second = models.FloatField(default=0)
    placements = models.JSONField(null=True, blank=True, help_text="User ids best first, ties grouped.")
    points = models.JSONField(null=True, blank=True, help_text="Tournament points by user id.")
    game_scores = models.JSONField(null=True, blank=True, help_text="The engine's scores by user id.")
    decided_by = models.CharField(max_length=16, choices=Decided.choices, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "round", "number"], name="tournament_board_once"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament_id} r{self.round} b{self.number}"

    @property
    def seat_ids(self) -> list:
        return list(self.players) or [pk for pk in (self.first_id, self.second_id) if pk is not None]

    @property
    def is_bye(self) -> bool:
        return len(self.seat_ids) == 1

    @property
    def is_done(self) -> bool:
        return self.finished_at is not None


# ---- reported results: a pairing decided at a real table, confirmed by the other side (issue 17)
class ResultReport(models.Model):
    """A result reported for one pairing (a ladder challenge, a rated game of a rating ladder, a
    tournament board, a season fixture) and its way to a decision: the other players confirm or
    dispute it, an organiser settles it, or it counts as confirmed at ``confirm_by``. What happened
    is in ``steps`` (and, for a ladder's pairing, in the ladder log too); this row is the working
    state, as ``Challenge`` is beside the ladder log. ``league.reports`` owns every write."""

    class Kind(models.TextChoices):
        CHALLENGE = "challenge", "a challenge of a challenge ladder"
        GAME = "game", "a rated game of a rating ladder"
        BOARD = "board", "a tournament board"
        FIXTURE = "fixture", "a season fixture"

    class Status(models.TextChoices):
        PENDING = "pending", "waiting for the other players"
        DISPUTED = "disputed", "disputed: an organiser settles it"
        CONFIRMED = "confirmed", "confirmed: it decided the pairing"
        SETTLED = "settled", "settled or entered by an organiser: it decided the pairing"
        SUPERSEDED = "superseded", "replaced: the pairing was decided another way"

    OPEN = (Status.PENDING, Status.DISPUTED)

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    pairing = models.CharField(
        max_length=40, help_text="The pairing's id: a challenge or game UUID, a board or fixture id."
    )
    ladder = models.ForeignKey(Ladder, null=True, blank=True, on_delete=models.PROTECT, related_name="reports")
    tournament = models.ForeignKey(Tournament, null=True, blank=True, on_delete=models.PROTECT, related_name="reports")
    season = models.ForeignKey(
        "seasons.Season", null=True, blank=True, on_delete=models.PROTECT, related_name="reports"
    )
    players = models.JSONField(help_text="The pairing's user ids in seat order.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    ranking = models.JSONField(help_text="User ids best first, ties grouped (the decided result once decided).")
    scores = models.JSONField(null=True, blank=True, help_text="Scores (or a series' match points) by user id.")
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.PROTECT, related_name="+", help_text="A table game's record."
    )
    reported_by = models.ForeignKey(User, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    reported_at = models.DateTimeField()
    confirm_by = models.DateTimeField(db_index=True, help_text="Counts as confirmed then, unless disputed.")
    confirmed_by = models.JSONField(default=list, blank=True, help_text="User ids who confirmed it.")
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-reported_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "pairing"],
                condition=models.Q(status__in=["pending", "disputed"]),
                name="result_report_one_open_per_pairing",
            ),
        ]
        indexes = [models.Index(fields=["kind", "pairing"], name="result_report_pairing")]

    def __str__(self) -> str:
        return f"{self.kind} {self.pairing}: {self.status}"

    @property
    def is_open(self) -> bool:
        return self.status in self.OPEN

    @classmethod
    def open_pairings(cls, kind: str, **owner) -> list[str]:
        """The ids of ``kind`` pairings of an owner (``ladder=``, ``tournament=``, ``season=``) with
        an open report: the deadline sweeps leave them to the report (it decides them, confirmed
        by the players, an organiser or its own deadline)."""
        return list(cls.objects.filter(kind=kind, status__in=cls.OPEN, **owner).values_list("pairing", flat=True))


class ResultReportStep(models.Model):
    """One step of a report (reported, confirmed, disputed, settled, entered, auto-confirmed), who
    and when: the tournament's and the season's log of reported results. Never updated or deleted:
    PostgreSQL triggers refuse it."""

    class Kind(models.TextChoices):
        REPORTED = "reported"
        CONFIRMED = "confirmed"
        DISPUTED = "disputed"
        SETTLED = "settled", "settled by an organiser"
        ENTERED = "entered", "entered directly by an organiser"
        AUTO_CONFIRMED = "auto_confirmed", "confirmed when its time ran out"
        SUPERSEDED = "superseded", "the pairing was decided another way"

    report = models.ForeignKey(ResultReport, related_name="steps", on_delete=models.PROTECT)
    seq = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16, choices=Kind.choices)
    actor = models.ForeignKey(User, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField()
    payload = models.JSONField(default=dict, blank=True)
    idempotency_key = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["report", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["report", "seq"], name="result_report_step_once"),
        ]
        indexes = [models.Index(fields=["actor", "idempotency_key"], name="result_report_step_key")]
        triggers = [
            pgtrigger.Protect(name="result_report_step_append_only", operation=pgtrigger.Update | pgtrigger.Delete),
        ]

    def __str__(self) -> str:
        return f"{self.report_id}#{self.seq} {self.kind}"
