"""The event store: games, seats, append-only events and move submissions."""

from __future__ import annotations

import uuid

import pgtrigger
from django.conf import settings
from django.db import models
from django.utils import timezone

GENESIS_HASH = "0" * 64


class Game(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "waiting for players"
        RUNNING = "running", "running"
        FINISHED = "finished", "finished"
        # A player declined the seat someone else gave them: the game never starts (no deal, no clock).
        CANCELLED = "cancelled", "cancelled: an invitation was declined"

    class Source(models.TextChoices):
        SERVER = "server", "played on the server"
        IMPORTED = "imported", "imported record of a table game"
        # Recorded move by move at a physical table by a keeper: the keeper enters the deal as the cards
        # are revealed (no seed), the server's engine checks every line as it is typed.
        TABLE = "table", "recorded live at a table"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    engine = models.CharField(max_length=40, db_index=True)
    rules_version = models.CharField(max_length=20)
    config = models.JSONField(default=dict, help_text="The full validated config, defaults included.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN, db_index=True)
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.SERVER)
    seed = models.CharField(max_length=64, blank=True, help_text="Secret hex seed; public once finished.")
    seed_sha256 = models.CharField(max_length=64, blank=True)
    meta = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    # An event's pairing (ladder, season, tournament): its players consented by joining the event, and
    # the creator is the event's organiser, who moderates it even without a seat (games.moderation).
    organised = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The head projection, written in the same transaction as the event it follows.
    head_seq = models.PositiveIntegerField(default=0)
    head_hash = models.CharField(max_length=64, default=GENESIS_HASH)
    state = models.JSONField(null=True, blank=True)
    outcome = models.JSONField(null=True, blank=True)
    actors = models.JSONField(default=list, blank=True)
    window = models.CharField(max_length=60, blank=True, help_text="Id of the open timed window, if any.")
    window_opened_at = models.DateTimeField(null=True, blank=True)
    deadline_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        ordering = ["-created_at"]
        # The checkpoint tick looks for recently finished games (games.checkpoints): an index over
        # the finished ones only, so the look costs what finished lately, not every game ever.
        indexes = [models.Index(fields=["finished_at"], name="game_finished_at", condition=models.Q(status="finished"))]

    def __str__(self) -> str:
        return f"{self.engine} {self.id} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status == self.Status.FINISHED

    @property
    def has_started(self) -> bool:
        """Dealt and playing, or over: not waiting for players and not cancelled."""
        return self.status in (self.Status.RUNNING, self.Status.FINISHED)


class Seat(models.Model):
    game = models.ForeignKey(Game, related_name="seats", on_delete=models.CASCADE)
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    name = models.CharField(max_length=80, blank=True)
    # A game starts only when every seated player has accepted it (issue 15 part 6): a seat a player
    # took themselves is accepted at once; one someone else named them for is an invitation until
    # they accept or decline it (``services.game_accept`` / ``game_decline``). A bot account and an
    # event's pairing are accepted at creation, except in a mature game, which each player accepts.
    accepted_at = models.DateTimeField(null=True, blank=True)
    declined_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "index"]
        constraints = [
            models.UniqueConstraint(fields=["game", "index"], name="seat_unique_index"),
            models.UniqueConstraint(
                fields=["game", "user"], condition=models.Q(user__isnull=False), name="seat_one_per_user"
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.index} of {self.game_id}: {self.name}"


class MatureConsent(models.Model):
    """A player's standing confirmation: an adult who consents to mature content. Without it,
    mature games are invisible to them and they cannot be seated in one."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, related_name="mature_consent", on_delete=models.CASCADE)
    confirmed_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"mature-content consent of {self.user}"


class BotAccount(models.Model):
    """Marks an account as a bot: a program that plays through the API. Set when the account is
    made (``"bot": true``) and never changed; organisers decide per ladder whether bots may play.
    Ask ``games.accounts.is_bot(user)`` rather than this table."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, related_name="bot_account", on_delete=models.CASCADE)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"bot account {self.user}"


class PersonalToken(models.Model):
    """A named API token of an account with scopes (issue 19 item 3): several per account, each
    revocable on its own. Only the SHA-256 of the key is stored; the key is shown once, when it is
    made (``games.accounts.personal_token_create``). ``scopes`` is a space-separated, sorted subset
    of ``read play organise``; every token may read. ``last_used_at`` is written at most once a
    minute (api/authentication.py)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="personal_tokens", on_delete=models.CASCADE)
    name = models.CharField(max_length=100)
    scopes = models.CharField(max_length=40)
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=16, help_text="The key's first characters, to tell tokens apart.")
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"personal token {self.name!r} of {self.user}"

    @property
    def scope_set(self) -> frozenset[str]:
        return frozenset(self.scopes.split())


def append_only(name: str, log: str) -> list:
    """PostgreSQL triggers that refuse UPDATE, DELETE and TRUNCATE on a log's table: the log is
    append-only in the database, not only in Python. ``name`` prefixes the triggers, ``log`` names
    the log in the refusal."""
    return [
        pgtrigger.Protect(name=f"{name}_append_only", operation=pgtrigger.Update | pgtrigger.Delete),
        # Protect has no statement-level form for TRUNCATE, so this one is a plain trigger.
        pgtrigger.Trigger(
            name=f"{name}_no_truncate",
            level=pgtrigger.Statement,
            when=pgtrigger.Before,
            operation=pgtrigger.Truncate,
            func=f"RAISE EXCEPTION 'kifu: the {log} is append-only; TRUNCATE is refused'; RETURN NULL;",
        ),
    ]


class Event(models.Model):
    """One event of a game's log. Never updated or deleted: PostgreSQL triggers refuse it."""

    class Kind(models.TextChoices):
        CHANCE = "chance"
        MOVE = "move"
        SYSTEM = "system"

    game = models.ForeignKey(Game, related_name="events", on_delete=models.PROTECT)
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    payload = models.JSONField()
    hash = models.CharField(max_length=64, help_text="sha256(previous hash + canonical JSON of this event)")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="event_unique_seq")]
        triggers = append_only("event", "event log")

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.kind}"

    def as_record(self) -> dict:
        """The event as a record line / engine event (without seq)."""
        event = {"kind": self.kind, "data": self.payload}
        if self.seat is not None:
            event["seat"] = self.seat
        return event


class Submission(models.Model):
    """A move as the server received it; a worker turns it into an event or a rejection."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        REJECTED = "rejected"

    # The auto-increment id is the server's receipt order: pending submissions are applied in it.
    id = models.BigAutoField(primary_key=True)
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    game = models.ForeignKey(Game, related_name="submissions", on_delete=models.CASCADE)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    seat = models.PositiveSmallIntegerField()
    idempotency_key = models.CharField(max_length=100)
    payload = models.JSONField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    code = models.CharField(max_length=60, blank=True)
    message = models.TextField(blank=True)
    event_seq = models.PositiveIntegerField(null=True, blank=True)
    received_at = models.DateTimeField(default=timezone.now, help_text="When the server received it.")
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user", "idempotency_key"], name="submission_idempotency"),
        ]
        indexes = [models.Index(fields=["game", "status", "id"], name="submission_pending")]

    def __str__(self) -> str:
        return f"submission {self.public_id} ({self.status})"


# ---- moderation of storytelling contributions (games/moderation.py does the writes) ----------
class ContributionReport(models.Model):
    """A viewer's report that a contribution (the move event ``seq``) should not be shown. The
    event itself is never touched; reports are only read by the game's moderators."""

    game = models.ForeignKey(Game, related_name="contribution_reports", on_delete=models.PROTECT)
    seq = models.PositiveIntegerField()
    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.PROTECT)
    reason = models.CharField(max_length=500)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["game", "seq", "id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq", "reporter"], name="contribution_report_once"),
        ]
        triggers = [
            pgtrigger.Protect(name="contribution_report_append_only", operation=pgtrigger.Update | pgtrigger.Delete)
        ]

    def __str__(self) -> str:
        return f"report on {self.game_id}#{self.seq} by {self.reporter_id}"


class ContributionHiding(models.Model):
    """One moderation decision on a contribution: hide it, or show it again. Append-only: the
    latest row for ``(game, seq)`` is in force, and the rows before it are the history."""

    class Action(models.TextChoices):
        HIDE = "hide"
        UNHIDE = "unhide"

    game = models.ForeignKey(Game, related_name="contribution_hidings", on_delete=models.PROTECT)
    seq = models.PositiveIntegerField()
    action = models.CharField(max_length=6, choices=Action.choices)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.PROTECT)
    reason = models.CharField(max_length=500)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["game", "seq", "id"]
        indexes = [models.Index(fields=["game", "seq", "id"], name="contribution_hiding_latest")]
        triggers = [
            pgtrigger.Protect(name="contribution_hiding_append_only", operation=pgtrigger.Update | pgtrigger.Delete)
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.game_id}#{self.seq}"


# ---- the signed checkpoint log (games/checkpoints.py does the writes; issue 15 part 5) -----------
class Checkpoint(models.Model):
    """One signed entry of the append-only checkpoint log: the Merkle root over a batch of finished
    games' heads, chained to the entry before it and signed with the server's Ed25519 key (which
    lives outside the database). Never updated or deleted: PostgreSQL triggers refuse it."""

    seq = models.PositiveIntegerField(unique=True)
    previous_hash = models.CharField(max_length=64, help_text="hash of the checkpoint before (zeros for the first)")
    merkle_root = models.CharField(max_length=64)
    size = models.PositiveIntegerField(help_text="how many leaves (finished games) the root covers")
    created_at = models.DateTimeField()
    key_id = models.CharField(max_length=64, help_text="sha256 of the raw Ed25519 public key")
    signature = models.CharField(max_length=128, help_text="Ed25519 signature of the canonical body, hex")
    hash = models.CharField(max_length=64, help_text="sha256 of the canonical body: the next entry's previous_hash")

    class Meta:
        ordering = ["seq"]
        triggers = append_only("checkpoint", "checkpoint log")

    def __str__(self) -> str:
        return f"checkpoint {self.seq} ({self.size} games)"


class CheckpointLeaf(models.Model):
    """A finished game's head as a checkpoint signed it: leaf ``index`` of that checkpoint's tree."""

    checkpoint = models.ForeignKey(Checkpoint, related_name="leaves", on_delete=models.PROTECT)
    index = models.PositiveIntegerField()
    game = models.OneToOneField(Game, related_name="checkpoint_leaf", on_delete=models.PROTECT)
    head_seq = models.PositiveIntegerField()
    head_hash = models.CharField(max_length=64)

    class Meta:
        ordering = ["checkpoint", "index"]
        constraints = [models.UniqueConstraint(fields=["checkpoint", "index"], name="checkpoint_leaf_unique_index")]
        triggers = append_only("checkpoint_leaf", "checkpoint log")

    def __str__(self) -> str:
        return f"{self.game_id} at {self.head_seq} in checkpoint {self.checkpoint_id}"


# ---- the table recorder (games/table.py does the writes; issue 17) -------------------------------
class TableEntry(models.Model):
    """One line a keeper typed into a table game (``Game.Source.TABLE``): a chance outcome, a move or
    a system event, as sent, with the verdict the engine gave it at once.

    The idempotency key plays the part it plays for a ``Submission``: the same key (per game and
    keeper) always answers the first verdict, so entries typed offline and sent again after a lost
    answer are stored once. A rejected entry leaves no event. Never updated or deleted."""

    class Status(models.TextChoices):
        ACCEPTED = "accepted"
        REJECTED = "rejected"

    id = models.BigAutoField(primary_key=True)
    game = models.ForeignKey(Game, related_name="table_entries", on_delete=models.CASCADE)
    keeper = models.ForeignKey(settings.AUTH_USER_MODEL, related_name="+", on_delete=models.CASCADE)
    idempotency_key = models.CharField(max_length=100)
    payload = models.JSONField(help_text="The entry as sent: kind, seat, data (and the seq it was typed for).")
    status = models.CharField(max_length=10, choices=Status.choices)
    code = models.CharField(max_length=60, blank=True)
    message = models.TextField(blank=True)
    event_seq = models.PositiveIntegerField(null=True, blank=True)
    received_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "keeper", "idempotency_key"], name="table_entry_idempotency"),
        ]
        triggers = [pgtrigger.Protect(name="table_entry_append_only", operation=pgtrigger.Update | pgtrigger.Delete)]

    def __str__(self) -> str:
        return f"table entry {self.pk} of {self.game_id} ({self.status})"
